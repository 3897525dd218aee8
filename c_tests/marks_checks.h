/* marks_checks.h: the functions and checks shared by the fixtures of
 * source marks (attr_annotations.c: enzyme.h's ENZYME_* macros, on every
 * route; plugin_attributes.c: the clang plugin's attributes), which define
 * the MARK_* macros before including it:
 *   MARK_INACTIVE scale(x) = 2x:     f1(x) = scale(x) * x,
 *     d/dx = scale(x) = 2x (the inactive factor is a constant; not 4x);
 *   MARK_FUNCTION_LIKE_LOG1P approx_log1p(x) (a 4-term series):
 *     f2(x) = approx_log1p(x) * x, d/dx = log1p'(x) x + approx_log1p(x),
 *     with log1p' = 1/(1+x) exactly (not the series' derivative);
 *   MARK_GRADIENT_RSQRT fast_rsqrt(x) (the integer bit trick and one
 *     Newton step, about 0.2% off): f3(x) = fast_rsqrt(x) * 3,
 *     d/dx = 3 * (-0.5 x^-1.5) from the rule (aug_rsqrt, rev_rsqrt);
 *   MARK_DERIVATIVE_CUBE cube(x) = x^3 whose rule (fwd_cube) says 3x^2 + 1
 *     (a deliberate +1, so that the result shows the rule was used);
 *   MARK_INACTIVE_GLOBAL last_x: f4(x) = x * (last_x = x) read back
 *     through memory, d/dx = last_x = x (the global carries none).
 * Forward mode for f1, f2 and cube; reverse mode for all; f3 also against
 * central finite differences of the exact 3/sqrt(x) (the other marks
 * change the derivative on purpose). -DNO_AD: the expected values. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "check.h"

MARK_INACTIVE double scale(double x) { return 2 * x; }
static double f1(double x) { return scale(x) * x; }

MARK_FUNCTION_LIKE_LOG1P double approx_log1p(double x) {
  return x - x * x / 2 + x * x * x / 3 - x * x * x * x / 4;
}
static double f2(double x) { return approx_log1p(x) * x; }

void *aug_rsqrt(float x);
float rev_rsqrt(float x, float dret, void *tape);
MARK_GRADIENT_RSQRT float fast_rsqrt(float x) {
  uint32_t i;
  memcpy(&i, &x, 4);
  i = 0x5f3759df - (i >> 1);
  float y;
  memcpy(&y, &i, 4);
  return y * (1.5f - 0.5f * x * y * y);
}
void *aug_rsqrt(float x) {
  (void)x;
  return NULL;
}
float rev_rsqrt(float x, float dret, void *tape) {
  (void)tape;
  return dret * -0.5f * powf(x, -1.5f);
}
static float f3(float x) { return fast_rsqrt(x) * 3.0f; }
static float exact3(float x) { return 3.0f / sqrtf(x); }

double fwd_cube(double x, double dx);
MARK_DERIVATIVE_CUBE double cube(double x) { return x * x * x; }
double fwd_cube(double x, double dx) { return (3 * x * x + 1) * dx; }

MARK_INACTIVE_GLOBAL double last_x;
static double f4(double x) {
  last_x = x;
  /* read back through memory (a volatile read is not forwarded) */
  return x * *(volatile double *)&last_x;
}

float __enzyme_autodiff_f(void *, ...);

int main(void) {
  const double xs[3] = {0.3, 0.9, 1.7};
  for (int k = 0; k < 3; k++) {
    double x = xs[k];
    check_at("x=%g", x);
#ifdef NO_AD
    double d1 = 2 * x, t1 = d1;
    double d2 = x / (1 + x) + approx_log1p(x), t2 = d2;
    float d3 = 3.0f * -0.5f * powf((float)x, -1.5f);
    double tc = 3 * x * x + 1, d4 = x;
#else
    double d1 = __enzyme_autodiff((void *)f1, x);
    double t1 = __enzyme_fwddiff((void *)f1, x, 1.0);
    double d2 = __enzyme_autodiff((void *)f2, x);
    double t2 = __enzyme_fwddiff((void *)f2, x, 1.0);
    float d3 = __enzyme_autodiff_f((void *)f3, (float)x);
    double tc = __enzyme_fwddiff((void *)cube, x, 1.0);
    double d4 = __enzyme_autodiff((void *)f4, x);
#endif
    check_close("inactive: reverse", d1, 2 * x, TOL_AD);
    check_close("inactive: forward", t1, 2 * x, TOL_AD);
    check_close("function-like: reverse", d2, x / (1 + x) + approx_log1p(x), TOL_AD);
    check_close("function-like: forward", t2, x / (1 + x) + approx_log1p(x), TOL_AD);
    check_close("custom gradient: reverse", d3, 3.0f * -0.5f * powf((float)x, -1.5f),
                TOL_AD_F);
    check_close("custom gradient: vs FD of 3/sqrt(x)", d3, fd1f(exact3, (float)x), TOL_FD_F);
    check_close("custom tangent: forward", tc, 3 * x * x + 1, TOL_AD);
    check_close("inactive global: reverse", d4, x, TOL_AD);
  }
  return check_report();
}
