/* A datatype enz-rs cannot read (long double) with differentiable data.
 * enz-expect: MPI_Bcast: cannot differentiate this MPI call: the datatype */
#include <mpi.h>
double __enzyme_autodiff(void *, ...);
double f(double *x) {
  MPI_Bcast(x, 1, MPI_LONG_DOUBLE, 0, MPI_COMM_WORLD);
  return x[0] * x[0];
}
double df(double *x, double *dx) { return __enzyme_autodiff((void *)f, x, dx); }
