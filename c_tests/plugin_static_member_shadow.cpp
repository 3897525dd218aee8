/* plugin_static_member_shadow.cpp: __attribute__((enzyme_shadow(d))) in C++
 * (clang++ hands the argument over as a bare name, looked up where the
 * declaration is): on a namespace-scope global and on a static data member
 * whose shadow is another static member of the same class. As
 *   void *__enzyme_register_global_g[2] = {&g, &d_g};
 * f(x) = scale x^2 + Params::offset x:
 *   df/dx = 2 scale x + offset; reverse mode adds x^2 to scale_shadow and
 *   x to Params::offset_shadow; forward mode with dx = 0, the tangent of
 *   offset seeded 1 in its shadow, returns x.
 * Checked against analytic values and central differences (in x, scale
 * and offset). -DNO_AD: the expected values. */
#include <enzyme.h>
#include <math.h>
#include "check.h"

#ifdef NO_AD
#define SHADOW(d)
#else
#define SHADOW(d) __attribute__((enzyme_shadow(d)))
#endif

double scale_shadow = 0;
SHADOW(scale_shadow) double scale = 2.0;

struct Params {
  static double offset_shadow;
  SHADOW(offset_shadow) static double offset;
};
double Params::offset_shadow = 0;
double Params::offset = 1.0;

__attribute__((noinline)) double f(double x) { return scale * x * x + Params::offset * x; }

static double at_x;
static double f_of_scale(double s) {
  double keep = scale, r;
  scale = s;
  r = f(at_x);
  scale = keep;
  return r;
}
static double f_of_offset(double o) {
  double keep = Params::offset, r;
  Params::offset = o;
  r = f(at_x);
  Params::offset = keep;
  return r;
}

int main() {
  const double xs[2] = {3.0, -1.7};
  for (double x : xs) {
    at_x = x;
    check_at("f x=%g", x);
    scale_shadow = 0.0;
    Params::offset_shadow = 0.25; /* accumulated into */
#ifdef NO_AD
    double dx = 2 * scale * x + Params::offset;
    scale_shadow += x * x;
    Params::offset_shadow += x;
#else
    double dx = __enzyme_autodiff((void *)f, x);
#endif
    check_close("df/dx vs analytic", dx, 2 * scale * x + Params::offset, TOL_AD);
    check_close("df/dx vs FD", dx, fd1(f, x), TOL_FD);
    check_close("scale_shadow vs analytic", scale_shadow, x * x, TOL_AD);
    check_close("scale_shadow vs FD", scale_shadow, fd1(f_of_scale, scale), TOL_FD);
    check_close("offset_shadow += x", Params::offset_shadow, 0.25 + x, TOL_AD);
    check_close("offset_shadow vs FD", Params::offset_shadow - 0.25,
                fd1(f_of_offset, Params::offset), TOL_FD);

    scale_shadow = 0.0;
    Params::offset_shadow = 1.0;
#ifdef NO_AD
    double t = x;
#else
    double t = __enzyme_fwddiff((void *)f, x, 0.0);
#endif
    check_close("tangent seeded in offset_shadow vs analytic", t, x, TOL_AD);
    check_close("tangent seeded in offset_shadow vs FD", t, fd1(f_of_offset, Params::offset),
                TOL_FD);
  }
  return check_report();
}
