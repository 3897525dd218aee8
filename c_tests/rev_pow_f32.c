/* rev_pow_f32.c: powf (both arguments), __builtin_powif, sqrtf, cbrtf. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

typedef struct { float dx, dy; } grad2f;
grad2f __enzyme_autodiff_grad2f(void *, ...);

static float f_pow(float x) { return powf(x, 2.7f); }
static double d_pow(double x) { return 2.7f * pow(x, 2.7f - 1.0); }
static float f_powi3(float x) { return __builtin_powif(x, 3) * 0.5f; }
static double d_powi3(double x) { return 1.5 * x * x; }
static float f_sqrt(float x) { return sqrtf(1.0f + x * x); }
static double d_sqrt(double x) { return x / sqrt(1.0 + x * x); }
static float f_sqrtx(float x) { return 2.0f * sqrtf(x); }
static double d_sqrtx(double x) { return 1.0 / sqrt(x); }
static float f_cbrt(float x) { return cbrtf(2.0f * x); }
static double d_cbrt(double x) { double c = cbrt(2.0 * x); return 2.0 / (3.0 * c * c); }

static float g(float x, float y) { return powf(x, y); }
static float g_v(const float *v) { return g(v[0], v[1]); }
static float h(float x, int n) { return __builtin_powif(x, n); }
static int cur_n;
static float h_1(float x) { return h(x, cur_n); }

int main(void) {
  const float xs[] = {0.6f, 1.3f, 2.4f};
  for (int i = 0; i < 3; i++) {
    CHECK_GRAD1F(f_pow, d_pow, xs[i]);
    CHECK_GRAD1F(f_powi3, d_powi3, xs[i] - 1.0f);
    CHECK_GRAD1F(f_sqrt, d_sqrt, xs[i] - 1.0f);
    CHECK_GRAD1F(f_sqrtx, d_sqrtx, xs[i]);
    CHECK_GRAD1F(f_cbrt, d_cbrt, 1.5f - xs[i]);
  }
  const float p[3][2] = {{0.7f, 2.3f}, {1.9f, -0.6f}, {3.1f, 0.4f}};
  for (int i = 0; i < 3; i++) {
    double x = p[i][0], y = p[i][1];
    check_at("powf x=%g y=%g", x, y);
    grad2f a = __enzyme_autodiff_grad2f((void *)g, p[i][0], p[i][1]);
    check_close("dx vs analytic", a.dx, y * pow(x, y - 1.0), TOL_AD_F);
    check_close("dy vs analytic", a.dy, pow(x, y) * log(x), TOL_AD_F);
    check_close("dx vs FD", a.dx, fdnf(g_v, p[i], 2, 0), TOL_FD_F);
    check_close("dy vs FD", a.dy, fdnf(g_v, p[i], 2, 1), TOL_FD_F);
  }
  const int ns[] = {5, -2, 1};
  for (int i = 0; i < 3; i++) {
    float x = 1.4f - 0.9f * i;
    int n = ns[i];
    cur_n = n;
    check_at("powif x=%g n=%d", x, n);
    float d = __enzyme_autodiff_f32((void *)h, x, n);
    check_close("dx vs analytic", d, n * pow(x, n - 1), TOL_AD_F);
    check_close("dx vs FD", d, fd1f(h_1, x), TOL_FD_F);
  }
  return check_report();
}
