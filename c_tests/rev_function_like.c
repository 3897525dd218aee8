/* rev_function_like.c: `__enzyme_function_like`, the plain-C registration
 * of a function that behaves like a libm function:
 *     void *__enzyme_function_like_x[2] = {(void *)my_log1p, (void *)"log1p"};
 * Calls to my_log1p stay calls to it, and are differentiated with log1p's
 * rule, not through the body. The bodies here go through frexp and
 * ldexp, which have no derivative rule: differentiating them would be a
 * diagnostic, so passing proves the rule is used.
 *   f(x)    = my_log1p(x^2) * my_exp(0.5 x)
 *   f'(x)   = 2x/(1+x^2) e^{x/2} + 0.5 log1p(x^2) e^{x/2}
 * Reverse and forward mode, against the analytic derivative and central
 * differences; the registrations are removed from the output.
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

/* log(1 + x) through the exponent and mantissa of 1 + x */
__attribute__((noinline)) double my_log1p(double x) {
  int e;
  double m = frexp(1.0 + x, &e);
  return log(m) + e * M_LN2;
}
/* e^x = 2^k e^(x - k ln 2) */
__attribute__((noinline)) double my_exp(double x) {
  double k = nearbyint(x / M_LN2);
  return ldexp(exp(x - k * M_LN2), (int)k);
}
void *__enzyme_function_like_log1p[2] = {(void *)my_log1p, (void *)"log1p"};
void *__enzyme_function_like_exp[2] = {(void *)my_exp, (void *)"exp"};

static double f(double x) { return my_log1p(x * x) * my_exp(0.5 * x); }
static double df(double x) {
  double e = exp(0.5 * x);
  return 2.0 * x / (1.0 + x * x) * e + 0.5 * log1p(x * x) * e;
}

int main(void) {
  const double xs[4] = {0.3, -0.9, 1.7, 3.2};
  for (int i = 0; i < 4; i++) {
    double x = xs[i];
#ifdef NO_AD
    double r = df(x), t = df(x);
#else
    double r = __enzyme_autodiff((void *)f, x);
    double t = __enzyme_fwddiff((void *)f, x, 1.0);
#endif
    check_at("x=%g", x);
    check_close("primal", f(x), log1p(x * x) * exp(0.5 * x), TOL_AD);
    check_close("reverse", r, df(x), TOL_AD);
    check_close("reverse vs FD", r, fd1(f, x), TOL_FD);
    check_close("forward", t, df(x), TOL_AD);
    check_close("forward vs FD", t, fd1(f, x), TOL_FD);
  }
  return check_report();
}
