/* rev_relu3.c: relu3(x) = x > 0 ? x^3 : 0, double and float, at points on
 * both sides of the kink (select at -O1+, branch + phi at -O0). */
#include "enzyme.h"
#include "check.h"

static double relu3(double x) { return x > 0.0 ? x * x * x : 0.0; }
static double drelu3(double x) { return x > 0.0 ? 3.0 * x * x : 0.0; }

static float relu3f(float x) { return x > 0.0f ? x * x * x : 0.0f; }

/* The same with the kink at 1 and a constant arm that is not zero. */
static double shifted(double x) {
  if (x > 1.0)
    return (x - 1.0) * (x - 1.0) * (x - 1.0) + 2.0 * x;
  return 2.0;
}
static double dshifted(double x) { return x > 1.0 ? 3.0 * (x - 1.0) * (x - 1.0) + 2.0 : 0.0; }

int main(void) {
  const double xs[] = {1.3, 0.4, -0.8, -2.0};
  for (int i = 0; i < 4; i++) {
    double x = xs[i];
    check_at("relu3 x=%g", x);
    double d = __enzyme_autodiff((void *)relu3, x);
    check_close("d/dx vs analytic", d, drelu3(x), TOL_AD);
    check_close("d/dx vs FD", d, fd1(relu3, x), TOL_FD);

    float xf = (float)x;
    check_at("relu3f x=%g", xf);
    float df = __enzyme_autodiff_f32((void *)relu3f, xf);
    check_close("d/dx vs analytic", df, drelu3(xf), TOL_AD_F);
    check_close("d/dx vs FD", df, fd1f(relu3f, xf), TOL_FD_F);

    double s = x + 1.0;
    check_at("shifted x=%g", s);
    double ds = __enzyme_autodiff((void *)shifted, s);
    check_close("d/dx vs analytic", ds, dshifted(s), TOL_AD);
    check_close("d/dx vs FD", ds, fd1(shifted, s), TOL_FD);
  }
  return check_report();
}
