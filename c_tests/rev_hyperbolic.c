/* rev_hyperbolic.c: tanh, sinh, cosh and tanhf, sinhf, coshf. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

static double f_tanh(double x) { return tanh(0.7 * x); }
static double d_tanh(double x) { double t = tanh(0.7 * x); return 0.7 * (1.0 - t * t); }
static double f_sinh(double x) { return sinh(0.5 * x); }
static double d_sinh(double x) { return 0.5 * cosh(0.5 * x); }
static double f_cosh(double x) { return cosh(1.2 * x); }
static double d_cosh(double x) { return 1.2 * sinh(1.2 * x); }
static double f_mix(double x) { return tanh(x) * sinh(x) - cosh(x * x); }
static double d_mix(double x) {
  double t = tanh(x);
  return (1.0 - t * t) * sinh(x) + t * cosh(x) - 2.0 * x * sinh(x * x);
}

static float f_tanhf(float x) { return tanhf(0.7f * x); }
static double d_tanhf(double x) { double t = tanh(0.7f * x); return 0.7f * (1.0 - t * t); }
static float f_sinhf(float x) { return sinhf(0.5f * x); }
static float f_coshf(float x) { return coshf(1.25f * x); }
static double d_coshf(double x) { return 1.25 * sinh(1.25 * x); }

int main(void) {
  const double xs[] = {0.4, -1.1, 1.7};
  for (int i = 0; i < 3; i++) {
    CHECK_GRAD1(f_tanh, d_tanh, xs[i]);
    CHECK_GRAD1(f_sinh, d_sinh, xs[i]);
    CHECK_GRAD1(f_cosh, d_cosh, xs[i]);
    CHECK_GRAD1(f_mix, d_mix, xs[i]);
    CHECK_GRAD1F(f_tanhf, d_tanhf, xs[i]);
    CHECK_GRAD1F(f_sinhf, d_sinh, xs[i]);
    CHECK_GRAD1F(f_coshf, d_coshf, xs[i]);
  }
  return check_report();
}
