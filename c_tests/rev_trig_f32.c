/* rev_trig_f32.c: sinf, cosf, tanf (float libm calls), alone and combined. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

typedef struct { float dx, dy; } grad2f;
grad2f __enzyme_autodiff_grad2f(void *, ...);

static float f_sin(float x) { return sinf(1.5f * x); }
static double d_sin(double x) { return 1.5 * cos(1.5 * x); }
static float f_cos(float x) { return 2.0f * cosf(0.75f * x); }
static double d_cos(double x) { return -1.5 * sin(0.75 * x); }
static float f_tan(float x) { return tanf(0.5f * x); }
static double d_tan(double x) { double c = cos(0.5 * x); return 0.5 / (c * c); }

static float g(float x, float y) { return sinf(x) * cosf(y) + tanf(x * y); }
static float g_v(const float *v) { return g(v[0], v[1]); }

int main(void) {
  const float xs[] = {0.4f, -1.1f, 2.0f};
  for (int i = 0; i < 3; i++) {
    CHECK_GRAD1F(f_sin, d_sin, xs[i]);
    CHECK_GRAD1F(f_cos, d_cos, xs[i]);
    CHECK_GRAD1F(f_tan, d_tan, xs[i]);
  }
  const float p[3][2] = {{0.3f, 0.9f}, {-1.2f, 0.5f}, {0.8f, -1.4f}};
  for (int i = 0; i < 3; i++) {
    double x = p[i][0], y = p[i][1];
    double sec2 = 1.0 / (cos(x * y) * cos(x * y));
    check_at("g x=%g y=%g", x, y);
    grad2f a = __enzyme_autodiff_grad2f((void *)g, p[i][0], p[i][1]);
    check_close("dx vs analytic", a.dx, cos(x) * cos(y) + y * sec2, TOL_AD_F);
    check_close("dy vs analytic", a.dy, -sin(x) * sin(y) + x * sec2, TOL_AD_F);
    check_close("dx vs FD", a.dx, fdnf(g_v, p[i], 2, 0), TOL_FD_F);
    check_close("dy vs FD", a.dy, fdnf(g_v, p[i], 2, 1), TOL_FD_F);
  }
  return check_report();
}
