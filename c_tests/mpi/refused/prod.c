/* MPI_PROD on differentiable data: refused, naming the call.
 * enz-expect: MPI_Allreduce: cannot differentiate this MPI call: the reduction is MPI_PROD */
#include <mpi.h>
double __enzyme_autodiff(void *, ...);
double f(double *x) {
  double g;
  MPI_Allreduce(x, &g, 1, MPI_DOUBLE, MPI_PROD, MPI_COMM_WORLD);
  return g * g;
}
double df(double *x, double *dx) { return __enzyme_autodiff((void *)f, x, dx); }
