/* A 1-D heat equation on a ring of ranks, N cells each: each step
 * exchanges halo cells with MPI_Sendrecv one way and MPI_Isend/MPI_Irecv/
 * MPI_Waitall the other, then a nonlinear explicit step; the loss is the
 * MPI_Allreduce (sum) of every rank's weighted squares. Reverse mode vs
 * finite differences of the whole distributed loss, forward mode vs the
 * reverse gradient dotted with a direction; split mode (augmented forward,
 * then the reverse with the tape) vs combined. test_poll.c includes this
 * file with its own COMPLETE_HALO (how the non-blocking transfers of step
 * s complete) and LABEL. */
#include "mpi_check.h"
#include <stdlib.h>
#include <string.h>

#define N 6
#define STEPS 3

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
void *__enzyme_augmentfwd(void *, ...);
void __enzyme_reverse(void *, ...);

#ifndef COMPLETE_HALO
#define COMPLETE_HALO(req, s) MPI_Waitall(2, req, MPI_STATUSES_IGNORE)
#define LABEL "heat ring"
#endif

static void halo(double *a, int s) {
  int left = (mpi_rank + mpi_size - 1) % mpi_size;
  int right = (mpi_rank + 1) % mpi_size;
  MPI_Request req[2];
  /* rightwards: my last cell to the right's left ghost */
  MPI_Sendrecv(&a[N], 1, MPI_DOUBLE, right, 7, &a[0], 1, MPI_DOUBLE, left, 7,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  /* leftwards: my first cell to the left's right ghost */
  MPI_Irecv(&a[N + 1], 1, MPI_DOUBLE, right, 9, MPI_COMM_WORLD, &req[0]);
  MPI_Isend(&a[1], 1, MPI_DOUBLE, left, 9, MPI_COMM_WORLD, &req[1]);
  COMPLETE_HALO(req, s);
}

__attribute__((noinline)) double heat(const double *u, double kappa) {
  double a[N + 2], b[N + 2];
  for (int i = 0; i < N; i++)
    a[i + 1] = u[i];
  for (int s = 0; s < STEPS; s++) {
    halo(a, s);
    for (int i = 1; i <= N; i++)
      b[i] = a[i] + kappa * (a[i - 1] - 2 * a[i] + a[i + 1]) +
             0.05 * sin(a[i]) * a[i - 1];
    for (int i = 1; i <= N; i++)
      a[i] = b[i];
  }
  double local = 0, global = 0;
  for (int i = 1; i <= N; i++)
    local += (1.0 + 0.1 * (mpi_rank * N + i)) * a[i] * a[i];
  MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return global;
}

static double loss_global(const double *x) {
  return heat(x + mpi_rank * N, 0.2);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &mpi_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &mpi_size);
  int n = N * mpi_size;
  double *x = malloc(n * sizeof(double)), *g = malloc(n * sizeof(double));
  double *dir = malloc(n * sizeof(double));
  global_input(x, n, 1);
  global_input(dir, n, 5);
  double *u = x + mpi_rank * N, du[N] = {0};
  __enzyme_autodiff((void *)heat, enzyme_dup, u, du, enzyme_const, 0.2);
  gather_slices(du, g, N);
  check_at(LABEL " reverse, np=%d", mpi_size);
  for (int k = 0; k < n; k++)
    if (fd_checked(k, n))
      check_close_i("d/dx vs FD", k, g[k],
                    mpi_size * fd_global(loss_global, x, k), TOL_FD);
  /* split: the non-blocking transfers' records outlive the augmented call */
  double ds[N] = {0};
  void *tape = __enzyme_augmentfwd((void *)heat, enzyme_dup, u, ds,
                                   enzyme_const, 0.2);
  __enzyme_reverse((void *)heat, enzyme_dup, u, ds, enzyme_const, 0.2, 1.0,
                   tape);
  check_at(LABEL " split, np=%d", mpi_size);
  for (int k = 0; k < N; k++)
    check_close_i("split vs combined", k, ds[k], du[k], TOL_AD);
  /* forward: the tangent in direction dir is dir . gradient */
  double want = 0;
  for (int k = 0; k < n; k++)
    want += dir[k] * g[k] / mpi_size;
  double t = __enzyme_fwddiff((void *)heat, enzyme_dup, u, dir + mpi_rank * N,
                              enzyme_const, 0.2);
  check_at(LABEL " forward, np=%d", mpi_size);
  check_close("tangent vs dir . gradient", t, want, TOL_AD * 100);
  int rc = mpi_report();
  free(x), free(g), free(dir);
  MPI_Finalize();
  return rc;
}
