/* A strided derived datatype (MPI_Type_vector) with differentiable data:
 * enz-rs differentiates contiguous derived types only.
 * enz-expect: MPI_Send: cannot differentiate this MPI call: the datatype is neither */
#include <mpi.h>
double __enzyme_autodiff(void *, ...);
double f(double *x) {
  MPI_Datatype column;
  MPI_Type_vector(3, 1, 4, MPI_DOUBLE, &column);
  MPI_Type_commit(&column);
  MPI_Send(x, 1, column, 1, 0, MPI_COMM_WORLD);
  MPI_Type_free(&column);
  return x[0] * x[0];
}
double df(double *x, double *dx) { return __enzyme_autodiff((void *)f, x, dx); }
