/* rev_libm_special.c: inverse hyperbolic functions, erfc, exp10, fdim,
 * remainder and the Bessel functions j0, j1, y0, y1 (and asinhf, acoshf,
 * atanhf, erfcf), reverse and forward mode:
 *   asinh' = 1/sqrt(x^2+1)   acosh' = 1/sqrt(x^2-1)   atanh' = 1/(1-x^2)
 *   erfc' = -2/sqrt(pi) e^(-x^2)   exp10' = ln(10) 10^x
 *   fdim(a, b) = max(a - b, 0)     remainder(a, b) = a - b rint(a / b)
 *   j0' = -j1   j1' = j0 - j1/x (1/2 at 0)   y0' = -y1   y1' = y0 - y1/x
 *   lgamma' = psi   tgamma' = tgamma psi (psi, the digamma function, is
 *   checked here by its series psi(x) = -gamma + sum_k (1/(k+1) - 1/(k+x)),
 *   summed to 2e6 terms and the remainder's integral, and its reflection)
 * and lgammaf, tgammaf; lgamma_r, whose sign output the result uses.
 * Checked against these derivatives and central finite differences. */
#define _GNU_SOURCE
#include <math.h>
#include "enzyme.h"
#include "check.h"

static double hyp(double x) { return asinh(x * x) + 0.5 * atanh(0.4 * x) + acosh(x * x + 1.5); }
static double dhyp(double x) {
  double u = x * x + 1.5;
  return 2 * x / sqrt(x * x * x * x + 1) + 0.2 / (1 - 0.16 * x * x) + 2 * x / sqrt(u * u - 1);
}
static double ex(double x) { return erfc(x) * exp10(0.3 * x); }
static double dex(double x) {
  return -M_2_SQRTPI * exp(-x * x) * exp10(0.3 * x) + erfc(x) * 0.3 * M_LN10 * exp10(0.3 * x);
}
static double bes(double x) { return j0(x) + 2 * j1(x) + y0(x * x + 0.5) - y1(x + 3); }
static double dbes(double x) {
  double u = x * x + 0.5, v = x + 3;
  double dj1 = x == 0 ? 0.5 : j0(x) - j1(x) / x;
  return -j1(x) + 2 * dj1 - y1(u) * 2 * x - (y0(v) - y1(v) / v);
}
static double psi(double x) {
  if (x < 0.5)
    return psi(1 - x) - M_PI / tan(M_PI * x);
  double s = -0.57721566490153286, n = 2e6;
  for (double k = 0; k < n; k++)
    s += 1 / (k + 1) - 1 / (k + x);
  return s + log((n + x) / (n + 1)) - 0.5 / (n + x) + 0.5 / (n + 1);
}
static double gam(double x) { return lgamma(x * x + 0.3) + 0.5 * tgamma(x + 2.5); }
static double dgam(double x) {
  double u = x * x + 0.3, v = x + 2.5;
  return psi(u) * 2 * x + 0.5 * tgamma(v) * psi(v);
}
static double gamr(double x) { return tgamma(x - 0.5) + lgamma(0.5 - x); } /* x - 0.5 < 0 at x < 0.5 */
static double dgamr(double x) { return tgamma(x - 0.5) * psi(x - 0.5) - psi(0.5 - x); }
/* lgamma_r writes the sign of Gamma through its pointer: -1 on (-1, 0)
 * and (-3, -2), +1 on (-2, -1) and above 0; the result uses it. */
static double gamrr(double x) {
  int s1, s2;
  double l1 = lgamma_r(x - 0.5, &s1), l2 = lgamma_r(0.5 - x, &s2);
  return l1 * s1 + l2 * s2 + s1;
}
static double dgamrr(double x) {
  int s1 = tgamma(x - 0.5) < 0 ? -1 : 1, s2 = tgamma(0.5 - x) < 0 ? -1 : 1;
  return psi(x - 0.5) * s1 - psi(0.5 - x) * s2;
}
static float gamf(float x) { return lgammaf(x * x + 1.5f) * tgammaf(0.5f * x + 1.7f); }
static double dgamf(double x) {
  double u = x * x + 1.5, v = 0.5 * x + 1.7;
  return psi(u) * 2 * x * tgamma(v) + lgamma(u) * tgamma(v) * psi(v) * 0.5;
}
/* fdim and remainder of two arguments (given as an array). */
static double two(const double *v) { return fdim(v[0], v[1]) * 3 + remainder(v[0] * 2, v[1]); }
static float hypf(float x) { return asinhf(x) * acoshf(x * x + 2) + atanhf(0.5f * x) * erfcf(x); }
static double dhypf(double x) {
  double u = x * x + 2;
  return acosh(u) / sqrt(x * x + 1) + asinh(x) * 2 * x / sqrt(u * u - 1) +
         0.5 / (1 - 0.25 * x * x) * erfc(x) - atanh(0.5 * x) * M_2_SQRTPI * exp(-x * x);
}

#define CHECK_BOTH(F, DF, X)                                                   \
  do {                                                                         \
    CHECK_GRAD1(F, DF, X);                                                     \
    double t_ = __enzyme_fwddiff((void *)(F), (double)(X), 1.0);               \
    check_close("forward vs analytic", t_, (DF)(X), TOL_AD);                   \
  } while (0)

int main(void) {
  const double xs[] = {0.7, -1.2, 0.0, 1.9};
  for (int i = 0; i < 4; i++) {
    CHECK_BOTH(hyp, dhyp, xs[i]);
    CHECK_BOTH(ex, dex, xs[i]);
    CHECK_BOTH(bes, dbes, xs[i]);
    CHECK_GRAD1F(hypf, dhypf, xs[i]);
    CHECK_BOTH(gam, dgam, xs[i]);
    CHECK_GRAD1F(gamf, dgamf, xs[i]);
  }
  const double ns[] = {0.21, -0.35, -1.7};
  for (int i = 0; i < 3; i++)
    CHECK_BOTH(gamr, dgamr, ns[i]);
  const double rs[] = {0.21, -0.35, -1.7, -1.2, 2.3};
  for (int i = 0; i < 5; i++)
    CHECK_BOTH(gamrr, dgamrr, rs[i]);
  const double p[4][2] = {{1.5, 0.8}, {-0.7, 1.2}, {2.9, 0.7}, {0.4, -1.3}};
  for (int i = 0; i < 4; i++) {
    double v[2] = {p[i][0], p[i][1]}, d[2] = {0, 0};
    double a = v[0], b = v[1];
    double wa = (a > b ? 3.0 : 0.0) + 2.0, wb = (a > b ? -3.0 : 0.0) - rint(2 * a / b);
    check_at("fdim+remainder a=%g b=%g", a, b);
    __enzyme_autodiff((void *)two, v, d);
    check_close("da vs analytic", d[0], wa, TOL_AD);
    check_close("db vs analytic", d[1], wb, TOL_AD);
    check_close("da vs FD", d[0], fdn(two, v, 2, 0), TOL_FD);
    check_close("db vs FD", d[1], fdn(two, v, 2, 1), TOL_FD);
    double t[2] = {0, 1};
    double tb = __enzyme_fwddiff((void *)two, v, t);
    check_close("forward db vs analytic", tb, wb, TOL_AD);
  }
  return check_report();
}
