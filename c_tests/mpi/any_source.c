/* Wildcard receives with a status: rank 0 receives one value from every
 * other rank with MPI_ANY_SOURCE and MPI_ANY_TAG, in whatever order they
 * arrive, placing each by the status's MPI_SOURCE; then (after a
 * barrier, mirrored by the reverse sweep) a ring
 * MPI_Sendrecv whose receive names MPI_ANY_SOURCE. The reverse sweep sends
 * each adjoint back to the source (and with the tag) the status named.
 * Reverse vs FD, forward vs reverse. */
#include "mpi_check.h"
#include <stdlib.h>

#define K 2

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) double gather_any(const double *x) {
  double mine = sin(x[0]) * x[1] + 0.1 * mpi_rank * x[0];
  double local = 0, global = 0, left;
  if (mpi_rank == 0) {
    double got[64] = {0};
    got[0] = mine;
    for (int r = 1; r < mpi_size; r++) {
      double v;
      MPI_Status st;
      MPI_Recv(&v, 1, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
               &st);
      got[st.MPI_SOURCE] = v * (1 + 0.01 * st.MPI_TAG);
    }
    for (int r = 0; r < mpi_size; r++)
      local += (r + 1) * got[r] * got[r];
  } else {
    MPI_Send(&mine, 1, MPI_DOUBLE, 0, 10 + mpi_rank, MPI_COMM_WORLD);
  }
  /* rank 0's wildcard receives must not take the ring's messages */
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Status st;
  MPI_Sendrecv(&mine, 1, MPI_DOUBLE, (mpi_rank + 1) % mpi_size, 3, &left, 1,
               MPI_DOUBLE, MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, &st);
  local += left * x[1];
  MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return global;
}

static double loss_global(const double *x) {
  return gather_any(x + mpi_rank * K);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &mpi_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &mpi_size);
  int n = K * mpi_size;
  double *x = malloc(n * sizeof(double)), *g = malloc(n * sizeof(double));
  double *dir = malloc(n * sizeof(double));
  global_input(x, n, 5);
  global_input(dir, n, 1);
  double dx[K] = {0};
  __enzyme_autodiff((void *)gather_any, enzyme_dup, x + mpi_rank * K, dx);
  gather_slices(dx, g, K);
  check_at("any source reverse, np=%d", mpi_size);
  for (int k = 0; k < n; k++)
    check_close_i("d/dx vs FD", k, g[k],
                  mpi_size * fd_global(loss_global, x, k), TOL_FD);
  double t = __enzyme_fwddiff((void *)gather_any, enzyme_dup, x + mpi_rank * K,
                              dir + mpi_rank * K);
  check_at("any source forward, np=%d", mpi_size);
  check_close("tangent vs dir . gradient", t, dot(dir, g, n) / mpi_size,
              TOL_AD * 100);
  int rc = mpi_report();
  free(x), free(g), free(dir);
  MPI_Finalize();
  return rc;
}
