/*
 * mpi_check.h -- what the MPI fixtures share: a global input vector that
 * every rank holds whole (the same values on every rank), of which each
 * rank's primal uses its own slice; central finite differences of the
 * whole distributed primal (every rank perturbs the same global index in
 * lockstep; the primal returns a loss all ranks agree on); and the rank's
 * report line, "rank R: N checks, M failed".
 *
 * Every rank's __enzyme_autodiff seeds the adjoint of the loss it returns
 * with 1, so the gradient is that of the sum of every rank's returned
 * loss: P times the gradient of the loss (P ranks), which is what the
 * fixtures compare with (fd_global times mpi_size); a tangent is that of
 * one rank's loss.
 */
#ifndef ENZ_MPI_CHECK_H
#define ENZ_MPI_CHECK_H

#include "../check.h"
#include <mpi.h>

extern int enzyme_dup, enzyme_const, enzyme_dupnoneed;

static int mpi_rank, mpi_size;

/* A deterministic global input of n values. */
static void global_input(double *x, int n, int seed) {
  for (int i = 0; i < n; i++)
    x[i] = 0.3 + 0.1 * ((i * 7 + seed * 3) % 11) - 0.02 * i;
}

/* d loss / d x[g] by central differences, every rank in lockstep. */
static double fd_global_h(double (*loss)(const double *), double *x, int g,
                          double rel) {
  double h = rel * (1 + fabs(x[g]));
  double old = x[g];
  x[g] = old + h;
  double p = loss(x);
  x[g] = old - h;
  double m = loss(x);
  x[g] = old;
  return (p - m) / (2 * h);
}

static double fd_global(double (*loss)(const double *), double *x, int g) {
  return fd_global_h(loss, x, g, 1e-6);
}

/* Whether FD checks global index k of n: all of them up to 12, every
 * third beyond (each FD evaluation is two runs of the whole distributed
 * primal; the forward check covers the whole gradient in a dot product). */
static int fd_checked(int k, int n) { return n <= 12 || k % 3 == 0; }

/* The whole gradient: every rank's gradient of the whole input, summed. */
static void sum_gradients(const double *mine, double *all, int n) {
  MPI_Allreduce((void *)mine, all, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
}

/* dir . g */
static double dot(const double *a, const double *b, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += a[i] * b[i];
  return s;
}

/* The whole gradient from each rank's slice of n: gathered on all ranks. */
static void gather_slices(const double *mine, double *all, int n) {
  MPI_Allgather((void *)mine, n, MPI_DOUBLE, all, n, MPI_DOUBLE,
                MPI_COMM_WORLD);
}

static int mpi_report(void) {
  fflush(stdout);
  MPI_Barrier(MPI_COMM_WORLD);
  printf("rank %d: %d checks, %d failed\n", mpi_rank, check_total_,
         check_failed_);
  fflush(stdout);
  return (check_failed_ || check_total_ == 0) ? 1 : 0;
}

#endif
