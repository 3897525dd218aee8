/* mixed_shared_clone.c: one function whose elementwise loop is in mixed
 * mode (the default --mode-per-loop auto: 2 partials per element instead
 * of about 8 intermediates) differentiated three times from one
 * preprocessed clone: with the parameter a constant, in split mode, and
 * with a active, with derivatives of another function, which calls a
 * helper that preprocessing inlines, made in between. (Inlining that
 * helper once took mixed mode's marker calls out of the shared clone too:
 * the later derivatives lost the loop's contribution.)
 *   y_i = exp(0.1 tanh(sin(log(1 + exp(0.1 (x_i + a))^2)) + 1.5) + 1.1)
 *   f(x, a) = sum_i (1 + 0.01 i) y_i
 * df/dx_i and df/da against the chain rule by hand and central
 * differences, n = 1, 5 and 64.
 * Build with -DNO_AD to replace the AD calls by the hand-written sweep. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

double __enzyme_autodiff_d(void *, ...);
void *__enzyme_augmentfwd(void *, ...);
double __enzyme_reverse_d(void *, ...);

#define N 64

__attribute__((noinline)) static double f(const double *x, double *y, double a, int n) {
  for (int i = 0; i < n; i++) {
    double v = exp(0.1 * (x[i] + a));
    v = log(1.0 + v * v);
    v = sin(v) + 1.5;
    v = tanh(v) + 1.1;
    y[i] = exp(0.1 * v);
  }
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += (1.0 + 0.01 * i) * y[i];
  return s;
}

/* dy_i/dx_i (= dy_i/da) by the chain rule. */
static double dy(double x, double a) {
  double u = exp(0.1 * (x + a)), du = 0.1 * u;
  double l = log(1.0 + u * u), dl = 2.0 * u * du / (1.0 + u * u);
  double s = sin(l) + 1.5, ds = cos(l) * dl;
  double t = tanh(s), dt = (1.0 - t * t) * ds;
  double y = exp(0.1 * (t + 1.1));
  return 0.1 * y * dt;
}

static double helper(double v) { return v * v + sin(v); }
__attribute__((noinline)) static double g(const double *x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += helper(x[i]);
  return s;
}

static double ys[N];
static double f_of(const double *x, int n, double a) { return f(x, ys, a, n); }

int main(void) {
  static double x[N], dx[N], y[N], ddy[N], want[N], gx[N], dgx[N];
  const int ns[3] = {1, 5, 64};
  const double a = 0.3;
  for (int k = 0; k < 3; k++) {
    int n = ns[k];
    double want_a = 0.0;
    for (int i = 0; i < n; i++) {
      x[i] = -0.8 + 1.7 * i / (double)N;
      want[i] = (1.0 + 0.01 * i) * dy(x[i], a);
      want_a += want[i];
      gx[i] = 0.1 * i;
    }
    check_at("n=%d", n);
    double da;
#ifdef NO_AD
    for (int i = 0; i < n; i++)
      dx[i] = want[i];
    da = want_a;
    for (int i = 0; i < n; i++)
      dgx[i] = 2.0 * gx[i] + cos(gx[i]);
#else
    /* a constant */
    for (int i = 0; i < n; i++)
      dx[i] = 0.0, ddy[i] = 0.0;
    __enzyme_autodiff_d((void *)f, enzyme_dup, x, dx, enzyme_dup, y, ddy, enzyme_const, a,
                        enzyme_const, n);
    check_close_arr("dx, a constant", dx, want, n, TOL_AD);
    /* another function, whose preprocessing inlines helper */
    for (int i = 0; i < n; i++)
      dgx[i] = 0.0;
    __enzyme_autodiff_d((void *)g, enzyme_dup, gx, dgx, enzyme_const, n);
    /* split mode */
    for (int i = 0; i < n; i++)
      dx[i] = 0.0, ddy[i] = 0.0;
    void *tape = __enzyme_augmentfwd((void *)f, enzyme_dup, x, dx, enzyme_dup, y, ddy,
                                     enzyme_const, a, enzyme_const, n);
    __enzyme_reverse_d((void *)f, enzyme_dup, x, dx, enzyme_dup, y, ddy, enzyme_const, a,
                       enzyme_const, n, 1.0, tape);
    check_close_arr("dx, split mode", dx, want, n, TOL_AD);
    /* a active */
    for (int i = 0; i < n; i++)
      dx[i] = 0.0, ddy[i] = 0.0;
    da = __enzyme_autodiff_d((void *)f, enzyme_dup, x, dx, enzyme_dup, y, ddy, a,
                             enzyme_const, n);
#endif
    check_close_arr("dx, a active", dx, want, n, TOL_AD);
    check_close("da", da, want_a, TOL_AD * n);
    for (int i = 0; i < n; i++)
      check_close_i("dg/dx", i, dgx[i], 2.0 * gx[i] + cos(gx[i]), TOL_AD);
    for (int i = 0; i < n; i += 7) {
      double h = FD_REL * (1.0 + fabs(x[i])), xi = x[i];
      x[i] = xi + h;
      double hi = f_of(x, n, a);
      x[i] = xi - h;
      double lo = f_of(x, n, a);
      x[i] = xi;
      check_close("dx vs FD", dx[i], (hi - lo) / (2.0 * h), TOL_FD);
    }
    double h = FD_REL * (1.0 + fabs(a));
    check_close("da vs FD", da, (f_of(x, n, a + h) - f_of(x, n, a - h)) / (2.0 * h), TOL_FD);
  }
  return check_report();
}
