/* MPI_Scatter, MPI_Gather and MPI_Allgather: rank 0 scatters K inputs to
 * each rank (the whole input, P*K values, is read on rank 0 only), every
 * rank transforms its block, rank 0 gathers the blocks and weighs them,
 * and every rank all-gathers the scattered blocks for a term of its own;
 * the loss is their MPI_Allreduce (sum). Each rank's gradient is of the
 * whole input (zero off rank 0); their sum vs FD, forward vs reverse. */
#include "mpi_check.h"
#include <stdlib.h>

#define K 2

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) double gather_scatter(const double *x) {
  int n = K * mpi_size;
  double *a = malloc(n * sizeof(double)), *all = malloc(n * sizeof(double));
  double *back = malloc(n * sizeof(double));
  double mine[K], m[K], local = 0, global = 0;
  for (int i = 0; i < n; i++)
    a[i] = x[i];
  MPI_Scatter(a, K, MPI_DOUBLE, mine, K, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  for (int i = 0; i < K; i++)
    m[i] = mine[i] * mine[i] + sin(mine[i]) * (mpi_rank + 1);
  MPI_Gather(m, K, MPI_DOUBLE, back, K, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  if (mpi_rank == 0)
    for (int i = 0; i < n; i++)
      local += back[i] * (1 + 0.25 * i);
  MPI_Allgather(mine, K, MPI_DOUBLE, all, K, MPI_DOUBLE, MPI_COMM_WORLD);
  for (int i = 0; i + 1 < n; i++)
    local += 0.1 * (mpi_rank + 1) * all[i] * all[i + 1];
  MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  free(a), free(all), free(back);
  return global;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &mpi_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &mpi_size);
  int n = K * mpi_size;
  double *x = malloc(n * sizeof(double)), *g = malloc(n * sizeof(double));
  double *dx = calloc(n, sizeof(double)), *dir = malloc(n * sizeof(double));
  global_input(x, n, 7);
  global_input(dir, n, 8);
  __enzyme_autodiff((void *)gather_scatter, enzyme_dup, x, dx);
  sum_gradients(dx, g, n);
  check_at("gather/scatter reverse, np=%d", mpi_size);
  for (int k = 0; k < n; k++)
    check_close_i("d/dx vs FD", k, g[k],
                  mpi_size * fd_global(gather_scatter, x, k), TOL_FD);
  if (mpi_rank != 0)
    for (int k = 0; k < n; k++)
      check_close_i("d/dx off the root", k, dx[k], 0, TOL_AD);
  double t = __enzyme_fwddiff((void *)gather_scatter, enzyme_dup, x, dir);
  check_at("gather/scatter forward, np=%d", mpi_size);
  check_close("tangent vs dir . gradient", t, dot(dir, g, n) / mpi_size,
              TOL_AD * 100);
  int rc = mpi_report();
  free(x), free(g), free(dx), free(dir);
  MPI_Finalize();
  return rc;
}
