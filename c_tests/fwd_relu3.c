/* fwd_relu3.c: forward mode of relu3(x) = x > 0 ? x^3 : 0, double and float
 * (__enzyme_fwddiff_f32: float arguments arrive promoted to double through
 * `...`; the float tangent is returned), and of a shifted variant with a
 * non-zero constant arm, at points on both sides of the kink.
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <stdlib.h>
#include "enzyme.h"
#include "check.h"

float __enzyme_fwddiff_f32(void *, ...);

static double relu3(double x) { return x > 0.0 ? x * x * x : 0.0; }
static double drelu3(double x) { return x > 0.0 ? 3.0 * x * x : 0.0; }

static float relu3f(float x) { return x > 0.0f ? x * x * x : 0.0f; }

static double shifted(double x) {
  if (x > 1.0)
    return (x - 1.0) * (x - 1.0) * (x - 1.0) + 2.0 * x;
  return 2.0;
}
static double dshifted(double x) { return x > 1.0 ? 3.0 * (x - 1.0) * (x - 1.0) + 2.0 : 0.0; }

int main(void) {
  const double xs[] = {1.3, 0.4, -0.8, -2.0};
  check_seed(7);
  for (int i = 0; i < 4; i++) {
    double x = xs[i], dx = 2.0 * check_rand();
    CHECK_FWD1(relu3, drelu3, x, dx);
    CHECK_FWD1(relu3, drelu3, x, 1.0);
    CHECK_FWD1F(relu3f, drelu3, x, dx);
    CHECK_FWD1(shifted, dshifted, x + 1.0, dx);
  }
  return check_report();
}
