/* rev_arith_f32.c: fadd, fsub, fmul, fdiv, fneg and constants in float;
 * one float `out` argument and two (struct {float,float} = <2 x float>). */
#include "enzyme.h"
#include "check.h"

typedef struct { float dx, dy; } grad2f;
grad2f __enzyme_autodiff_grad2f(void *, ...);

static float f(float x) {
  return 0.25f * x * x * x - 2.0f * x + 1.5f / x + (x - 1.0f) / (x + 3.0f);
}
static double df(double x) {
  return 0.75 * x * x - 2.0 - 1.5 / (x * x) + 4.0 / ((x + 3.0) * (x + 3.0));
}

static float g(float x, float y) { return -(x * y) / (y + 2.0f) + (x - y) * (x + y); }
static float g_v(const float *v) { return g(v[0], v[1]); }

int main(void) {
  const float xs[] = {0.6f, -1.4f, 2.2f};
  const float ys[] = {0.3f, -0.8f, 1.9f};
  for (int i = 0; i < 3; i++) {
    float x = xs[i], y = ys[i];
    check_at("f x=%g", x);
    float d = __enzyme_autodiff_f32((void *)f, x);
    check_close("df/dx vs analytic", d, df(x), TOL_AD_F);
    check_close("df/dx vs FD", d, fd1f(f, x), TOL_FD_F);

    check_at("g x=%g y=%g", x, y);
    grad2f a = __enzyme_autodiff_grad2f((void *)g, x, y);
    double X = x, Y = y;
    double wx = -Y / (Y + 2.0) + 2.0 * X;
    double wy = -2.0 * X / ((Y + 2.0) * (Y + 2.0)) - 2.0 * Y;
    float v[2] = {x, y};
    check_close("dg/dx vs analytic", a.dx, wx, TOL_AD_F);
    check_close("dg/dy vs analytic", a.dy, wy, TOL_AD_F);
    check_close("dg/dx vs FD", a.dx, fdnf(g_v, v, 2, 0), TOL_FD_F);
    check_close("dg/dy vs FD", a.dy, fdnf(g_v, v, 2, 1), TOL_FD_F);
  }
  return check_report();
}
