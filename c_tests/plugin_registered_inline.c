/* plugin_registered_inline.c: registrations (the globals plain C can
 * write) on small functions clang inlines at -O1..-O3, through the plugin
 * route only: its pipeline-start pass keeps them from being inlined
 * before enz-rs runs, so the registrations still apply (the CLI runs
 * after the compiler and can only warn). Checked at -O0..-O3:
 *   twice(x) = 2x registered like log1p: f1(x) = twice(x) + x,
 *     d/dx = 1/(1+x) + 1 (not 3);
 *   sq(x) = x^2 with a registered gradient returning x dret (a
 *     deliberate half of 2x): f2(x) = sq(x) + x, d/dx = x + 1 (the rule
 *     was used; the body would give 2x + 1).
 * Build with -DNO_AD to replace the AD calls by the expected values. */
#include <enzyme.h>
#include <math.h>
#include <stddef.h>
#include "check.h"

double twice(double x) { return 2 * x; }
void *__enzyme_function_like_twice[2] = {(void *)twice, (void *)"log1p"};
static double f1(double x) { return twice(x) + x; }

double sq(double x) { return x * x; }
void *aug_half(double x) {
  (void)x;
  return NULL;
}
double rev_half(double x, double dret, void *tape) {
  (void)tape;
  return x * dret;
}
void *__enzyme_register_gradient_sq[3] = {(void *)sq, (void *)aug_half, (void *)rev_half};
static double f2(double x) { return sq(x) + x; }

int main(void) {
  const double xs[3] = {0.2, 1.1, 2.5};
  for (int k = 0; k < 3; k++) {
    double x = xs[k];
    check_at("x=%g", x);
#ifdef NO_AD
    double d1 = 1 / (1 + x) + 1, d2 = x + 1;
#else
    double d1 = __enzyme_autodiff((void *)f1, x);
    double d2 = __enzyme_autodiff((void *)f2, x);
#endif
    check_close("function-like log1p", d1, 1 / (1 + x) + 1, TOL_AD);
    check_close("registered gradient", d2, x + 1, TOL_AD);
  }
  return check_report();
}
