// enz-cflags: -fno-math-errno
/* rev_intrinsics_f32.c: the f32 intrinsics clang emits under
 * -fno-math-errno: llvm.{sin,cos,tan,exp,exp2,log,log2,log10,pow,sqrt,tanh,
 * sinh,cosh,atan,asin,acos,atan2}.f32. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

typedef struct { float dx, dy; } grad2f;
grad2f __enzyme_autodiff_grad2f(void *, ...);

static float f1(float x) { return sinf(1.5f * x) + cosf(0.5f * x) + tanf(0.25f * x); }
static double d1(double x) {
  double c = cos(0.25 * x);
  return 1.5 * cos(1.5 * x) - 0.5 * sin(0.5 * x) + 0.25 / (c * c);
}
static float f2(float x) { return expf(0.5f * x) + exp2f(x) + logf(x) + log2f(x) + log10f(x); }
static double d2(double x) { return 0.5 * exp(0.5 * x) + M_LN2 * exp2(x) + 1.0 / x + 1.0 / (x * M_LN2) + 1.0 / (x * M_LN10); }
static float f3(float x) { return sqrtf(x) + tanhf(x) + sinhf(0.5f * x) + coshf(0.75f * x); }
static double d3(double x) {
  double t = tanh(x);
  return 0.5 / sqrt(x) + 1.0 - t * t + 0.5 * cosh(0.5 * x) + 0.75 * sinh(0.75 * x);
}
static float f4(float x) { return atanf(x) + asinf(0.25f * x) + acosf(0.375f * x); }
static double d4(double x) {
  return 1.0 / (1.0 + x * x) + 0.25 / sqrt(1.0 - 0.0625 * x * x) - 0.375 / sqrt(1.0 - 0.140625 * x * x);
}
static float g(float x, float y) { return powf(x, y) + atan2f(y, x); }
static float g_v(const float *v) { return g(v[0], v[1]); }

int main(void) {
  const float xs[] = {0.4f, 1.1f, 2.3f};
  for (int i = 0; i < 3; i++) {
    CHECK_GRAD1F(f1, d1, xs[i] - 1.0f);
    CHECK_GRAD1F(f2, d2, xs[i]);
    CHECK_GRAD1F(f3, d3, xs[i]);
    CHECK_GRAD1F(f4, d4, xs[i]);
  }
  const float p[3][2] = {{0.7f, 2.3f}, {1.9f, -0.6f}, {3.1f, 0.4f}};
  for (int i = 0; i < 3; i++) {
    double x = p[i][0], y = p[i][1], r2 = x * x + y * y;
    check_at("g x=%g y=%g", x, y);
    grad2f a = __enzyme_autodiff_grad2f((void *)g, p[i][0], p[i][1]);
    check_close("dx vs analytic", a.dx, y * pow(x, y - 1.0) - y / r2, TOL_AD_F);
    check_close("dy vs analytic", a.dy, pow(x, y) * log(x) + x / r2, TOL_AD_F);
    check_close("dx vs FD", a.dx, fdnf(g_v, p[i], 2, 0), TOL_FD_F);
    check_close("dy vs FD", a.dy, fdnf(g_v, p[i], 2, 1), TOL_FD_F);
  }
  return check_report();
}
