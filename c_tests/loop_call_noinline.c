/* loop_call_noinline.c: loops whose bodies call differentiable functions
 * that stay calls (noinline, external linkage); each call's own tape (or
 * recomputation) is needed once per iteration in the reverse sweep.
 *   chain(x, n):   s_0 = 0.5, s_(i+1) = g(s_i, x_i), returns s_n, where
 *                  g(s, x) = s cos x + 0.1 x^2 + 0.05 s^2 (scalar in/out)
 *   pairs(x, n):   sum_(i<n-1) (i + 1) h(&x[i]),  h(p) = p0 sin(p1)
 *                  (a pointer into the dup array, read-only callee)
 *   accum(x, n):   acc = 1; upd(&acc, x_i) for each i; returns acc, where
 *                  upd(a, v): *a = *a (0.8 + 0.1 sin v) + 0.2 v (the callee
 *                  overwrites the caller's stack slot every iteration)
 * n = 30. References: hand-written reverse sweeps over recorded trajectories.
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

__attribute__((noinline)) double loop_call_g(double s, double x) {
  return s * cos(x) + 0.1 * x * x + 0.05 * s * s;
}
__attribute__((noinline)) double loop_call_h(double *p) {
  return p[0] * sin(p[1]);
}
__attribute__((noinline)) void loop_call_upd(double *a, double v) {
  *a = *a * (0.8 + 0.1 * sin(v)) + 0.2 * v;
}

static double chain(double *x, int n) {
  double s = 0.5;
  for (int i = 0; i < n; i++)
    s = loop_call_g(s, x[i]);
  return s;
}
static double pairs(double *x, int n) {
  double r = 0.0;
  for (int i = 0; i < n - 1; i++)
    r += (i + 1) * loop_call_h(&x[i]);
  return r;
}
static double accum(double *x, int n) {
  double acc = 1.0;
  for (int i = 0; i < n; i++)
    loop_call_upd(&acc, x[i]);
  return acc;
}

#define N 30

static void chain_grad(const double *x, int n, double *g) {
  double s[N + 1], ds = 1.0;
  s[0] = 0.5;
  for (int i = 0; i < n; i++)
    s[i + 1] = s[i] * cos(x[i]) + 0.1 * x[i] * x[i] + 0.05 * s[i] * s[i];
  for (int i = n - 1; i >= 0; i--) {
    g[i] = ds * (-s[i] * sin(x[i]) + 0.2 * x[i]);
    ds *= cos(x[i]) + 0.1 * s[i];
  }
}
static void pairs_grad(const double *x, int n, double *g) {
  for (int i = 0; i < n; i++)
    g[i] = 0.0;
  for (int i = 0; i < n - 1; i++) {
    g[i] += (i + 1) * sin(x[i + 1]);
    g[i + 1] += (i + 1) * x[i] * cos(x[i + 1]);
  }
}
static void accum_grad(const double *x, int n, double *g) {
  double a[N + 1], da = 1.0;
  a[0] = 1.0;
  for (int i = 0; i < n; i++)
    a[i + 1] = a[i] * (0.8 + 0.1 * sin(x[i])) + 0.2 * x[i];
  for (int i = n - 1; i >= 0; i--) {
    g[i] = da * (a[i] * 0.1 * cos(x[i]) + 0.2);
    da *= 0.8 + 0.1 * sin(x[i]);
  }
}

#ifdef NO_AD
static void emul(void (*grad)(const double *, int, double *), double *x,
                 double *dx, int n) {
  double g[N];
  grad(x, n, g);
  for (int i = 0; i < n; i++)
    dx[i] += g[i];
}
#define AUTODIFF(FN, x, dx, n) emul(FN##_grad, x, dx, n)
#else
#define AUTODIFF(FN, x, dx, n)                                                 \
  __enzyme_autodiff_v((void *)FN, enzyme_dup, x, dx, n)
#endif

#define DEFINE_TEST(FN)                                                        \
  static void test_##FN(const double *x0, int p) {                             \
    double x[N], dx[N] = {0}, g[N], fd[N];                                     \
    for (int i = 0; i < N; i++)                                                \
      x[i] = x0[i];                                                            \
    FN##_grad(x, N, g);                                                        \
    check_at(#FN " point %d", p);                                              \
    AUTODIFF(FN, x, dx, N);                                                    \
    check_close_arr("dx vs reference", dx, g, N, TOL_AD);                      \
    for (int i = 0; i < N; i++)                                                \
      fd[i] = fdpn(FN, x0, N, i);                                              \
    check_close_arr("dx vs FD", dx, fd, N, TOL_FD);                            \
  }

DEFINE_TEST(chain)
DEFINE_TEST(pairs)
DEFINE_TEST(accum)

int main(void) {
  for (int p = 0; p < 2; p++) {
    double x0[N];
    for (int i = 0; i < N; i++)
      x0[i] = sin(0.9 * i + 1.3 * p) + 0.3;
    test_chain(x0, p);
    test_pairs(x0, p);
    test_accum(x0, p);
  }
  return check_report();
}
