/* custom_no_tape.c: a registered gradient whose augmented forward returns
 * void (it keeps no tape) and whose reverse therefore takes none, as in
 * Enzyme's convention ("the tape, if provided"):
 *   inv_sqrt(x): 1/sqrt(x) from an integer bit-trick seed refined by three
 *   Newton steps (type punning enz-rs would refuse to differentiate);
 *   registered reverse: d/dx = -inv_sqrt(x) / (2x)
 *   g(a, n) = sum_i inv_sqrt(a_i^2 + 1)   dg/da_i = -a_i (a_i^2+1)^(-3/2)
 * Checked against the analytic derivative and central finite differences;
 * the reverse rule counts its calls (one per element). */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "enzyme.h"
#include "check.h"

__attribute__((noinline)) double inv_sqrt(double x) {
  int64_t i;
  double y = x;
  memcpy(&i, &y, sizeof i);
  i = 0x5fe6eb50c7b537a9 - (i >> 1);
  memcpy(&y, &i, sizeof y);
  for (int k = 0; k < 3; k++)
    y = y * (1.5 - 0.5 * x * y * y);
  return y;
}

static int rev_calls;
void aug_inv_sqrt(double x) { (void)x; }
double rev_inv_sqrt(double x, double dret) {
  rev_calls++;
  return -dret * inv_sqrt(x) / (2 * x);
}
void *__enzyme_register_gradient_inv_sqrt[3] = {(void *)inv_sqrt, (void *)aug_inv_sqrt,
                                                (void *)rev_inv_sqrt};

double g(const double *a, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += inv_sqrt(a[i] * a[i] + 1.0);
  return s;
}

#define N 4
static double g_v(const double *a) { return g(a, N); }

int main(void) {
  double a[N] = {0.3, -1.2, 2.5, 0.05}, da[N] = {0};
  rev_calls = 0;
#ifdef NO_AD
  for (int i = 0; i < N; i++) {
    da[i] = -a[i] * pow(a[i] * a[i] + 1, -1.5);
    rev_calls++;
  }
#else
  __enzyme_autodiff((void *)g, a, da, enzyme_const, N);
#endif
  for (int i = 0; i < N; i++) {
    check_at("i=%d", i);
    double want = -a[i] * pow(a[i] * a[i] + 1, -1.5);
    check_close("vs analytic", da[i], want, 1e-8);
    check_close("vs FD", da[i], fdn(g_v, a, N, i), TOL_FD);
  }
  check_at("custom rule use");
  check_close("reverse calls", rev_calls, N, 0);
  return check_report();
}
