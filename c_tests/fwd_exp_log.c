/* fwd_exp_log.c: forward mode of exp, exp2, expm1, log, log2, log10, log1p
 * (double), one at a time and all combined, with unit and random tangents;
 * plus a two-argument function along random directions.
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include <stdlib.h>
#include "enzyme.h"
#include "check.h"

static double f_exp(double x) { return exp(0.5 * x); }
static double d_exp(double x) { return 0.5 * exp(0.5 * x); }
static double f_exp2(double x) { return exp2(1.5 * x); }
static double d_exp2(double x) { return 1.5 * M_LN2 * exp2(1.5 * x); }
static double f_expm1(double x) { return expm1(0.8 * x); }
static double d_expm1(double x) { return 0.8 * exp(0.8 * x); }
static double f_log(double x) { return log(x * x + 1.0); }
static double d_log(double x) { return 2.0 * x / (x * x + 1.0); }
static double f_log2(double x) { return log2(x * x + 1.0); }
static double d_log2(double x) { return 2.0 * x / ((x * x + 1.0) * M_LN2); }
static double f_log10(double x) { return log10(3.0 + x); }
static double d_log10(double x) { return 1.0 / ((3.0 + x) * M_LN10); }
static double f_log1p(double x) { return log1p(0.5 * x); }
static double d_log1p(double x) { return 0.5 / (1.0 + 0.5 * x); }
static double f_all(double x) {
  return exp(x) * log1p(x * x) - log10(x + 2.0) * exp2(x) + expm1(x) / log2(x + 3.0) + log(x + 2.0);
}
static double d_all(double x) {
  double l2 = log2(x + 3.0);
  return exp(x) * log1p(x * x) + exp(x) * 2.0 * x / (1.0 + x * x)
       - exp2(x) / ((x + 2.0) * M_LN10) - log10(x + 2.0) * M_LN2 * exp2(x)
       + exp(x) / l2 - expm1(x) / ((x + 3.0) * M_LN2 * l2 * l2) + 1.0 / (x + 2.0);
}

/* h(x, y) = exp(x y) + log(1 + x^2 + y^2) */
static double h(double x, double y) { return exp(x * y) + log(1.0 + x * x + y * y); }
static double h_v(double *v) { return h(v[0], v[1]); }
static double h_dir(double x, double y, double vx, double vy) {
  double e = exp(x * y), q = 1.0 + x * x + y * y;
  return (y * e + 2.0 * x / q) * vx + (x * e + 2.0 * y / q) * vy;
}

int main(void) {
  const double xs[] = {0.4, -1.1, 1.7};
  check_seed(23);
  for (int i = 0; i < 3; i++) {
    double dx = 2.0 * check_rand();
    CHECK_FWD1(f_exp, d_exp, xs[i], dx);
    CHECK_FWD1(f_exp2, d_exp2, xs[i], dx);
    CHECK_FWD1(f_expm1, d_expm1, xs[i], dx);
    CHECK_FWD1(f_log, d_log, xs[i], dx);
    CHECK_FWD1(f_log2, d_log2, xs[i], dx);
    CHECK_FWD1(f_log10, d_log10, xs[i], dx);
    CHECK_FWD1(f_log1p, d_log1p, xs[i], dx);
    CHECK_FWD1(f_all, d_all, xs[i], dx);
    CHECK_FWD1(f_all, d_all, xs[i], 1.0);
  }
  const double p[3][2] = {{0.3, 0.9}, {-1.2, 0.5}, {0.8, -1.4}};
  for (int i = 0; i < 3; i++) {
    double pt[2] = {p[i][0], p[i][1]}, v[2];
    check_rand_dir(v, 2);
    check_at("h x=%g y=%g", pt[0], pt[1]);
#ifdef NO_AD
    double t = h_dir(pt[0], pt[1], v[0], v[1]);
#else
    double t = __enzyme_fwddiff((void *)h, pt[0], v[0], pt[1], v[1]);
#endif
    check_close("tangent vs analytic", t, h_dir(pt[0], pt[1], v[0], v[1]), TOL_AD);
    check_close("tangent vs FD", t, fddir(h_v, pt, v, 2), TOL_FD);
  }
  return check_report();
}
