/* rev_inverse_trig.c: atan, asin, acos, atan2 (both arguments, several
 * quadrants), double. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

typedef struct { double dy, dx; } grad2;
grad2 __enzyme_autodiff_grad2(void *, ...);

static double f_atan(double x) { return atan(2.0 * x); }
static double d_atan(double x) { return 2.0 / (1.0 + 4.0 * x * x); }
static double f_asin(double x) { return asin(0.5 * x); }
static double d_asin(double x) { return 0.5 / sqrt(1.0 - 0.25 * x * x); }
static double f_acos(double x) { return acos(0.4 * x); }
static double d_acos(double x) { return -0.4 / sqrt(1.0 - 0.16 * x * x); }

static double g(double y, double x) { return atan2(y, x); }
static double g_v(const double *v) { return g(v[0], v[1]); }
static double k(double y, double x) { return atan2(y * y + 0.5, x) * y; }
static double k_v(const double *v) { return k(v[0], v[1]); }

int main(void) {
  const double xs[] = {0.4, -1.1, 1.7};
  for (int i = 0; i < 3; i++) {
    CHECK_GRAD1(f_atan, d_atan, xs[i]);
    CHECK_GRAD1(f_asin, d_asin, xs[i]);
    CHECK_GRAD1(f_acos, d_acos, xs[i]);
  }
  const double p[4][2] = {{0.5, 1.2}, {-0.7, -0.3}, {1.1, -1.5}, {-0.9, 0.4}};
  for (int i = 0; i < 4; i++) {
    double y = p[i][0], x = p[i][1], r2 = x * x + y * y;
    check_at("atan2 y=%g x=%g", y, x);
    grad2 a = __enzyme_autodiff_grad2((void *)g, y, x);
    check_close("dy vs analytic", a.dy, x / r2, TOL_AD);
    check_close("dx vs analytic", a.dx, -y / r2, TOL_AD);
    check_close("dy vs FD", a.dy, fdn(g_v, p[i], 2, 0), TOL_FD);
    check_close("dx vs FD", a.dx, fdn(g_v, p[i], 2, 1), TOL_FD);

    double u = y * y + 0.5, q = x * x + u * u;
    check_at("atan2(y*y+0.5, x)*y y=%g x=%g", y, x);
    grad2 b = __enzyme_autodiff_grad2((void *)k, y, x);
    check_close("dy vs analytic", b.dy, atan2(u, x) + y * (x / q) * 2.0 * y, TOL_AD);
    check_close("dx vs analytic", b.dx, y * (-u / q), TOL_AD);
    check_close("dy vs FD", b.dy, fdn(k_v, p[i], 2, 0), TOL_FD);
    check_close("dx vs FD", b.dx, fdn(k_v, p[i], 2, 1), TOL_FD);
  }
  return check_report();
}
