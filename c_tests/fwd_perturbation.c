/* fwd_perturbation.c: nested forward mode and perturbation confusion.
 *   inner(x, y) = x + y;  outer(x) = x * d/dy inner(x, y) = x * 1 = x
 * The inner derivative is w.r.t. y only (x enzyme_const), so outer(x) = x
 * and d/dx outer = 1 exactly; a tool that confuses the outer perturbation
 * of x with the inner one of y gets 2.
 *   inner2(x, y) = sin(x y); d/dy at y = Y0 is x cos(x Y0);
 *   outer2(x) = x * that (x enzyme_const in the inner call),
 *   outer3(x) = the same with x duplicated and an explicit zero tangent:
 *   both = x^2 cos(x Y0), derivative 2 x cos(x Y0) - x^2 Y0 sin(x Y0).
 * The outer functions contain __enzyme_fwddiff calls and are themselves
 * differentiated with __enzyme_fwddiff (forward over forward).
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include <stdlib.h>
#include "enzyme.h"
#include "check.h"

#define Y0 1.5

static double inner(double x, double y) { return x + y; }
static double inner2(double x, double y) { return sin(x * y); }

#ifdef NO_AD
static double emul_inner_dy(double x, double y, double dy) { (void)x; (void)y; return dy; }
static double emul_inner2(double x, double dx, double y, double dy) {
  return cos(x * y) * (dx * y + x * dy);
}
#endif

static double outer(double x) {
#ifdef NO_AD
  double d = emul_inner_dy(x, 1.0, 1.0);
#else
  double d = __enzyme_fwddiff((void *)inner, enzyme_const, x, 1.0, 1.0);
#endif
  return x * d;
}
static double outer2(double x) {
#ifdef NO_AD
  double d = emul_inner2(x, 0.0, Y0, 1.0);
#else
  double d = __enzyme_fwddiff((void *)inner2, enzyme_const, x, Y0, 1.0);
#endif
  return x * d;
}
static double outer3(double x) {
#ifdef NO_AD
  double d = emul_inner2(x, 0.0, Y0, 1.0);
#else
  double d = __enzyme_fwddiff((void *)inner2, x, 0.0, Y0, 1.0);
#endif
  return x * d;
}
static double d_outer2(double x) {
  return 2.0 * x * cos(x * Y0) - x * x * Y0 * sin(x * Y0);
}

int main(void) {
  const double xs[] = {0.3, -1.7, 2.5, 0.0};
  for (int i = 0; i < 4; i++) {
    double x = xs[i];
    check_at("outer x=%g", x);
    check_close("inner primal", inner(x, Y0), x + Y0, 0.0);
    check_close("inner2 primal", inner2(x, Y0), sin(x * Y0), 0.0);
    check_close("outer(x) = x", outer(x), x, TOL_AD);
#ifdef NO_AD
    double d1 = 1.0, d1s = 2.5, d2 = d_outer2(x), d3 = d_outer2(x);
#else
    double d1 = __enzyme_fwddiff((void *)outer, x, 1.0);
    double d1s = __enzyme_fwddiff((void *)outer, x, 2.5);
    double d2 = __enzyme_fwddiff((void *)outer2, x, 1.0);
    double d3 = __enzyme_fwddiff((void *)outer3, x, 1.0);
#endif
    check_close("d outer / dx = 1 (exactly)", d1, 1.0, 0.0);
    check_close("tangent of outer, dx = 2.5", d1s, 2.5, 0.0);
    check_close("d outer / dx vs FD", d1, fd1(outer, x), TOL_FD);
    check_at("outer2 x=%g", x);
    check_close("outer2(x) vs analytic", outer2(x), x * x * cos(x * Y0), TOL_AD);
    check_close("d outer2 / dx vs analytic", d2, d_outer2(x), TOL_AD);
    check_close("d outer2 / dx vs FD", d2, fd1(outer2, x), TOL_FD);
    check_at("outer3 x=%g", x);
    check_close("outer3(x) vs analytic", outer3(x), x * x * cos(x * Y0), TOL_AD);
    check_close("d outer3 / dx vs analytic", d3, d_outer2(x), TOL_AD);
    check_close("d outer3 / dx vs FD", d3, fd1(outer3, x), TOL_FD);
  }
  return check_report();
}
