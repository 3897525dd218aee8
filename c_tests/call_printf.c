/* call_printf.c: inactive printf calls in the middle of active code (they
 * print active values and a pointer's contents); the derivative ignores
 * them and the program still checks every number.
 *   t = x0 x1, u = sin t + x2, f = u t
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include <stdio.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

static double f(double *x) {
  double t = x[0] * x[1];
  printf("  [f] t = %.6f\n", t);
  double u = sin(t) + x[2];
  printf("  [f] u = %.6f, x = (%.3f, %.3f, %.3f)\n", u, x[0], x[1], x[2]);
  return u * t;
}
static void grad(const double *x, double *g) {
  double t = x[0] * x[1], u = sin(t) + x[2], dt = cos(t) * t + u;
  g[0] = x[1] * dt;
  g[1] = x[0] * dt;
  g[2] = t;
}

#ifdef NO_AD
static void emul(double *x, double *dx) {
  double g[3];
  grad(x, g);
  f(x); /* the primal (and its printing) runs too */
  for (int k = 0; k < 3; k++)
    dx[k] += g[k];
}
#endif

int main(void) {
  const double pts[2][3] = {{0.9, -1.4, 1.3}, {-0.6, 0.8, -2.1}};
  for (int p = 0; p < 2; p++) {
    double x[3], dx[3] = {0}, g[3];
    for (int k = 0; k < 3; k++)
      x[k] = pts[p][k];
    grad(x, g);
    check_at("f point %d", p);
#ifdef NO_AD
    emul(x, dx);
#else
    __enzyme_autodiff_v((void *)f, enzyme_dup, x, dx);
#endif
    for (int k = 0; k < 3; k++) {
      check_close_i("dx vs analytic", k, dx[k], g[k], TOL_AD);
      check_close_i("dx vs FD", k, dx[k], fdp(f, pts[p], 3, k), TOL_FD);
    }
  }
  return check_report();
}
