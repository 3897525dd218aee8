/* An MPI call enz-rs has no rule for, passed differentiable memory.
 * enz-expect: MPI_Alltoall: enz-rs has no derivative for this MPI function */
#include <mpi.h>
double __enzyme_autodiff(void *, ...);
double f(double *x) {
  double y[2];
  MPI_Alltoall(x, 1, MPI_DOUBLE, y, 1, MPI_DOUBLE, MPI_COMM_WORLD);
  return y[0] * y[1];
}
double df(double *x, double *dx) { return __enzyme_autodiff((void *)f, x, dx); }
