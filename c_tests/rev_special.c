/* rev_special.c: hypot, erf (libm calls, no LLVM intrinsic), f64 and f32. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

typedef struct { double dx, dy; } grad2;
grad2 __enzyme_autodiff_grad2(void *, ...);
typedef struct { float dx, dy; } grad2f;
grad2f __enzyme_autodiff_grad2f(void *, ...);

static const double TWO_OVER_SQRTPI = 1.1283791670955126;
static double f_erf(double x) { return erf(0.8 * x); }
static double d_erf(double x) { return 0.8 * TWO_OVER_SQRTPI * exp(-0.64 * x * x); }
static float f_erff(float x) { return erff(0.75f * x); }
static double d_erff(double x) { return 0.75 * TWO_OVER_SQRTPI * exp(-0.5625 * x * x); }

static double h(double x, double y) { return hypot(x, y) + erf(x * y); }
static double h_v(const double *v) { return h(v[0], v[1]); }
static float hf(float x, float y) { return hypotf(x, y); }
static float hf_v(const float *v) { return hf(v[0], v[1]); }

int main(void) {
  const double xs[] = {0.4, -1.1, 1.7};
  for (int i = 0; i < 3; i++) {
    CHECK_GRAD1(f_erf, d_erf, xs[i]);
    CHECK_GRAD1F(f_erff, d_erff, xs[i]);
  }
  const double p[3][2] = {{3.0, 4.0}, {-1.2, 0.5}, {0.7, -2.1}};
  for (int i = 0; i < 3; i++) {
    double x = p[i][0], y = p[i][1], r = sqrt(x * x + y * y);
    double e = TWO_OVER_SQRTPI * exp(-(x * y) * (x * y));
    check_at("hypot+erf x=%g y=%g", x, y);
    grad2 a = __enzyme_autodiff_grad2((void *)h, x, y);
    check_close("dx vs analytic", a.dx, x / r + e * y, TOL_AD);
    check_close("dy vs analytic", a.dy, y / r + e * x, TOL_AD);
    check_close("dx vs FD", a.dx, fdn(h_v, p[i], 2, 0), TOL_FD);
    check_close("dy vs FD", a.dy, fdn(h_v, p[i], 2, 1), TOL_FD);

    float q[2] = {(float)x, (float)y};
    check_at("hypotf x=%g y=%g", q[0], q[1]);
    grad2f b = __enzyme_autodiff_grad2f((void *)hf, q[0], q[1]);
    check_close("dx vs analytic", b.dx, q[0] / r, TOL_AD_F);
    check_close("dy vs analytic", b.dy, q[1] / r, TOL_AD_F);
    check_close("dx vs FD", b.dx, fdnf(hf_v, q, 2, 0), TOL_FD_F);
    check_close("dy vs FD", b.dy, fdnf(hf_v, q, 2, 1), TOL_FD_F);
  }
  return check_report();
}
