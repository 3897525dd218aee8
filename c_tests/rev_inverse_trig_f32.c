/* rev_inverse_trig_f32.c: atanf, asinf, acosf, atan2f (both arguments). */
#include <math.h>
#include "enzyme.h"
#include "check.h"

typedef struct { float dy, dx; } grad2f;
grad2f __enzyme_autodiff_grad2f(void *, ...);

static float f_atan(float x) { return atanf(2.0f * x); }
static double d_atan(double x) { return 2.0 / (1.0 + 4.0 * x * x); }
static float f_asin(float x) { return asinf(0.5f * x); }
static double d_asin(double x) { return 0.5 / sqrt(1.0 - 0.25 * x * x); }
static float f_acos(float x) { return acosf(0.375f * x); }
static double d_acos(double x) { return -0.375 / sqrt(1.0 - 0.140625 * x * x); }

static float g(float y, float x) { return atan2f(y, x); }
static float g_v(const float *v) { return g(v[0], v[1]); }

int main(void) {
  const float xs[] = {0.4f, -1.1f, 1.7f};
  for (int i = 0; i < 3; i++) {
    CHECK_GRAD1F(f_atan, d_atan, xs[i]);
    CHECK_GRAD1F(f_asin, d_asin, xs[i]);
    CHECK_GRAD1F(f_acos, d_acos, xs[i]);
  }
  const float p[4][2] = {{0.5f, 1.2f}, {-0.7f, -0.3f}, {1.1f, -1.5f}, {-0.9f, 0.4f}};
  for (int i = 0; i < 4; i++) {
    double y = p[i][0], x = p[i][1], r2 = x * x + y * y;
    check_at("atan2f y=%g x=%g", y, x);
    grad2f a = __enzyme_autodiff_grad2f((void *)g, p[i][0], p[i][1]);
    check_close("dy vs analytic", a.dy, x / r2, TOL_AD_F);
    check_close("dx vs analytic", a.dx, -y / r2, TOL_AD_F);
    check_close("dy vs FD", a.dy, fdnf(g_v, p[i], 2, 0), TOL_FD_F);
    check_close("dx vs FD", a.dx, fdnf(g_v, p[i], 2, 1), TOL_FD_F);
  }
  return check_report();
}
