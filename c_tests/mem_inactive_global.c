/* mem_inactive_global.c: `__enzyme_inactive_global`, the plain-C
 * declaration that a global's memory carries no derivative:
 *     void *__enzyme_inactive_global = &g;          (one global)
 *     void *__enzyme_inactive_global_x[2] = {&a, &b}; (several)
 * What differentiated code stores there is dropped and what it reads back
 * is a constant (Enzyme's semantics: the user says it is inactive).
 *   f(x) = y * x + prev,  where y = x sin(x) is first stored in the
 *          inactive global `last` and read back from it (volatile), and
 *          prev is the previous call's y read from there (a constant)
 * so df/dx = y (the read-back y is frozen): checked against y and against
 * central differences of f with the read-back value frozen (f_frozen);
 * the full derivative y + x y' (what an active global would give) differs.
 * Also: a counter in a second inactive global. Reverse and forward mode.
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

double last[2];
double hits;
void *__enzyme_inactive_global = &last;
void *__enzyme_inactive_global_counter[1] = {&hits};

__attribute__((noinline)) double f(double x) {
  double prev = last[1];
  last[1] = x * sin(x);
  hits += 1.0;
  /* read back through a volatile access, so that no optimisation forwards
   * the stored value (which would carry its derivative in a register) */
  return *(volatile double *)&last[1] * x + prev;
}

static double frozen_y, frozen_prev;
static double f_frozen(double x) { return frozen_y * x + frozen_prev; }

int main(void) {
  const double xs[4] = {0.4, -1.1, 2.3, 0.9};
  for (int i = 0; i < 4; i++) {
    double x = xs[i];
    double y = x * sin(x);
    frozen_y = y;
    frozen_prev = last[1];
#ifdef NO_AD
    double r = y, t = y;
    last[1] = y;
#else
    double r = __enzyme_autodiff((void *)f, x);
    last[1] = frozen_prev;
    double t = __enzyme_fwddiff((void *)f, x, 1.0);
#endif
    check_at("x=%g", x);
    check_close("reverse", r, y, TOL_AD);
    check_close("reverse vs FD (frozen)", r, fd1(f_frozen, x), TOL_FD);
    check_close("forward", t, y, TOL_AD);
    check_close("forward vs FD (frozen)", t, fd1(f_frozen, x), TOL_FD);
    check_close("the primal ran", last[1], y, TOL_AD);
  }
  return check_report();
}
