/* rev_exp_log_f32.c: expf, exp2f, expm1f, logf, log2f, log10f, log1pf. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

static float f_exp(float x) { return expf(0.5f * x); }
static double d_exp(double x) { return 0.5 * exp(0.5 * x); }
static float f_exp2(float x) { return exp2f(1.5f * x); }
static double d_exp2(double x) { return 1.5 * M_LN2 * exp2(1.5 * x); }
static float f_expm1(float x) { return expm1f(0.75f * x); }
static double d_expm1(double x) { return 0.75 * exp(0.75 * x); }
static float f_log(float x) { return logf(x * x + 1.0f); }
static double d_log(double x) { return 2.0 * x / (x * x + 1.0); }
static float f_log2(float x) { return log2f(x * x + 1.0f); }
static double d_log2(double x) { return 2.0 * x / ((x * x + 1.0) * M_LN2); }
static float f_log10(float x) { return log10f(3.0f + x); }
static double d_log10(double x) { return 1.0 / ((3.0 + x) * M_LN10); }
static float f_log1p(float x) { return log1pf(0.5f * x); }
static double d_log1p(double x) { return 0.5 / (1.0 + 0.5 * x); }

int main(void) {
  const float xs[] = {0.4f, -1.1f, 1.7f};
  for (int i = 0; i < 3; i++) {
    CHECK_GRAD1F(f_exp, d_exp, xs[i]);
    CHECK_GRAD1F(f_exp2, d_exp2, xs[i]);
    CHECK_GRAD1F(f_expm1, d_expm1, xs[i]);
    CHECK_GRAD1F(f_log, d_log, xs[i]);
    CHECK_GRAD1F(f_log2, d_log2, xs[i]);
    CHECK_GRAD1F(f_log10, d_log10, xs[i]);
    CHECK_GRAD1F(f_log1p, d_log1p, xs[i]);
  }
  return check_report();
}
