/* loop_do_while.c: do-while loops (the body runs before the first test; the
 * loop header is the body).
 *   horner(c, x, n): p = 0; i = n; do { i--; p = p x + c_i; } while (i > 0)
 *     = sum_i c_i x^i, c dup, x `out`: dc_i = x^i, dx = sum_i i c_i x^(i-1).
 *     n = 1 (one iteration), 6, 30.
 *   expser(x): the Taylor series of exp(x), term_k = term_(k-1) x / k, summed
 *     until |term| <= 1e-16 |s| (a data-dependent trip count, 15 to 27
 *     iterations here): d/dx = exp(x) to rounding.
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

static double horner(double *c, double x, int n) {
  double p = 0.0;
  int i = n;
  do {
    i--;
    p = p * x + c[i];
  } while (i > 0);
  return p;
}

static double expser(double x) {
  double term = 1.0, s = 1.0;
  int k = 1;
  do {
    term *= x / k;
    s += term;
    k++;
  } while (fabs(term) > 1e-16 * fabs(s));
  return s;
}

#define N 30

static double *g_c;
static int g_n;
static double g_x;
static double horner_x(double x) { return horner(g_c, x, g_n); }
static double horner_c(double *c, int n) { return horner(c, g_x, n); }

#ifdef NO_AD
static double emul_horner(double *c, double *dc, double x, int n) {
  double dx = 0.0;
  for (int i = 0; i < n; i++) {
    dc[i] += pow(x, i);
    if (i > 0)
      dx += i * c[i] * pow(x, i - 1);
  }
  return dx;
}
#endif

int main(void) {
  const int ns[3] = {1, 6, 30};
  const double xs[2] = {0.93, -1.07};
  for (int t = 0; t < 3; t++)
    for (int q = 0; q < 2; q++) {
      int n = ns[t];
      double x = xs[q], c[N], dc[N] = {0}, gc[N], fc[N], gx = 0.0;
      for (int i = 0; i < n; i++)
        c[i] = cos(1.3 * i + q) / (1.0 + 0.1 * i);
      for (int i = 0; i < n; i++) {
        gc[i] = pow(x, i);
        if (i > 0)
          gx += i * c[i] * pow(x, i - 1);
      }
      g_c = c;
      g_n = n;
      g_x = x;
      check_at("horner n=%d x=%g", n, x);
#ifdef NO_AD
      double dx = emul_horner(c, dc, x, n);
#else
      double dx = __enzyme_autodiff((void *)horner, enzyme_dup, c, dc, x, n);
#endif
      check_close_arr("dc vs analytic", dc, gc, n, TOL_AD);
      check_close("dx vs analytic", dx, gx, TOL_AD);
      for (int i = 0; i < n; i++)
        fc[i] = fdpn(horner_c, c, n, i);
      check_close_arr("dc vs FD", dc, fc, n, TOL_FD);
      check_close("dx vs FD", dx, fd1(horner_x, x), TOL_FD);
    }

  const double es[5] = {0.5, 1.7, 3.0, -0.8, -2.2};
  for (int p = 0; p < 5; p++) {
    double x = es[p];
    check_at("expser x=%g", x);
#ifdef NO_AD
    double d = exp(x);
#else
    double d = __enzyme_autodiff((void *)expser, x);
#endif
    check_close("dx vs analytic", d, exp(x), TOL_AD);
    check_close("dx vs FD", d, fd1(expser, x), TOL_FD);
  }
  return check_report();
}
