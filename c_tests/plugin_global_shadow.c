/* plugin_global_shadow.c: __attribute__((enzyme_shadow(d_g))) on a global g
 * names its shadow, as void *__enzyme_register_global_g[2] = {&g, &d_g}
 * does (clang plugin route only: without the plugin clang drops the
 * attribute). Two globals, one an array (its element off[1] read):
 *   f(x) = scale x^2 + off[1] x
 *   df/dx = 2 scale x + off[1];  reverse mode adds x^2 to d_scale and x to
 *   d_off[1] (+=, like any shadow; d_off[0] stays);
 *   forward mode with dx = 0 and d_scale = 1 (the seed) returns x^2.
 * Checked against the analytic values and central differences in x, in
 * scale and in off[1]. -DNO_AD: the expected values. */
#include <enzyme.h>
#include <math.h>
#include "check.h"

#ifdef NO_AD
#define SHADOW(d)
#else
#define SHADOW(d) __attribute__((enzyme_shadow(d)))
#endif

double d_scale = 0.0;
SHADOW(d_scale) double scale = 2.0;
double d_off[2] = {0.0, 0.0};
SHADOW(d_off) double off[2] = {5.0, 1.5};

__attribute__((noinline)) double f(double x) { return scale * x * x + off[1] * x; }

static double at_x;
static double f_of_scale(double s) {
  double keep = scale, r;
  scale = s;
  r = f(at_x);
  scale = keep;
  return r;
}
static double f_of_off1(double o) {
  double keep = off[1], r;
  off[1] = o;
  r = f(at_x);
  off[1] = keep;
  return r;
}

int main(void) {
  const double xs[2] = {3.0, -0.6};
  for (int k = 0; k < 2; k++) {
    double x = xs[k];
    at_x = x;
    check_at("f x=%g", x);
    d_scale = 0.5; /* accumulated into */
    d_off[0] = 7.0;
    d_off[1] = 0.0;
#ifdef NO_AD
    double dx = 2 * scale * x + off[1];
    d_scale += x * x;
    d_off[1] += x;
#else
    double dx = __enzyme_autodiff((void *)f, x);
#endif
    check_close("df/dx vs analytic", dx, 2 * scale * x + off[1], TOL_AD);
    check_close("df/dx vs FD", dx, fd1(f, x), TOL_FD);
    check_close("d_scale += x^2", d_scale, 0.5 + x * x, TOL_AD);
    check_close("d_scale vs FD", d_scale - 0.5, fd1(f_of_scale, scale), TOL_FD);
    check_close("d_off[1] += x", d_off[1], x, TOL_AD);
    check_close("d_off[1] vs FD", d_off[1], fd1(f_of_off1, off[1]), TOL_FD);
    check_close("d_off[0] untouched", d_off[0], 7.0, TOL_AD);
    check_close("scale unchanged", scale, 2.0, TOL_AD);

    d_scale = 1.0;
    d_off[0] = d_off[1] = 0.0;
#ifdef NO_AD
    double t = x * x;
#else
    double t = __enzyme_fwddiff((void *)f, x, 0.0);
#endif
    check_close("tangent seeded in d_scale vs analytic", t, x * x, TOL_AD);
    check_close("tangent seeded in d_scale vs FD", t, fd1(f_of_scale, scale), TOL_FD);
  }
  return check_report();
}
