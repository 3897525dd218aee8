/* A 2-D heat equation on a column of ranks, R rows of C cells each, whose
 * halo rows move as contiguous derived datatypes: one row as `row_t`
 * (MPI_Type_contiguous(C, MPI_DOUBLE), made, committed and freed inside
 * the differentiated function) by MPI_Sendrecv one way, and as `pair_t`
 * (two `half_t`s of C/2 doubles each: a contiguous type of a contiguous
 * type, made once by main into globals) by MPI_Isend/MPI_Irecv/
 * MPI_Waitall the other; a weight row broadcast from rank 0 as one
 * `row_t`; the loss an MPI_Allreduce of every rank's weighted squares.
 * Reverse mode vs finite differences of the whole distributed loss (the
 * cells and the broadcast weights), split vs combined, forward vs the
 * reverse gradient dotted with a direction. */
#include "mpi_check.h"
#include <stdlib.h>
#include <string.h>

#define R 2
#define C 4
#define STEPS 3

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
void *__enzyme_augmentfwd(void *, ...);
void __enzyme_reverse(void *, ...);

static MPI_Datatype half_t, pair_t;

static void make_types(void) {
  MPI_Type_contiguous(C / 2, MPI_DOUBLE, &half_t);
  MPI_Type_contiguous(2, half_t, &pair_t);
  MPI_Type_commit(&half_t);
  MPI_Type_commit(&pair_t);
}

__attribute__((noinline)) double heat2d(const double *u, double *w,
                                        double kappa) {
  MPI_Datatype row_t;
  MPI_Type_contiguous(C, MPI_DOUBLE, &row_t);
  MPI_Type_commit(&row_t);
  MPI_Bcast(w, 1, row_t, 0, MPI_COMM_WORLD);
  double a[R + 2][C], b[R + 2][C];
  for (int i = 0; i < R; i++)
    for (int j = 0; j < C; j++)
      a[i + 1][j] = u[i * C + j] * (1 + 0.5 * w[j]);
  int up = (mpi_rank + mpi_size - 1) % mpi_size;
  int down = (mpi_rank + 1) % mpi_size;
  for (int s = 0; s < STEPS; s++) {
    /* downwards: my last row to the next rank's top ghost row */
    MPI_Sendrecv(a[R], 1, row_t, down, 3, a[0], 1, row_t, up, 3,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    /* upwards: my first row to the previous rank's bottom ghost row */
    MPI_Request req[2];
    MPI_Irecv(a[R + 1], 1, pair_t, down, 4, MPI_COMM_WORLD, &req[0]);
    MPI_Isend(a[1], 1, pair_t, up, 4, MPI_COMM_WORLD, &req[1]);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    for (int i = 1; i <= R; i++)
      for (int j = 0; j < C; j++)
        b[i][j] = a[i][j] +
                  kappa * (a[i - 1][j] + a[i + 1][j] + a[i][(j + 1) % C] +
                           a[i][(j + C - 1) % C] - 4 * a[i][j]) +
                  0.05 * sin(a[i][j]) * a[i - 1][j];
    for (int i = 1; i <= R; i++)
      for (int j = 0; j < C; j++)
        a[i][j] = b[i][j];
  }
  MPI_Type_free(&row_t);
  double local = 0, global = 0;
  for (int i = 1; i <= R; i++)
    for (int j = 0; j < C; j++)
      local += (1.0 + 0.1 * ((mpi_rank * R + i) * C + j)) * a[i][j] * a[i][j];
  MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return global;
}

/* The global input: every rank's R x C cells, then the C weights. */
static double loss_global(const double *x) {
  double w[C];
  memcpy(w, x + R * C * mpi_size, sizeof w);
  return heat2d(x + mpi_rank * R * C, w, 0.2);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &mpi_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &mpi_size);
  make_types();
  int cells = R * C * mpi_size, n = cells + C;
  double *x = malloc(n * sizeof(double)), *g = malloc(n * sizeof(double));
  double *dir = malloc(n * sizeof(double));
  global_input(x, n, 2);
  global_input(dir, n, 6);
  const double *u = x + mpi_rank * R * C;
  double w[C], du[R * C] = {0}, dw[C] = {0};
  memcpy(w, x + cells, sizeof w);
  __enzyme_autodiff((void *)heat2d, enzyme_dup, u, du, enzyme_dup, w, dw,
                    enzyme_const, 0.2);
  gather_slices(du, g, R * C);
  sum_gradients(dw, g + cells, C); /* only rank 0's weights are read */
  check_at("contiguous rows reverse, np=%d", mpi_size);
  for (int k = 0; k < n; k++)
    if (fd_checked(k, n))
      check_close_i("d/dx vs FD", k, g[k],
                    mpi_size * fd_global(loss_global, x, k), TOL_FD);
  /* split: the derived types' transfers recorded by the augmented call */
  double ds[R * C] = {0}, dws[C] = {0};
  memcpy(w, x + cells, sizeof w);
  void *tape = __enzyme_augmentfwd((void *)heat2d, enzyme_dup, u, ds,
                                   enzyme_dup, w, dws, enzyme_const, 0.2);
  __enzyme_reverse((void *)heat2d, enzyme_dup, u, ds, enzyme_dup, w, dws,
                   enzyme_const, 0.2, 1.0, tape);
  check_at("contiguous rows split, np=%d", mpi_size);
  for (int k = 0; k < R * C; k++)
    check_close_i("split vs combined (cells)", k, ds[k], du[k], TOL_AD);
  for (int k = 0; k < C; k++)
    check_close_i("split vs combined (weights)", k, dws[k], dw[k], TOL_AD);
  /* forward: the tangent in direction dir is dir . gradient */
  double want = dot(dir, g, n) / mpi_size, dwt[C];
  memcpy(w, x + cells, sizeof w);
  memcpy(dwt, dir + cells, sizeof dwt);
  double t = __enzyme_fwddiff((void *)heat2d, enzyme_dup, u,
                              dir + mpi_rank * R * C, enzyme_dup, w, dwt,
                              enzyme_const, 0.2);
  check_at("contiguous rows forward, np=%d", mpi_size);
  check_close("tangent vs dir . gradient", t, want, TOL_AD * 100);
  int rc = mpi_report();
  MPI_Type_free(&pair_t);
  MPI_Type_free(&half_t);
  free(x), free(g), free(dir);
  MPI_Finalize();
  return rc;
}
