/* mem_calloc.c: a calloc'ed temporary (zero-initialised) inside the
 * differentiated function: two of its four slots are written from active
 * inputs, the others stay 0.0; slots are read at variable indices i, j.
 *   t = {0, x0 x1, 0, exp(x1)};  f = (t[i] + t[1]) (t[j] + t[3]) + t[1] x2
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include <stdlib.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

static double f(double *x, int i, int j) {
  double *t = (double *)calloc(4, sizeof(double));
  t[1] = x[0] * x[1];
  t[3] = exp(x[1]);
  double r = (t[i] + t[1]) * (t[j] + t[3]) + t[1] * x[2];
  free(t);
  return r;
}
static int g_i, g_j;
static double f_v(double *x) { return f(x, g_i, g_j); }

static void grad(const double *x, int i, int j, double *g) {
  double t[4] = {0.0, x[0] * x[1], 0.0, exp(x[1])};
  double J[4][3] = {{0, 0, 0}, {x[1], x[0], 0}, {0, 0, 0}, {0, exp(x[1]), 0}};
  double u = t[i] + t[1], v = t[j] + t[3];
  for (int k = 0; k < 3; k++)
    g[k] = (J[i][k] + J[1][k]) * v + u * (J[j][k] + J[3][k]) + x[2] * J[1][k];
  g[2] += t[1];
}

#ifdef NO_AD
static void emul(double *x, double *dx, int i, int j) {
  double g[3];
  grad(x, i, j, g);
  for (int k = 0; k < 3; k++)
    dx[k] += g[k];
}
#endif

int main(void) {
  const double pts[2][3] = {{0.9, -0.4, 1.3}, {-0.6, 0.8, -2.1}};
  const int ij[3][2] = {{0, 2}, {3, 1}, {1, 0}};
  for (int p = 0; p < 2; p++)
    for (int c = 0; c < 3; c++) {
      int i = ij[c][0], j = ij[c][1];
      double x[3], dx[3] = {0}, g[3];
      for (int k = 0; k < 3; k++)
        x[k] = pts[p][k];
      g_i = i;
      g_j = j;
      grad(x, i, j, g);
      check_at("f i=%d j=%d point %d", i, j, p);
#ifdef NO_AD
      emul(x, dx, i, j);
#else
      __enzyme_autodiff_v((void *)f, enzyme_dup, x, dx, i, j);
#endif
      for (int k = 0; k < 3; k++) {
        check_close_i("dx vs analytic", k, dx[k], g[k], TOL_AD);
        check_close_i("dx vs FD", k, dx[k], fdp(f_v, pts[p], 3, k), TOL_FD);
      }
    }
  return check_report();
}
