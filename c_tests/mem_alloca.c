/* mem_alloca.c: a local array (double tmp[3], an alloca) filled from active
 * inputs, updated at a variable index and read at variable indices (int
 * arguments), so it stays in memory at every -O level.
 *   tmp = {x0^2, x1 x2, cos x0}; tmp[i] *= x1; f = tmp[i] tmp[j] + tmp[i]
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

static double f(double *x, int i, int j) {
  double tmp[3];
  tmp[0] = x[0] * x[0];
  tmp[1] = x[1] * x[2];
  tmp[2] = cos(x[0]);
  tmp[i] *= x[1];
  return tmp[i] * tmp[j] + tmp[i];
}
static int g_i, g_j;
static double f_v(double *x) { return f(x, g_i, g_j); }

static void grad(const double *x, int i, int j, double *g) {
  double t[3] = {x[0] * x[0], x[1] * x[2], cos(x[0])};
  double J[3][3] = {{2.0 * x[0], 0, 0}, {0, x[2], x[1]}, {-sin(x[0]), 0, 0}};
  /* tmp[i] *= x1 */
  double ti = t[i];
  for (int k = 0; k < 3; k++)
    J[i][k] *= x[1];
  J[i][1] += ti;
  t[i] = ti * x[1];
  for (int k = 0; k < 3; k++)
    g[k] = J[i][k] * t[j] + t[i] * J[j][k] + J[i][k];
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
  const double pts[2][3] = {{0.9, -1.4, 1.3}, {-0.6, 0.8, -2.1}};
  const int ij[3][2] = {{0, 1}, {2, 2}, {1, 0}};
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
