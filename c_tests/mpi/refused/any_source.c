/* A receive from MPI_ANY_SOURCE: the reverse sweep cannot tell where to
 * send the adjoint; refused, naming the call.
 * enz-expect: MPI_Recv: cannot differentiate this MPI call: the source is MPI_ANY_SOURCE and the status is ignored */
#include <mpi.h>
double __enzyme_fwddiff(void *, ...);
double __enzyme_autodiff(void *, ...);
double f(double *x) {
  double y;
  MPI_Recv(&y, 1, MPI_DOUBLE, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return y * x[0];
}
double df(double *x, double *dx) { return __enzyme_autodiff((void *)f, x, dx); }
