/* A non-blocking transfer of differentiable data completed with
 * MPI_Testany (which request completed is known only at run time):
 * refused, naming the call.
 * enz-expect: MPI_Testany: the non-blocking transfers of this function carry derivatives */
#include <mpi.h>
double __enzyme_autodiff(void *, ...);
double f(double *x) {
  double y = 0;
  int done = 0, which = 0;
  MPI_Request r;
  MPI_Irecv(&y, 1, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD, &r);
  MPI_Send(x, 1, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD);
  while (!done)
    MPI_Testany(1, &r, &which, &done, MPI_STATUS_IGNORE);
  return y * x[0];
}
double df(double *x, double *dx) { return __enzyme_autodiff((void *)f, x, dx); }
