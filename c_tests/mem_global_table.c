/* mem_global_table.c: inactive constant global tables read by active code:
 * a `static const double coef[4]` multiplying active values (at constant
 * and at variable indices, so the loads survive -O2) and a `static const
 * int perm[4]` used as indices. The tables get no shadow and no adjoint.
 *   f = c0 x0^2 + c1 x1 + c_i x_i x2 + c3 sin x3 + c_{perm i} x_{perm i}
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

static const double coef[4] = {1.5, -0.5, 2.0, 0.25};
static const int perm[4] = {2, 0, 3, 1};

static double f(double *x, int i) {
  return coef[0] * x[0] * x[0] + coef[1] * x[1] + coef[i] * x[i] * x[2] +
         coef[3] * sin(x[3]) + coef[perm[i]] * x[perm[i]];
}
static int g_i;
static double f_v(double *x) { return f(x, g_i); }
static void grad(const double *x, int i, double *g) {
  const double c[4] = {1.5, -0.5, 2.0, 0.25};
  const int pm[4] = {2, 0, 3, 1};
  g[0] = 2.0 * c[0] * x[0];
  g[1] = c[1];
  g[2] = c[i] * x[i];
  g[3] = c[3] * cos(x[3]);
  g[i] += c[i] * x[2];
  g[pm[i]] += c[pm[i]];
}

#ifdef NO_AD
static void emul(double *x, double *dx, int i) {
  double g[4];
  grad(x, i, g);
  for (int k = 0; k < 4; k++)
    dx[k] += g[k];
}
#endif

int main(void) {
  const double pts[2][4] = {{0.9, -1.4, 1.3, 0.4}, {-0.6, 0.8, -2.1, 1.7}};
  for (int p = 0; p < 2; p++)
    for (int i = 0; i < 4; i++) {
      double x[4], dx[4] = {0}, g[4];
      for (int k = 0; k < 4; k++)
        x[k] = pts[p][k];
      g_i = i;
      grad(x, i, g);
      check_at("f i=%d point %d", i, p);
#ifdef NO_AD
      emul(x, dx, i);
#else
      __enzyme_autodiff_v((void *)f, enzyme_dup, x, dx, i);
#endif
      for (int k = 0; k < 4; k++) {
        check_close_i("dx vs analytic", k, dx[k], g[k], TOL_AD);
        check_close_i("dx vs FD", k, dx[k], fdp(f_v, pts[p], 4, k), TOL_FD);
      }
    }
  for (int k = 0; k < 4; k++)
    check_close_i("coef unchanged", k, coef[k], (double[]){1.5, -0.5, 2.0, 0.25}[k], 0.0);
  return check_report();
}
