/* MPI_IN_PLACE with differentiable data: refused, naming the call.
 * enz-expect: MPI_Allreduce: cannot differentiate this MPI call: a buffer is a constant address such as MPI_IN_PLACE */
#include <mpi.h>
double __enzyme_autodiff(void *, ...);
double f(double *x) {
  MPI_Allreduce(MPI_IN_PLACE, x, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return x[0] * x[1];
}
double df(double *x, double *dx) { return __enzyme_autodiff((void *)f, x, dx); }
