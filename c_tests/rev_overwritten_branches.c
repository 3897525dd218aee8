/* rev_overwritten_branches.c: a generated program (nine lines of body)
 * whose clang -O0 output made the preprocessing's plain `instcombine`
 * abort the whole process ("Instruction Combining on preprocess_f did not
 * reach a fixpoint after 1 iterations"); preprocessing now runs
 * `instcombine<no-verify-fixpoint>`. Values are overwritten on branches
 * and in a loop, so much of the function has no derivative.
 *   t = x, t0 = x0 (x0 + log1p a), s = x0, then s = x2 if n > 0;
 *   a > 0:  f = 1.512 + t0 x1 - x2
 *   a <= 0: t0 = s + e^s, f = s + t0 x1 - x2
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

static double f(double *x, double a, int n) {
  double s = a, t[3] = {x[0], x[1], x[2]};
  t[0] *= (t[0] + log1p(s));
  if ((a + -0.692) > 0) s = (cos(s) + x[0]); else t[2] = x[2];
  s = x[0];
  for (int i = 0; i < n; i++) s = x[2];
  if (a > 0) s = 1.512; else t[0] = (s + exp(s));
  return s + t[0] * t[1] - t[2];
}

/* gr = d f / d(x0, x1, x2, a) */
static void f_grad(const double *x, double a, int n, double *gr) {
  if (a > 0) {
    double l = log1p(a);
    gr[0] = (2.0 * x[0] + l) * x[1];
    gr[1] = x[0] * (x[0] + l);
    gr[2] = -1.0;
    gr[3] = x[0] * x[1] / (1.0 + a);
    return;
  }
  double s = n > 0 ? x[2] : x[0], ds = 1.0 + (1.0 + exp(s)) * x[1];
  gr[0] = n > 0 ? 0.0 : ds;
  gr[1] = s + exp(s);
  gr[2] = -1.0 + (n > 0 ? ds : 0.0);
  gr[3] = 0.0;
}

static int f_n;
/* v = {x0, x1, x2, a} */
static double f_v(double *v) { return f(v, v[3], f_n); }

#ifdef NO_AD
static double emul(double *x, double *dx, double a, int n) {
  double gr[4];
  f_grad(x, a, n, gr);
  for (int k = 0; k < 3; k++)
    dx[k] += gr[k];
  return gr[3];
}
#endif

int main(void) {
  const double pts[4][4] = {
      {0.7, -0.4, 1.3, 0.8}, {-0.9, 0.6, -0.5, 0.3}, {0.4, 1.1, -0.7, -0.4}, {1.2, -0.3, 0.5, -0.6}};
  for (int p = 0; p < 4; p++) {
    for (int n = 0; n < 3; n += 2) {
      double x[3] = {pts[p][0], pts[p][1], pts[p][2]}, dx[3] = {0}, a = pts[p][3], gr[4];
      f_grad(x, a, n, gr);
      f_n = n;
      check_at("point %d n=%d", p, n);
#ifdef NO_AD
      double da = emul(x, dx, a, n);
#else
      double da = __enzyme_autodiff((void *)f, enzyme_dup, x, dx, a, enzyme_const, n);
#endif
      for (int k = 0; k < 3; k++) {
        check_close_i("dx vs analytic", k, dx[k], gr[k], TOL_AD);
        check_close_i("dx vs FD", k, dx[k], fdp(f_v, pts[p], 4, k), TOL_FD);
      }
      check_close("da vs analytic", da, gr[3], TOL_AD);
      check_close("da vs FD", da, fdp(f_v, pts[p], 4, 3), TOL_FD);
    }
  }
  return check_report();
}
