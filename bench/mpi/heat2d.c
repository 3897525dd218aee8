/* 2-D heat equation, rows split over the ranks of a periodic ring, halo
 * rows exchanged every step (MPI_Sendrecv one way, MPI_Irecv/MPI_Isend/
 * MPI_Waitall the other), loss MPI_Allreduce'd. Prints "primal_s
 * gradient_s" (rank 0, best of REPS). Used by scripts/bench-mpi.sh. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NX 256
#define ROWS 256 /* global rows, split over the ranks */
#define STEPS 20
#define REPS 5

extern int enzyme_dup, enzyme_const;
double __enzyme_autodiff(void *, ...);
static int rank, size;

__attribute__((noinline)) double heat2d(const double *u0, int rows) {
  int up = (rank + size - 1) % size, down = (rank + 1) % size;
  double *a = malloc((rows + 2) * NX * sizeof(double));
  double *b = malloc((rows + 2) * NX * sizeof(double));
  memcpy(a + NX, u0, rows * NX * sizeof(double));
  for (int s = 0; s < STEPS; s++) {
    MPI_Request req[2];
    MPI_Sendrecv(a + rows * NX, NX, MPI_DOUBLE, down, 1, a, NX, MPI_DOUBLE,
                 up, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Irecv(a + (rows + 1) * NX, NX, MPI_DOUBLE, down, 2, MPI_COMM_WORLD,
              &req[0]);
    MPI_Isend(a + NX, NX, MPI_DOUBLE, up, 2, MPI_COMM_WORLD, &req[1]);
    MPI_Waitall(2, req, MPI_STATUSES_IGNORE);
    for (int i = 1; i <= rows; i++)
      for (int j = 0; j < NX; j++) {
        int l = (j + NX - 1) % NX, r = (j + 1) % NX;
        double c = a[i * NX + j];
        b[i * NX + j] = c + 0.2 * (a[(i - 1) * NX + j] + a[(i + 1) * NX + j] +
                                   a[i * NX + l] + a[i * NX + r] - 4 * c);
      }
    double *t = a;
    a = b;
    b = t;
  }
  double local = 0, global = 0;
  for (int i = 1; i <= rows; i++)
    for (int j = 0; j < NX; j++)
      local += a[i * NX + j] * a[i * NX + j];
  free(a);
  free(b);
  MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return global;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int rows = ROWS / size;
  double *u = malloc(rows * NX * sizeof(double));
  double *du = malloc(rows * NX * sizeof(double));
  for (int k = 0; k < rows * NX; k++)
    u[k] = 0.001 * ((k * 37 + rank * 11) % 101);
  double best_p = 1e30, best_g = 1e30, sink = 0;
  for (int r = 0; r < REPS; r++) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    sink += heat2d(u, rows);
    MPI_Barrier(MPI_COMM_WORLD);
    double t1 = MPI_Wtime();
    memset(du, 0, rows * NX * sizeof(double));
    __enzyme_autodiff((void *)heat2d, enzyme_dup, u, du, enzyme_const, rows);
    MPI_Barrier(MPI_COMM_WORLD);
    double t2 = MPI_Wtime();
    if (t1 - t0 < best_p)
      best_p = t1 - t0;
    if (t2 - t1 < best_g)
      best_g = t2 - t1;
  }
  if (rank == 0)
    printf("%.6f %.6f %g\n", best_p, best_g, sink + du[0]);
  free(u);
  free(du);
  MPI_Finalize();
  return 0;
}
