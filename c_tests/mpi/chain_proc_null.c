/* A 1-D heat equation on a chain of ranks (not a ring): the end ranks
 * exchange with MPI_PROC_NULL (MPI_Sendrecv one way, MPI_Irecv/MPI_Isend/
 * MPI_Waitall the other), so their ghost cells keep what the step wrote
 * into them before the exchange (a reflection of the boundary cell): a
 * receive from MPI_PROC_NULL must leave the adjoint of that value alone.
 * Reverse vs FD, forward vs reverse. */
#include "mpi_check.h"
#include <stdlib.h>

#define N 5
#define STEPS 3

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) double chain(const double *u) {
  int left = mpi_rank > 0 ? mpi_rank - 1 : MPI_PROC_NULL;
  int right = mpi_rank + 1 < mpi_size ? mpi_rank + 1 : MPI_PROC_NULL;
  double a[N + 2], b[N + 2];
  for (int i = 0; i < N; i++)
    a[i + 1] = u[i];
  for (int s = 0; s < STEPS; s++) {
    MPI_Request req[2];
    a[0] = 0.5 * a[1];
    a[N + 1] = 0.25 * a[N] * a[N];
    MPI_Sendrecv(&a[N], 1, MPI_DOUBLE, right, 5, &a[0], 1, MPI_DOUBLE, left, 5,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Irecv(&a[N + 1], 1, MPI_DOUBLE, right, 6, MPI_COMM_WORLD, &req[0]);
    MPI_Isend(&a[1], 1, MPI_DOUBLE, left, 6, MPI_COMM_WORLD, &req[1]);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    for (int i = 1; i <= N; i++)
      b[i] = a[i] + 0.3 * (a[i - 1] - 2 * a[i] + a[i + 1]) + 0.1 * a[i] * a[i];
    for (int i = 1; i <= N; i++)
      a[i] = b[i];
  }
  double local = 0, global = 0;
  for (int i = 1; i <= N; i++)
    local += (1 + 0.2 * i) * a[i] * a[i];
  MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return global;
}

static double loss_global(const double *x) { return chain(x + mpi_rank * N); }

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &mpi_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &mpi_size);
  int n = N * mpi_size;
  double *x = malloc(n * sizeof(double)), *g = malloc(n * sizeof(double));
  double *dir = malloc(n * sizeof(double));
  global_input(x, n, 9);
  global_input(dir, n, 2);
  double du[N] = {0};
  __enzyme_autodiff((void *)chain, enzyme_dup, x + mpi_rank * N, du);
  gather_slices(du, g, N);
  check_at("chain with MPI_PROC_NULL reverse, np=%d", mpi_size);
  for (int k = 0; k < n; k++)
    if (fd_checked(k, n))
      check_close_i("d/dx vs FD", k, g[k],
                    mpi_size * fd_global(loss_global, x, k), TOL_FD);
  double t = __enzyme_fwddiff((void *)chain, enzyme_dup, x + mpi_rank * N,
                              dir + mpi_rank * N);
  check_at("chain with MPI_PROC_NULL forward, np=%d", mpi_size);
  check_close("tangent vs dir . gradient", t, dot(dir, g, n) / mpi_size,
              TOL_AD * 100);
  int rc = mpi_report();
  free(x), free(g), free(dir);
  MPI_Finalize();
  return rc;
}
