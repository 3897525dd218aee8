/* plugin_inactive_noblock.c: Enzyme's __attribute__((enzyme_inactive_noblock))
 * (clang plugin route only: without the plugin clang drops the attribute).
 * Enzyme lowers it as enzyme_inactive: the function's result carries no
 * derivative, at every -O level (clang would inline the small function).
 *   scale(u) = 1 + u^2 (inactive_noblock)
 *   f(x) = x scale(x) + sin(x):  df/dx = scale(x) + cos(x)  (no 2x^2 term)
 * Forward mode gives the same. The FD reference freezes scale at its value
 * at the point; the true derivative (with 2x^2) is checked to differ.
 * Build with -DNO_AD to replace the AD calls by the expected values. */
#include <enzyme.h>
#include <math.h>
#include "check.h"

#ifdef NO_AD
#define NOBLOCK
#else
#define NOBLOCK __attribute__((enzyme_inactive_noblock))
#endif

NOBLOCK double noblock_scale(double u) { return 1.0 + u * u; }
static double f(double x) { return x * noblock_scale(x) + sin(x); }

static double frozen;
static double f_frozen(double x) { return x * frozen + sin(x); }

int main(void) {
  const double xs[3] = {0.7, -1.3, 2.1};
  for (int k = 0; k < 3; k++) {
    double x = xs[k];
    frozen = 1.0 + x * x;
    double want = frozen + cos(x);
    check_at("f x=%g", x);
#ifdef NO_AD
    double dx = want, tx = want;
#else
    double dx = __enzyme_autodiff((void *)f, x);
    double tx = __enzyme_fwddiff((void *)f, x, 1.0);
#endif
    check_close("reverse vs analytic (scale inactive)", dx, want, TOL_AD);
    check_close("forward vs analytic (scale inactive)", tx, want, TOL_AD);
    check_close("reverse vs FD (scale frozen)", dx, fd1(f_frozen, x), TOL_FD);
    check_close("full derivative has the extra 2x^2 term", fd1(f, x), want + 2 * x * x,
                TOL_FD);
  }
  return check_report();
}
