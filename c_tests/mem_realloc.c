/* mem_realloc.c: a temporary buffer grown with realloc inside the
 * differentiated function: malloc 2 doubles, fill, realloc to 4, fill the
 * new slots, combine, free. The shadow buffer must follow the realloc (old
 * contents kept).
 *   t = {x0 x1, sin x0, x1 x2, exp x2}
 *   f = t0 t2 + t1 t3 + t0 t3 = a b^2 c + e^c (sin a + a b)
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include <stdlib.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

static double f(double *x) {
  double *t = (double *)malloc(2 * sizeof(double));
  t[0] = x[0] * x[1];
  t[1] = sin(x[0]);
  t = (double *)realloc(t, 4 * sizeof(double));
  t[2] = x[1] * x[2];
  t[3] = exp(x[2]);
  double r = t[0] * t[2] + t[1] * t[3] + t[0] * t[3];
  free(t);
  return r;
}

static void grad(const double *x, double *g) {
  double a = x[0], b = x[1], c = x[2], e = exp(c);
  g[0] = b * b * c + e * (cos(a) + b);
  g[1] = 2.0 * a * b * c + a * e;
  g[2] = a * b * b + e * (sin(a) + a * b);
}

#ifdef NO_AD
static void emul(double *x, double *dx) {
  double g[3];
  grad(x, g);
  for (int k = 0; k < 3; k++)
    dx[k] += g[k];
}
#endif

int main(void) {
  const double pts[2][3] = {{0.9, -1.4, 0.3}, {-0.6, 0.8, -1.1}};
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
