/* rev_exp_log.c: exp, exp2, expm1, log, log2, log10, log1p (double). */
#include <math.h>
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
/* all of them at once */
static double f_all(double x) {
  return exp(x) * log1p(x * x) - log10(x + 2.0) * exp2(x) + expm1(x) / log2(x + 3.0) + log(x + 2.0);
}
static double d_all(double x) {
  double l2 = log2(x + 3.0);
  return exp(x) * log1p(x * x) + exp(x) * 2.0 * x / (1.0 + x * x)
       - exp2(x) / ((x + 2.0) * M_LN10) - log10(x + 2.0) * M_LN2 * exp2(x)
       + exp(x) / l2 - expm1(x) / ((x + 3.0) * M_LN2 * l2 * l2) + 1.0 / (x + 2.0);
}

int main(void) {
  const double xs[] = {0.4, -1.1, 1.7};
  for (int i = 0; i < 3; i++) {
    CHECK_GRAD1(f_exp, d_exp, xs[i]);
    CHECK_GRAD1(f_exp2, d_exp2, xs[i]);
    CHECK_GRAD1(f_expm1, d_expm1, xs[i]);
    CHECK_GRAD1(f_log, d_log, xs[i]);
    CHECK_GRAD1(f_log2, d_log2, xs[i]);
    CHECK_GRAD1(f_log10, d_log10, xs[i]);
    CHECK_GRAD1(f_log1p, d_log1p, xs[i]);
    CHECK_GRAD1(f_all, d_all, xs[i]);
  }
  return check_report();
}
