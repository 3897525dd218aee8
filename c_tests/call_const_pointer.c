/* call_const_pointer.c: a call that passes a pointer the user declared
 * enzyme_const (weights) next to active data, to a callee that is
 * differentiated on its own (noinline here; every call with --no-inline):
 * the weights stay const in the callee's derivative, no shadow is asked
 * for. Also a const pointer reached through a GEP of the const argument,
 * and a recursive callee taking it.
 *   wdot(a, w, n)   = sum_i w_i a_i^2                  d/da_i = 2 w_i a_i
 *   f(a, w, n)      = wdot(a, w, n) * wdot(a, w + n, n)   (w holds 2n)
 *   r(a, w, n)      = n == 0 ? 0 : w_0 sin(a_0) + r(a + 1, w + 1, n - 1)
 *                                                  d/da_i = w_i cos(a_i)
 * Each gradient is checked against the analytic one and central
 * differences. Build with -DNO_AD to use the analytic gradients. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

#define N 6

__attribute__((noinline)) static double wdot(const double *a, const double *w, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += w[i] * a[i] * a[i];
  return s;
}

__attribute__((noinline)) static double f(const double *a, const double *w, int n) {
  return wdot(a, w, n) * wdot(a, w + n, n);
}

__attribute__((noinline)) static double r(const double *a, const double *w, int n) {
  if (n == 0)
    return 0.0;
  return w[0] * sin(a[0]) + r(a + 1, w + 1, n - 1);
}

static double W[2 * N];
static double f_v(const double *a) { return f(a, W, N); }
static double r_v(const double *a) { return r(a, W, N); }

int main(void) {
  for (int i = 0; i < 2 * N; i++)
    W[i] = 0.5 + 0.25 * i;
  for (int k = 0; k < 3; k++) {
    double a[N], da[N], want[N];
    for (int i = 0; i < N; i++)
      a[i] = 0.3 * (i + 1) - 0.4 * k, da[i] = 0.0;
    check_at("f k=%d", k);
    double p = wdot(a, W, N), q = wdot(a, W + N, N);
    for (int i = 0; i < N; i++)
      want[i] = 2.0 * W[i] * a[i] * q + p * 2.0 * W[N + i] * a[i];
#ifdef NO_AD
    for (int i = 0; i < N; i++)
      da[i] = want[i];
#else
    __enzyme_autodiff_v((void *)f, enzyme_dup, a, da, enzyme_const, W, enzyme_const, N);
#endif
    for (int i = 0; i < N; i++) {
      check_close("da vs analytic", da[i], want[i], TOL_AD);
      check_close("da vs FD", da[i], fdn(f_v, a, N, i), TOL_FD);
    }
    check_at("r k=%d", k);
    for (int i = 0; i < N; i++)
      da[i] = 0.0, want[i] = W[i] * cos(a[i]);
#ifdef NO_AD
    for (int i = 0; i < N; i++)
      da[i] = want[i];
#else
    __enzyme_autodiff_v((void *)r, enzyme_dup, a, da, enzyme_const, W, enzyme_const, N);
#endif
    for (int i = 0; i < N; i++) {
      check_close("da vs analytic", da[i], want[i], TOL_AD);
      check_close("da vs FD", da[i], fdn(r_v, a, N, i), TOL_FD);
    }
  }
  return check_report();
}
