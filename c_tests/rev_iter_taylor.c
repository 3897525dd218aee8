/* rev_iter_taylor.c: `__enzyme_iter(N, M)`, an integer that is N in primal
 * code, N + M inside a derivative, N + 2M inside the derivative of a
 * derivative, ...: here the number of terms of a truncated Taylor series,
 * so that every derivative keeps the accuracy of the primal.
 *   taylor_exp(x) = sum_{k < n} x^k / k!,            n = __enzyme_iter(5, 1)
 *   taylor_sin(x) = sum_{k <= d} sin^(k)(0) x^k / k!, d = __enzyme_iter(7, 1)
 * The L-th derivative of the series with n + L terms (degree d + L) is the
 * L-th derivative of exp (sin) truncated like the primal: T5(x) for exp at
 * every level, and the degree-7 truncation of sin^(L)(x). A count that did
 * not grow would lose one term per level (off by x^4/4! for exp).
 * Derivatives nested up to the 4th: reverse, then forward over it, then
 * forward over that, ... (and reverse over reverse for the 2nd); each
 * checked against the analytic truncated series and against central
 * differences of the previous level's analytic series with the count that
 * level sees.
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

#ifdef NO_AD
/* primal code only: the level is 0 */
static int no_ad_iter(int n, int m) { return n + 0 * m; }
#define __enzyme_iter no_ad_iter
#endif

static double taylor_exp(double x) {
  int n = __enzyme_iter(5, 1);
  double term = 1.0, s = 0.0;
  for (int k = 0; k < n; k++) {
    s += term;
    term *= x / (k + 1);
  }
  return s;
}

/* sin^(k)(0) */
static double sin_coef(int k) {
  static const double c[4] = {0.0, 1.0, 0.0, -1.0};
  return c[k & 3];
}

static double taylor_sin(double x) {
  int d = __enzyme_iter(7, 1);
  double term = 1.0, s = 0.0;
  for (int k = 0; k <= d; k++) {
    s += sin_coef(k) * term;
    term *= x / (k + 1);
  }
  return s;
}

/* The analytic references, with explicit counts. */
static double exp_series(double x, int n) {
  double term = 1.0, s = 0.0;
  for (int k = 0; k < n; k++) {
    s += term;
    term *= x / (k + 1);
  }
  return s;
}
/* the L-th derivative of sin, truncated to degree d */
static double sin_series(double x, int L, int d) {
  double term = 1.0, s = 0.0;
  for (int k = 0; k <= d; k++) {
    s += sin_coef(k + L) * term;
    term *= x / (k + 1);
  }
  return s;
}
static double exp6(double x) { return exp_series(x, 6); }
static int fd_level;
static double sin_prev8(double x) { return sin_series(x, fd_level - 1, 8); }

#ifdef NO_AD
static double e1(double x) { return exp_series(x, 5); }
static double e2(double x) { return exp_series(x, 5); }
static double e3(double x) { return exp_series(x, 5); }
static double e4(double x) { return exp_series(x, 5); }
static double e2r(double x) { return exp_series(x, 5); }
static double s1(double x) { return sin_series(x, 1, 7); }
static double s2(double x) { return sin_series(x, 2, 7); }
static double s3(double x) { return sin_series(x, 3, 7); }
static double s4(double x) { return sin_series(x, 4, 7); }
#else
static double e1(double x) { return __enzyme_autodiff((void *)taylor_exp, x); }
static double e2(double x) { return __enzyme_fwddiff((void *)e1, x, 1.0); }
static double e3(double x) { return __enzyme_fwddiff((void *)e2, x, 1.0); }
static double e4(double x) { return __enzyme_fwddiff((void *)e3, x, 1.0); }
static double e2r(double x) { return __enzyme_autodiff((void *)e1, x); }
static double s1(double x) { return __enzyme_autodiff((void *)taylor_sin, x); }
static double s2(double x) { return __enzyme_fwddiff((void *)s1, x, 1.0); }
static double s3(double x) { return __enzyme_fwddiff((void *)s2, x, 1.0); }
static double s4(double x) { return __enzyme_fwddiff((void *)s3, x, 1.0); }
#endif

int main(void) {
  const double xs[3] = {0.4, -0.9, 1.3};
  double (*es[4])(double) = {e1, e2, e3, e4};
  double (*ss[4])(double) = {s1, s2, s3, s4};
  for (int i = 0; i < 3; i++) {
    double x = xs[i];
    check_at("x=%g primal", x);
    check_close("taylor_exp: 5 terms", taylor_exp(x), exp_series(x, 5), TOL_AD);
    check_close("taylor_sin: degree 7", taylor_sin(x), sin_series(x, 0, 7),
                TOL_AD);
    for (int L = 1; L <= 4; L++) {
      check_at("x=%g level %d", x, L);
      double e = es[L - 1](x);
      check_close("exp: T5", e, exp_series(x, 5), TOL_AD);
      check_close("exp vs FD of T6", e, fd1(exp6, x), TOL_FD);
      double s = ss[L - 1](x);
      fd_level = L;
      check_close("sin: degree 7", s, sin_series(x, L, 7), TOL_AD);
      check_close("sin vs FD", s, fd1(sin_prev8, x), TOL_FD);
    }
    check_at("x=%g reverse over reverse", x);
    check_close("exp: T5", e2r(x), exp_series(x, 5), TOL_AD);
  }
  return check_report();
}
