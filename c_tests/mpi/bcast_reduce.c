/* MPI_Bcast and MPI_Reduce (sum): rank 0 broadcasts its M inputs, every
 * rank computes from them with its own weights, the results are
 * sum-reduced to the last rank, which computes the loss and broadcasts
 * it. Non-root inputs are overwritten by the broadcast: their gradient is
 * zero. Reverse vs FD, forward (also two tangents at once, enzyme_width
 * 2) vs reverse. */
#include "mpi_check.h"
#include <stdlib.h>

#define M 3

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);
typedef struct {
  double lane[2];
} tangents2;
extern int enzyme_width;
tangents2 __enzyme_fwddiff_w2(void *, ...);

__attribute__((noinline)) double bcast_reduce(const double *x) {
  double a[M], y[M], s[M] = {0}, t = 0;
  int last = mpi_size - 1;
  for (int i = 0; i < M; i++)
    a[i] = x[i];
  MPI_Bcast(a, M, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  for (int i = 0; i < M; i++)
    y[i] = (mpi_rank + 1) * sin(a[i]) + a[i] * a[(i + 1) % M];
  MPI_Reduce(y, s, M, MPI_DOUBLE, MPI_SUM, last, MPI_COMM_WORLD);
  if (mpi_rank == last)
    for (int i = 0; i < M; i++)
      t += s[i] * s[i] * (1 + 0.5 * i);
  MPI_Bcast(&t, 1, MPI_DOUBLE, last, MPI_COMM_WORLD);
  return t;
}

static double loss_global(const double *x) {
  return bcast_reduce(x + mpi_rank * M);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &mpi_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &mpi_size);
  int n = M * mpi_size;
  double *x = malloc(n * sizeof(double)), *g = malloc(n * sizeof(double));
  double *dir = malloc(n * sizeof(double));
  global_input(x, n, 2);
  global_input(dir, n, 4);
  double dx[M] = {0};
  __enzyme_autodiff((void *)bcast_reduce, enzyme_dup, x + mpi_rank * M, dx);
  gather_slices(dx, g, M);
  check_at("bcast+reduce reverse, np=%d", mpi_size);
  for (int k = 0; k < n; k++)
    check_close_i("d/dx vs FD", k, g[k],
                  mpi_size * fd_global(loss_global, x, k), TOL_FD);
  double t = __enzyme_fwddiff((void *)bcast_reduce, enzyme_dup,
                              x + mpi_rank * M, dir + mpi_rank * M);
  check_at("bcast+reduce forward, np=%d", mpi_size);
  check_close("tangent vs dir . gradient", t, dot(dir, g, n) / mpi_size,
              TOL_AD * 100);
  double *dir2 = malloc(n * sizeof(double));
  global_input(dir2, n, 9);
  tangents2 t2 = __enzyme_fwddiff_w2((void *)bcast_reduce, enzyme_width, 2,
                                     enzyme_dup, x + mpi_rank * M,
                                     dir + mpi_rank * M, dir2 + mpi_rank * M);
  check_at("bcast+reduce vector forward, np=%d", mpi_size);
  check_close("lane 0 vs dir . gradient", t2.lane[0],
              dot(dir, g, n) / mpi_size, TOL_AD * 100);
  check_close("lane 1 vs dir2 . gradient", t2.lane[1],
              dot(dir2, g, n) / mpi_size, TOL_AD * 100);
  free(dir2);
  int rc = mpi_report();
  free(x), free(g), free(dir);
  MPI_Finalize();
  return rc;
}
