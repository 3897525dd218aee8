/* loop_pow.c: x^n by repeated multiplication, x an `out` scalar, n an
 * inactive int; the reverse sweep needs r before each multiplication (one
 * value per iteration, or a recomputation):
 *   p(x, n) = prod_{i<n} x = x^n           dp/dx = n x^(n-1)
 *   q(x, n) = sum_{i<n} r_i, r_0 = x, r_{i+1} = r_i * x * 0.9   (a chain
 *             whose values are also summed)  dq/dx = sum_i (i+1) 0.9^i x^i
 * n = 0 (no iteration: derivative 0), 1, 2, 7, 25, 60; x of both signs.
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

static double p(double x, int n) {
  double r = 1.0;
  for (int i = 0; i < n; i++)
    r *= x;
  return r;
}

static double q(double x, int n) {
  double r = x, s = 0.0;
  for (int i = 0; i < n; i++) {
    s += r;
    r = r * x * 0.9;
  }
  return s;
}

static double dp(double x, int n) { return n == 0 ? 0.0 : n * pow(x, n - 1); }
static double dq(double x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += (i + 1) * pow(0.9, i) * pow(x, i);
  return s;
}

static int g_n; /* the trip count, for the FD of one-argument wrappers */
static double p1(double x) { return p(x, g_n); }
static double q1(double x) { return q(x, g_n); }

int main(void) {
  const int ns[6] = {0, 1, 2, 7, 25, 60};
  const double xs[3] = {1.03, -0.97, 0.6};
  for (int t = 0; t < 6; t++)
    for (int k = 0; k < 3; k++) {
      int n = ns[t];
      double x = xs[k];
      g_n = n;
      check_at("p x=%g n=%d", x, n);
#ifdef NO_AD
      double d = dp(x, n);
#else
      double d = __enzyme_autodiff((void *)p, x, n);
#endif
      check_close("dx vs analytic", d, dp(x, n), TOL_AD);
      check_close("dx vs FD", d, fd1(p1, x), TOL_FD);

      check_at("q x=%g n=%d", x, n);
#ifdef NO_AD
      d = dq(x, n);
#else
      d = __enzyme_autodiff((void *)q, enzyme_out, x, enzyme_const, n);
#endif
      check_close("dx vs analytic", d, dq(x, n), TOL_AD);
      check_close("dx vs FD", d, fd1(q1, x), TOL_FD);
    }
  return check_report();
}
