/* mem_poly_coef.c: a cubic evaluated by Horner's rule from a coefficient
 * array; the coefficients are active (dup, gradient in the shadow) and the
 * point x is an active scalar (`out`, its adjoint is the return value):
 *   p(c, x) = c0 + x (c1 + x (c2 + x c3))
 *   dp/dc_k = x^k, dp/dx = c1 + 2 c2 x + 3 c3 x^2
 * Also with the coefficients enzyme_const, and with x enzyme_const.
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

static double poly(double *c, double x) { return c[0] + x * (c[1] + x * (c[2] + x * c[3])); }
/* v = {c0, c1, c2, c3, x} */
static double poly_v(double *v) { return poly(v, v[4]); }

#ifdef NO_AD
static double emul(double *c, double *dc, double x, int xactive) {
  if (dc)
    for (int k = 0; k < 4; k++)
      dc[k] += pow(x, k);
  return xactive ? c[1] + 2.0 * c[2] * x + 3.0 * c[3] * x * x : 0.0;
}
#endif

int main(void) {
  const double pts[2][5] = {{0.5, -1.2, 0.7, 0.3, 1.4}, {-2.0, 0.4, 1.5, -0.6, -0.8}};
  for (int p = 0; p < 2; p++) {
    double c[4], dc[4] = {0}, x = pts[p][4];
    for (int k = 0; k < 4; k++)
      c[k] = pts[p][k];
    double wdx = c[1] + 2.0 * c[2] * x + 3.0 * c[3] * x * x;
    check_at("poly point %d", p);
#ifdef NO_AD
    double dx = emul(c, dc, x, 1);
#else
    double dx = __enzyme_autodiff((void *)poly, enzyme_dup, c, dc, x);
#endif
    check_close("dx vs analytic", dx, wdx, TOL_AD);
    check_close("dx vs FD", dx, fdp(poly_v, pts[p], 5, 4), TOL_FD);
    for (int k = 0; k < 4; k++) {
      check_close_i("dc vs analytic", k, dc[k], pow(x, k), TOL_AD);
      check_close_i("dc vs FD", k, dc[k], fdp(poly_v, pts[p], 5, k), TOL_FD);
    }

    check_at("poly c const point %d", p);
#ifdef NO_AD
    double dx2 = emul(c, 0, x, 1);
#else
    double dx2 = __enzyme_autodiff((void *)poly, enzyme_const, c, enzyme_out, x);
#endif
    check_close("dx vs analytic", dx2, wdx, TOL_AD);

    double dc3[4] = {0};
    check_at("poly x const point %d", p);
#ifdef NO_AD
    emul(c, dc3, x, 0);
#else
    __enzyme_autodiff_v((void *)poly, enzyme_dup, c, dc3, enzyme_const, x);
#endif
    for (int k = 0; k < 4; k++)
      check_close_i("dc vs analytic", k, dc3[k], pow(x, k), TOL_AD);
  }
  return check_report();
}
