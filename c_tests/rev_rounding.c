/* rev_rounding.c: fabs, copysign, and floor/ceil/trunc/round (zero
 * derivative themselves, but their values scale other terms), f64 + f32. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

typedef struct { double dx, dy; } grad2;
grad2 __enzyme_autodiff_grad2(void *, ...);
typedef struct { float dx, dy; } grad2f;
grad2f __enzyme_autodiff_grad2f(void *, ...);

static double sgn(double x) { return x > 0 ? 1.0 : -1.0; }
static double r(double x) { return 3.0 * fabs(x) + floor(x) * x + ceil(x) + trunc(x) * x * x + round(x); }
static double dr(double x) { return 3.0 * sgn(x) + floor(x) + 2.0 * x * trunc(x); }
static float rf(float x) { return 3.0f * fabsf(x) + floorf(x) * x + ceilf(x) + truncf(x) * x * x + roundf(x); }

static double c(double x, double y) { return 2.0 * copysign(x, y) + y * x; }
static double c_v(const double *v) { return c(v[0], v[1]); }
static float cf(float x, float y) { return 2.0f * copysignf(x, y) + y * x; }
static float cf_v(const float *v) { return cf(v[0], v[1]); }

int main(void) {
  const double xs[] = {1.3, -2.6, 0.4};
  for (int i = 0; i < 3; i++) {
    CHECK_GRAD1(r, dr, xs[i]);
    CHECK_GRAD1F(rf, dr, xs[i]);
  }
  const double p[3][2] = {{-1.3, 0.7}, {1.1, -0.4}, {0.6, 2.0}};
  for (int i = 0; i < 3; i++) {
    double x = p[i][0], y = p[i][1];
    double wx = 2.0 * sgn(x) * sgn(y) + y, wy = x;
    check_at("copysign x=%g y=%g", x, y);
    grad2 a = __enzyme_autodiff_grad2((void *)c, x, y);
    check_close("dx vs analytic", a.dx, wx, TOL_AD);
    check_close("dy vs analytic", a.dy, wy, TOL_AD);
    check_close("dx vs FD", a.dx, fdn(c_v, p[i], 2, 0), TOL_FD);
    check_close("dy vs FD", a.dy, fdn(c_v, p[i], 2, 1), TOL_FD);

    float q[2] = {(float)x, (float)y};
    check_at("copysignf x=%g y=%g", q[0], q[1]);
    grad2f b = __enzyme_autodiff_grad2f((void *)cf, q[0], q[1]);
    check_close("dx vs analytic", b.dx, 2.0 * sgn(x) * sgn(y) + q[1], TOL_AD_F);
    check_close("dy vs analytic", b.dy, q[0], TOL_AD_F);
    check_close("dx vs FD", b.dx, fdnf(cf_v, q, 2, 0), TOL_FD_F);
    check_close("dy vs FD", b.dy, fdnf(cf_v, q, 2, 1), TOL_FD_F);
  }
  return check_report();
}
