/* LTO across translation units: __enzyme_autodiff and __enzyme_fwddiff in
 * this file of functions defined in other.c (f, and g through f), checked
 * against the analytic derivatives and central finite differences. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

double f(double x, double y);
void g(const double *x, double *out, int n);

static double fy_;
static double fx(double x) { return f(x, fy_); }

int main(void) {
  const double pts[3][2] = {{0.7, 1.3}, {-0.4, 0.2}, {1.9, -1.1}};
  for (int p = 0; p < 3; p++) {
    double x = pts[p][0], y = pts[p][1];
    fy_ = y;
    check_at("f x=%g y=%g", x, y);
    double wx = cos(x) * y * y + exp(x * y) * y;
    double dx = __enzyme_autodiff((void *)f, x, enzyme_const, y);
    check_close("reverse vs analytic", dx, wx, TOL_AD);
    check_close("reverse vs FD", dx, fd1(fx, x), TOL_FD);
    double tx = __enzyme_fwddiff((void *)f, x, 1.0, enzyme_const, y);
    check_close("forward vs analytic", tx, wx, TOL_AD);
  }
  double xs[3] = {0.3, -0.8, 1.2}, dxs[3] = {0}, out = 0, dout = 1;
  __enzyme_autodiff((void *)g, enzyme_dup, xs, dxs, enzyme_dup, &out, &dout, enzyme_const, 3);
  for (int i = 0; i < 3; i++) {
    check_at("g i=%d", i);
    double w = cos(xs[i]) * fy_ * fy_ + exp(xs[i] * fy_) * fy_;
    check_close("reverse vs analytic", dxs[i], w, TOL_AD);
  }
  return check_report();
}
