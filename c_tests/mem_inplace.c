/* mem_inplace.c: a void function updating a dup array in place, each new
 * value depending on values updated before it. The caller seeds the shadow
 * with the output adjoints w (1.0 per output, then other weights); after the
 * call the shadow holds w^T J, the gradient w.r.t. the values before the
 * call, and the array holds the updated values.
 *   y0 = a^2, y1 = sin(b) y0, y2 = c y1 + y0   (x = {a, b, c})
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

static void f(double *x) {
  x[0] = x[0] * x[0];
  x[1] = sin(x[1]) * x[0];
  x[2] = x[2] * x[1] + x[0];
}
static void vjp(const double *x, const double *w, double *g) {
  double a = x[0], b = x[1], c = x[2];
  g[0] = 2.0 * a * (w[0] + sin(b) * w[1] + (c * sin(b) + 1.0) * w[2]);
  g[1] = a * a * cos(b) * (w[1] + c * w[2]);
  g[2] = a * a * sin(b) * w[2];
}

#ifdef NO_AD
static void emul(double *x, double *dx) {
  double g[3];
  vjp(x, dx, g);
  f(x);
  for (int k = 0; k < 3; k++)
    dx[k] = g[k];
}
#endif

int main(void) {
  const double pts[2][3] = {{1.1, 0.6, -0.7}, {-0.5, 2.3, 1.8}};
  const double seeds[2][3] = {{1.0, 1.0, 1.0}, {0.5, -2.0, 1.5}};
  for (int p = 0; p < 2; p++)
    for (int s = 0; s < 2; s++) {
      double x[3], dx[3], g[3];
      for (int k = 0; k < 3; k++) {
        x[k] = pts[p][k];
        dx[k] = seeds[s][k];
      }
      vjp(pts[p], seeds[s], g);
      check_at("f point %d seed %d", p, s);
#ifdef NO_AD
      emul(x, dx);
#else
      __enzyme_autodiff_v((void *)f, enzyme_dup, x, dx);
#endif
      for (int k = 0; k < 3; k++) {
        check_close_i("dx vs analytic", k, dx[k], g[k], TOL_AD);
        check_close_i("dx vs FD", k, dx[k], fdinplace(f, pts[p], 3, k, seeds[s]), TOL_FD);
      }
      double a = pts[p][0], b = pts[p][1], c = pts[p][2];
      check_close("primal x[0]", x[0], a * a, TOL_AD);
      check_close("primal x[1]", x[1], sin(b) * a * a, TOL_AD);
      check_close("primal x[2]", x[2], c * sin(b) * a * a + a * a, TOL_AD);
    }
  return check_report();
}
