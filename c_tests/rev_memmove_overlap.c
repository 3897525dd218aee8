/* rev_memmove_overlap.c: memmove within one array, in the three ways its
 * ends can meet: the source above the destination (a shift left), below
 * it (a shift right), and onto itself (offsets equal only at run time).
 * The reverse of a copy adds the destination's adjoint to the source's
 * and zeroes the destination's, element by element; with the two
 * overlapping, the order matters. Element by element upwards, a copy onto
 * itself doubled each adjoint and then zeroed it, and a shift left read
 * adjoints already added to (enz-fuzz diff seed 305008: preprocessing
 * made a copy onto itself out of a hoisted integer load and its store;
 * 16 of these 20 checks failed at each of -O0..-O3).
 *   x' = shift left x; x'' = shift right x'; x''[k..k+2] copied onto itself
 *   x'' = (x1, x1, x2, x3, x4); f = sum_j (j + 1) x''_j^2
 * Reverse mode with x's shadow seeded by W (its adjoint after the call),
 * checked against the analytic gradient and central finite differences.
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include <string.h>
#include "enzyme.h"
#include "check.h"

#define N 5

static double f(double *x, int n, int k, int m) {
  memmove(x, x + 1, (size_t)(n - 1) * sizeof(double));
  memmove(x + 1, x, (size_t)(n - 1) * sizeof(double));
  memmove(x + k, x + m, 3 * sizeof(double));
  double s = 0;
  for (int j = 0; j < n; j++)
    s += (j + 1) * x[j] * x[j];
  return s;
}

static const double W[N] = {0.5, -1.0, 2.0, 0.25, -0.75};

/* f plus the weighted x after the call */
static double g_d(const double *z) {
  double x[N];
  for (int j = 0; j < N; j++) x[j] = z[j];
  double s = f(x, N, 1, 1);
  for (int j = 0; j < N; j++) s += W[j] * x[j];
  return s;
}

int main(void) {
  const double pts[2][N] = {{0.3, -0.7, 0.9, 0.4, 1.2}, {-1.1, 0.4, 1.3, -0.6, 0.8}};
  for (int p = 0; p < 2; p++) {
    const double *z = pts[p];
    const double g[N] = {0.0,
                         6 * z[1] + W[0] + W[1],
                         6 * z[2] + W[2],
                         8 * z[3] + W[3],
                         10 * z[4] + W[4]};
    double x[N], dx[N];
    for (int j = 0; j < N; j++) x[j] = z[j], dx[j] = W[j];
#ifdef NO_AD
    for (int j = 0; j < N; j++) dx[j] = g[j];
#else
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, N, enzyme_const, 1,
                      enzyme_const, 1);
#endif
    check_at("point %d", p);
    for (int j = 0; j < N; j++) {
      check_close("vs analytic", dx[j], g[j], TOL_AD);
      check_close("vs FD", dx[j], fdn(g_d, z, N, j), TOL_FD);
    }
  }
  return check_report();
}
