/* mem_malloc.c: a malloc'ed temporary inside the differentiated function,
 * filled from active inputs, read at a variable index (an int argument),
 * then freed. The tool needs a shadow allocation for it.
 *   t = {x0 x1, sin x2, x0 + x2};  f = t[i] t[(i+1)%3] + t[2] x1
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include <stdlib.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

static double f(double *x, int i) {
  double *t = (double *)malloc(3 * sizeof(double));
  t[0] = x[0] * x[1];
  t[1] = sin(x[2]);
  t[2] = x[0] + x[2];
  double r = t[i] * t[(i + 1) % 3] + t[2] * x[1];
  free(t);
  return r;
}
static int g_i;
static double f_v(double *x) { return f(x, g_i); }

static void grad(const double *x, int i, double *g) {
  double t[3] = {x[0] * x[1], sin(x[2]), x[0] + x[2]};
  double J[3][3] = {{x[1], x[0], 0.0}, {0.0, 0.0, cos(x[2])}, {1.0, 0.0, 1.0}};
  int j = (i + 1) % 3;
  for (int k = 0; k < 3; k++)
    g[k] = t[j] * J[i][k] + t[i] * J[j][k] + x[1] * J[2][k];
  g[1] += t[2];
}

#ifdef NO_AD
static void emul(double *x, double *dx, int i) {
  double g[3];
  grad(x, i, g);
  for (int k = 0; k < 3; k++)
    dx[k] += g[k];
}
#endif

int main(void) {
  const double pts[2][3] = {{0.9, -1.4, 1.3}, {-0.6, 0.8, -2.1}};
  for (int p = 0; p < 2; p++)
    for (int i = 0; i < 3; i++) {
      double x[3], dx[3] = {0}, g[3];
      for (int k = 0; k < 3; k++)
        x[k] = pts[p][k];
      g_i = i;
      grad(x, i, g);
      check_at("f i=%d point %d", i, p);
#ifdef NO_AD
      emul(x, dx, i);
#else
      __enzyme_autodiff_v((void *)f, enzyme_dup, x, dx, i);
#endif
      for (int k = 0; k < 3; k++) {
        check_close_i("dx vs analytic", k, dx[k], g[k], TOL_AD);
        check_close_i("dx vs FD", k, dx[k], fdp(f_v, pts[p], 3, k), TOL_FD);
      }
    }
  return check_report();
}
