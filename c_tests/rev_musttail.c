/* rev_musttail.c: a function whose body is a guaranteed tail call,
 * `__attribute__((musttail)) return sin(x);` (and one through a helper).
 * A musttail call must be followed by `ret`; in a derivative the forward
 * sweep continues into the reverse sweep, so the call becomes an ordinary
 * call there. Used to be an internal error ("cannot guarantee tail call
 * due to mismatched return types"). */
#include "enzyme.h"
#include "check.h"
#include <math.h>

static double f(double x) { __attribute__((musttail)) return sin(x); }
static double df(double x) { return cos(x); }

__attribute__((noinline)) static double helper(double x) { return x * exp(x); }
static double g(double x) { __attribute__((musttail)) return helper(x); }
static double dg(double x) { return exp(x) * (1.0 + x); }

int main(void) {
  const double xs[] = {0.3, -1.1, 2.5};
  for (int i = 0; i < 3; i++) {
    double x = xs[i];
    check_at("musttail sin x=%g", x);
    double d = __enzyme_autodiff((void *)f, x);
    check_close("d/dx vs analytic", d, df(x), TOL_AD);
    check_close("d/dx vs FD", d, fd1(f, x), TOL_FD);
    check_at("musttail helper x=%g", x);
    d = __enzyme_autodiff((void *)g, x);
    check_close("d/dx vs analytic", d, dg(x), TOL_AD);
    check_close("d/dx vs FD", d, fd1(g, x), TOL_FD);
    check_at("musttail fwd x=%g", x);
    d = __enzyme_fwddiff((void *)g, x, 1.0);
    check_close("tangent vs analytic", d, dg(x), TOL_AD);
  }
  return check_report();
}
