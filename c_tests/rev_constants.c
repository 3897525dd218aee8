/* rev_constants.c: constants everywhere: a constant function (adjoint 0),
 * constant terms and factors, a multiply by 0.0 (not folded without
 * fast-math), a piecewise-constant select, infinities in min/max, float. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

typedef struct { double dx, dy; } grad2;
grad2 __enzyme_autodiff_grad2(void *, ...);

static double c0(double x) { (void)x; return 42.0; }
static double d0(double x) { (void)x; return 0.0; }
static double c1(double x) { return 2.5 * x + 1.0 / 3.0 - 0.125; }
static double d1(double x) { (void)x; return 2.5; }
static double c2(double x, double y) { return x * 0.0 + y * 4.0 - 1e3; }
static double c2_v(const double *v) { return c2(v[0], v[1]); }
static double c3(double x) { return x > 0.0 ? 3.0 : -3.0; }
static double c4(double x) { return fmin(x, INFINITY) + fmax(-INFINITY, 2.0 * x) - 1e-3 * x; }
static double d4(double x) { (void)x; return 3.0 - 1e-3; }
static float c5(float x) { return -0.75f * x + 8.0f - (x - 2.0f) * 0.25f; }
static double d5(double x) { (void)x; return -1.0; }
static float c6(float x) { (void)x; return -1.5f; }

int main(void) {
  const double xs[] = {0.4, -1.1, 1.7};
  for (int i = 0; i < 3; i++) {
    CHECK_GRAD1(c0, d0, xs[i]);
    CHECK_GRAD1(c1, d1, xs[i]);
    CHECK_GRAD1(c3, d0, xs[i]);
    CHECK_GRAD1(c4, d4, xs[i]);
    CHECK_GRAD1F(c5, d5, xs[i]);
    CHECK_GRAD1F(c6, d0, xs[i]);
    double v[2] = {xs[i], 1.0 - xs[i]};
    check_at("c2 x=%g y=%g", v[0], v[1]);
    grad2 a = __enzyme_autodiff_grad2((void *)c2, v[0], v[1]);
    check_close("dx vs analytic", a.dx, 0.0, TOL_AD);
    check_close("dy vs analytic", a.dy, 4.0, TOL_AD);
    check_close("dx vs FD", a.dx, fdn(c2_v, v, 2, 0), TOL_FD);
    check_close("dy vs FD", a.dy, fdn(c2_v, v, 2, 1), TOL_FD);
  }
  return check_report();
}
