/* rev_fn_through_local.c: the function to differentiate and a marker reach
 * __enzyme_autodiff through locals of an always_inline wrapper (what a
 * wrapper API such as C++'s enzyme::autodiff leaves at -O0, where the
 * wrapper is inlined but its locals stay in memory):
 *   f(x, c) = c sin(x) x       df/dx = c (cos(x) x + sin(x))
 * with c passed as enzyme_const through a local copy of the marker.
 * Checked against the analytic derivative and central finite differences. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

double f(double x, double c) { return c * sin(x) * x; }

static inline __attribute__((always_inline)) double grad_x(double (*fn)(double, double), double x,
                                                           double c) {
  void *target = (void *)fn;
  int constant = enzyme_const;
#ifdef NO_AD
  (void)target;
  (void)constant;
  return c * (cos(x) * x + sin(x));
#else
  return __enzyme_autodiff(target, x, constant, c);
#endif
}

static double c_g;
static double f_x(double x) { return f(x, c_g); }

int main(void) {
  const double xs[3] = {0.4, -1.3, 2.2};
  for (int p = 0; p < 3; p++) {
    double x = xs[p], c = 1.5 - p;
    c_g = c;
    check_at("x=%g c=%g", x, c);
    double g = grad_x(f, x, c);
    check_close("vs analytic", g, c * (cos(x) * x + sin(x)), TOL_AD);
    check_close("vs FD", g, fd1(f_x, x), TOL_FD);
  }
  return check_report();
}
