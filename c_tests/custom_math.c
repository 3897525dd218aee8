/* custom_math.c: derivatives the user registers for a libm function that
 * the rule table also knows. The user's rule must win in both modes:
 *   void *__enzyme_register_derivative_tanh[2] = {tanh, fwd_tanh};
 *   void *__enzyme_register_gradient_tanh[3] = {tanh, aug_tanh, rev_tanh};
 * (forward mode used to apply the built-in rule instead). The rules compute
 * the true derivative 1 - tanh(x)^2 and count their calls, so the numbers
 * are checked against analytic values and finite differences and the
 * counts show the rules ran.
 *   f(x) = tanh(x0 x1) + x1 tanh(x0)
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

static int n_fwd, n_aug, n_rev;

double fwd_tanh(double x, double dx) {
  n_fwd++;
  double t = tanh(x);
  return (1.0 - t * t) * dx;
}
void *aug_tanh(double x) {
  (void)x;
  n_aug++;
  return 0;
}
double rev_tanh(double x, double dret, void *tape) {
  (void)tape;
  n_rev++;
  double t = tanh(x);
  return (1.0 - t * t) * dret;
}
void *__enzyme_register_derivative_tanh[2] = {(void *)tanh, (void *)fwd_tanh};
void *__enzyme_register_gradient_tanh[3] = {(void *)tanh, (void *)aug_tanh, (void *)rev_tanh};

static double f(double *x) { return tanh(x[0] * x[1]) + x[1] * tanh(x[0]); }
static void f_grad(const double *x, double *gr) {
  double a = tanh(x[0] * x[1]), b = tanh(x[0]);
  gr[0] = (1.0 - a * a) * x[1] + x[1] * (1.0 - b * b);
  gr[1] = (1.0 - a * a) * x[0] + b;
}

int main(void) {
  const double pts[3][2] = {{0.4, -0.7}, {-1.1, 0.3}, {0.9, 1.6}};
  for (int p = 0; p < 3; p++) {
    double x[2] = {pts[p][0], pts[p][1]}, dx[2] = {0}, gr[2];
    f_grad(x, gr);
    check_at("point %d", p);
    n_fwd = n_aug = n_rev = 0;
#ifdef NO_AD
    dx[0] = gr[0];
    dx[1] = gr[1];
    n_aug = n_rev = 2;
#else
    __enzyme_autodiff_v((void *)f, enzyme_dup, x, dx);
#endif
    for (int k = 0; k < 2; k++) {
      check_close_i("rev vs analytic", k, dx[k], gr[k], TOL_AD);
      check_close_i("rev vs FD", k, dx[k], fdp(f, pts[p], 2, k), TOL_FD);
    }
    check_close("reverse rule calls (aug)", n_aug, 2, 0);
    check_close("reverse rule calls (rev)", n_rev, 2, 0);
    for (int k = 0; k < 2; k++) {
      double v[2] = {0, 0};
      v[k] = 1.0;
      n_fwd = 0;
#ifdef NO_AD
      double t = gr[k];
      n_fwd = 2;
#else
      double t = __enzyme_fwddiff((void *)f, enzyme_dup, x, v);
#endif
      check_close_i("fwd vs analytic", k, t, gr[k], TOL_AD);
      check_close_i("fwd vs FD", k, t, fdp(f, pts[p], 2, k), TOL_FD);
      check_close_i("forward rule calls", k, n_fwd, 2, 0);
    }
  }
  return check_report();
}
