/* MPI_MAX in MPI_Reduce on differentiable data: refused, naming the call
 * (enz-rs differentiates MPI_MAX and MPI_MIN in MPI_Allreduce only).
 * enz-expect: MPI_Reduce: cannot differentiate this MPI call: the reduction is MPI_MAX or MPI_MIN */
#include <mpi.h>
double __enzyme_autodiff(void *, ...);
double f(double *x) {
  double g = 0;
  MPI_Reduce(x, &g, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  return g * g;
}
double df(double *x, double *dx) { return __enzyme_autodiff((void *)f, x, dx); }
