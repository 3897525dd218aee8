/* call_returns_ptr.c: a noinline callee returning a pointer into its
 * argument; the caller loads through it (f) and stores through it (g). The
 * shadow of the returned pointer must point into the argument's shadow.
 *   pick(x, i) = &x[i]
 *   f(x, i) = p^2 q + sin(q) x1,  p = x[i], q = x[3-i]
 *   g(x, y, i): *pick(y, i) = x0 x1 (void; y's shadow seeded with w)
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

__attribute__((noinline)) static double *pick(double *x, int i) { return &x[i]; }

static double f(double *x, int i) {
  double *p = pick(x, i);
  double *q = pick(x, 3 - i);
  return *p * *p * *q + sin(*q) * x[1];
}
static void g(double *x, double *y, int i) {
  double *o = pick(y, i);
  *o = x[0] * x[1];
}

static int g_i;
static double f_v(double *x) { return f(x, g_i); }
static void f_grad(const double *x, int i, double *gr) {
  double p = x[i], q = x[3 - i];
  for (int k = 0; k < 4; k++)
    gr[k] = 0.0;
  gr[i] += 2.0 * p * q;
  gr[3 - i] += p * p + cos(q) * x[1];
  gr[1] += sin(q);
}

#ifdef NO_AD
static void emul_f(double *x, double *dx, int i) {
  double gr[4];
  f_grad(x, i, gr);
  for (int k = 0; k < 4; k++)
    dx[k] += gr[k];
}
static void emul_g(double *x, double *dx, double *y, double *dy, int i) {
  double w = dy[i];
  g(x, y, i);
  dx[0] += w * x[1];
  dx[1] += w * x[0];
  dy[i] = 0.0;
}
#endif

int main(void) {
  const double pts[2][4] = {{0.9, -1.4, 1.3, 0.4}, {-0.6, 0.8, -2.1, 1.7}};
  for (int p = 0; p < 2; p++)
    for (int i = 0; i < 2; i++) {
      double x[4], dx[4] = {0}, gr[4];
      for (int k = 0; k < 4; k++)
        x[k] = pts[p][k];
      g_i = i;
      f_grad(x, i, gr);
      check_at("f i=%d point %d", i, p);
#ifdef NO_AD
      emul_f(x, dx, i);
#else
      __enzyme_autodiff_v((void *)f, enzyme_dup, x, dx, i);
#endif
      for (int k = 0; k < 4; k++) {
        check_close_i("dx vs analytic", k, dx[k], gr[k], TOL_AD);
        check_close_i("dx vs FD", k, dx[k], fdp(f_v, pts[p], 4, k), TOL_FD);
      }

      double dx2[2] = {0}, y[3] = {5.0, 5.0, 5.0}, dy[3] = {0.5, -1.5, 2.0};
      double w[3] = {dy[0], dy[1], dy[2]};
      check_at("g i=%d point %d", i, p);
#ifdef NO_AD
      emul_g(x, dx2, y, dy, i);
#else
      __enzyme_autodiff_v((void *)g, enzyme_dup, x, dx2, enzyme_dup, y, dy, i);
#endif
      check_close("dx[0] vs analytic", dx2[0], w[i] * x[1], TOL_AD);
      check_close("dx[1] vs analytic", dx2[1], w[i] * x[0], TOL_AD);
      for (int k = 0; k < 3; k++)
        check_close_i("dy (slot i consumed, others kept)", k, dy[k], k == i ? 0.0 : w[k], TOL_AD);
      check_close("primal y[i]", y[i], x[0] * x[1], TOL_AD);
      check_close("primal y[other]", y[1 - i], 5.0, 0.0);
    }
  return check_report();
}
