/* debug_info_locals.c: compiled with -g. At -O1 and above clang tracks
 * assignments to locals (DIAssignID attachments linked to #dbg_assign
 * records of their function); derivatives clone those instructions into
 * other functions, where the links must not follow (the module would not
 * verify). Local arrays, a loop, reverse and forward mode:
 *   f(x, n) = sum_{k<n} t_k t_{k+1},  t = (x^2, x, sin x, x^3) cycled
 *   g(a, n) = prod over a small local buffer of (1 + a_i^2)
 * checked against the analytic derivatives and central differences. */
// enz-cflags: -g
#include <math.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

__attribute__((noinline)) static double f(double x, int n) {
  volatile double t[4];
  t[0] = x * x;
  t[1] = x;
  t[2] = sin(x);
  t[3] = x * x * x;
  double s = 0.0;
  for (int k = 0; k < n; k++)
    s += t[k % 4] * t[(k + 1) % 4];
  return s;
}

static double f_grad(double x, int n) {
  double t[4] = {x * x, x, sin(x), x * x * x};
  double dt[4] = {2 * x, 1.0, cos(x), 3 * x * x};
  double g = 0.0;
  for (int k = 0; k < n; k++)
    g += dt[k % 4] * t[(k + 1) % 4] + t[k % 4] * dt[(k + 1) % 4];
  return g;
}

__attribute__((noinline)) static double g(const double *a, int n) {
  double buf[8];
  for (int i = 0; i < n && i < 8; i++)
    buf[i] = 1.0 + a[i] * a[i];
  double p = 1.0;
  for (int i = 0; i < n && i < 8; i++)
    p *= buf[i];
  return p;
}

static int g_n;
static double g_a(double *a, int n) {
  (void)n;
  return g(a, g_n);
}
static double f5(double x) { return f(x, 5); }

int main(void) {
  const double xs[3] = {0.3, -1.1, 2.0};
  for (int t = 0; t < 3; t++) {
    double x = xs[t];
    check_at("f x=%g", x);
#ifdef NO_AD
    double d = f_grad(x, 5), fw = f_grad(x, 5);
#else
    double d = __enzyme_autodiff((void *)f, x, 5);
    double fw = __enzyme_fwddiff((void *)f, x, 1.0, 5);
#endif
    check_close("reverse vs analytic", d, f_grad(x, 5), TOL_AD);
    check_close("forward vs analytic", fw, f_grad(x, 5), TOL_AD);
    check_close("reverse vs FD", d, fd1(f5, x), TOL_FD);
  }
  double a[6], da[6], want[6], fd[6];
  for (int i = 0; i < 6; i++) {
    a[i] = 0.2 * i - 0.4;
    da[i] = 0.0;
  }
  g_n = 6;
  double p = g(a, 6);
  for (int i = 0; i < 6; i++)
    want[i] = p / (1.0 + a[i] * a[i]) * 2.0 * a[i];
  check_at("g n=6");
#ifdef NO_AD
  for (int i = 0; i < 6; i++)
    da[i] = want[i];
#else
  __enzyme_autodiff_v((void *)g, enzyme_dup, a, da, 6);
#endif
  check_close_arr("da vs analytic", da, want, 6, TOL_AD);
  for (int i = 0; i < 6; i++)
    fd[i] = fdpn(g_a, a, 6, i);
  check_close_arr("da vs FD", da, fd, 6, TOL_FD);
  return check_report();
}
