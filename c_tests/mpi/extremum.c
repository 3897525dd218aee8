/* MPI_Allreduce with MPI_MAX and MPI_MIN (doubles, and floats for MAX),
 * and MPI_Reduce with MPI_MAX and MPI_MIN to the last rank: each rank's
 * values differ (no ties), the result's derivative is that of the rank
 * holding the extremum; the loss adds an MPI_SUM of the results. Reverse
 * vs FD, forward vs reverse. */
#include "mpi_check.h"
#include <stdlib.h>

#define K 4

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) double extremum(const double *x) {
  double y[K], mx[K], mn[K], rmx[K] = {0}, rmn[K] = {0};
  double local = 0, global = 0;
  int last = mpi_size - 1;
  float yf[K], mf[K];
  for (int i = 0; i < K; i++) {
    y[i] = sin(x[i] * (1 + 0.37 * mpi_rank)) + 0.1 * mpi_rank * x[i];
    yf[i] = (float)(x[i] * x[i] * (1 + 0.21 * ((mpi_rank + i) % 3)));
  }
  MPI_Allreduce(y, mx, K, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(y, mn, K, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(yf, mf, K, MPI_FLOAT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Reduce(y, rmx, K, MPI_DOUBLE, MPI_MAX, last, MPI_COMM_WORLD);
  MPI_Reduce(y, rmn, K, MPI_DOUBLE, MPI_MIN, last, MPI_COMM_WORLD);
  if (mpi_rank == last)
    for (int i = 0; i < K; i++)
      local += rmx[i] * rmn[i] * (1 + 0.3 * i);
  for (int i = 0; i < K; i++)
    local += (mx[i] * mx[i] - 2 * mn[i] + 0.5 * (double)mf[i] * (i + 1)) *
             (mpi_rank == 0);
  MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return global;
}

static double loss_global(const double *x) {
  return extremum(x + mpi_rank * K);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &mpi_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &mpi_size);
  int n = K * mpi_size;
  double *x = malloc(n * sizeof(double)), *g = malloc(n * sizeof(double));
  double *dir = malloc(n * sizeof(double));
  global_input(x, n, 4);
  global_input(dir, n, 3);
  double dx[K] = {0};
  __enzyme_autodiff((void *)extremum, enzyme_dup, x + mpi_rank * K, dx);
  gather_slices(dx, g, K);
  check_at("allreduce max/min reverse, np=%d", mpi_size);
  for (int k = 0; k < n; k++)
    if (fd_checked(k, n))
      check_close_i("d/dx vs FD", k, g[k],
                    mpi_size * fd_global_h(loss_global, x, k, 1e-4), 1e-3);
  double t = __enzyme_fwddiff((void *)extremum, enzyme_dup, x + mpi_rank * K,
                              dir + mpi_rank * K);
  check_at("allreduce max/min forward, np=%d", mpi_size);
  check_close("tangent vs dir . gradient", t, dot(dir, g, n) / mpi_size,
              1e-6);
  int rc = mpi_report();
  free(x), free(g), free(dir);
  MPI_Finalize();
  return rc;
}
