/* MPI_Send/MPI_Recv pairs: each even rank sends its K inputs to the next
 * rank, which multiplies them into its own and sends the products back as
 * MPI_FLOAT; a rank without a partner works alone. The loss is the
 * MPI_Allreduce (sum) of every rank's part. Reverse vs FD (a larger step:
 * the floats round), forward vs reverse. */
#include "mpi_check.h"
#include <stdlib.h>

#define K 3

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

__attribute__((noinline)) double send_recv(const double *x) {
  double local = 0, global = 0, buf[K];
  float back[K];
  int partner = (mpi_rank % 2 == 0) ? mpi_rank + 1 : mpi_rank - 1;
  if (partner >= mpi_size) {
    for (int i = 0; i < K; i++)
      local += x[i] * x[i] * x[i];
  } else if (mpi_rank % 2 == 0) {
    MPI_Send((void *)x, K, MPI_DOUBLE, partner, 3, MPI_COMM_WORLD);
    MPI_Recv(back, K, MPI_FLOAT, partner, 4, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    for (int i = 0; i < K; i++)
      local += (double)back[i] * x[i];
  } else {
    MPI_Recv(buf, K, MPI_DOUBLE, partner, 3, MPI_COMM_WORLD,
             MPI_STATUS_IGNORE);
    for (int i = 0; i < K; i++)
      back[i] = (float)(buf[i] * x[i] + sin(buf[i]));
    MPI_Send(back, K, MPI_FLOAT, partner, 4, MPI_COMM_WORLD);
    for (int i = 0; i < K; i++)
      local += 0.5 * buf[i] * x[(i + 1) % K];
  }
  MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return global;
}

static double loss_global(const double *x) {
  return send_recv(x + mpi_rank * K);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &mpi_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &mpi_size);
  int n = K * mpi_size;
  double *x = malloc(n * sizeof(double)), *g = malloc(n * sizeof(double));
  double *dir = malloc(n * sizeof(double));
  global_input(x, n, 3);
  global_input(dir, n, 6);
  double dx[K] = {0};
  __enzyme_autodiff((void *)send_recv, enzyme_dup, x + mpi_rank * K, dx);
  gather_slices(dx, g, K);
  check_at("send/recv reverse, np=%d", mpi_size);
  for (int k = 0; k < n; k++)
    check_close_i("d/dx vs FD", k, g[k],
                  mpi_size * fd_global_h(loss_global, x, k, 1e-3), 1e-3);
  double t = __enzyme_fwddiff((void *)send_recv, enzyme_dup, x + mpi_rank * K,
                              dir + mpi_rank * K);
  check_at("send/recv forward, np=%d", mpi_size);
  check_close("tangent vs dir . gradient", t, dot(dir, g, n) / mpi_size,
              1e-6);
  int rc = mpi_report();
  free(x), free(g), free(dir);
  MPI_Finalize();
  return rc;
}
