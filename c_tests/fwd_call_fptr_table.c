/* fwd_call_fptr_table.c: forward mode (__enzyme_fwddiff) through function
 * pointers: a run-time-indexed constant table of activation functions
 * (static functions and libm's tanh and sin), and a function pointer
 * argument passed unmarked (its own shadow). The tangent of each call is
 * entry 2 of the pointer's shadow table.
 *   f(x, w, k) = acts[k](w x) w + acts[(k + 1) % 4](x^2)
 * Tangents along random directions are checked against the analytic
 * directional derivative and central finite differences along it.
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

typedef double (*act_t)(double);
static double softplus(double x) { return log(1.0 + exp(x)); }
static double cube(double x) { return x * x * x; }
static const act_t acts[4] = {softplus, cube, tanh, sin};

static double dsoftplus(double x) { return 1.0 / (1.0 + exp(-x)); }
static double dcube(double x) { return 3.0 * x * x; }
static double dtanh(double x) { double t = tanh(x); return 1.0 - t * t; }
static const act_t dacts[4] = {dsoftplus, dcube, dtanh, cos};

static double f(double x, double w, int k) {
  return acts[k](w * x) * w + acts[(k + 1) % 4](x * x);
}
static int cur_k;
static double f_v(const double *a) { return f(a[0], a[1], cur_k); }

static double apply(act_t a, double x) { return a(x) * a(2.0 * x); }

int main(void) {
  const double xs[3] = {0.7, -0.45, 1.3};
  const double ws[3] = {1.2, -0.8, 0.6};
  check_seed(5);
  for (int p = 0; p < 3; p++) {
    for (int k = 0; k < 4; k++) {
      double x = xs[p], w = ws[p], v[2];
      check_rand_dir(v, 2);
      int k1 = (k + 1) % 4;
      double dx = dacts[k](w * x) * w * w + dacts[k1](x * x) * 2.0 * x;
      double dw = dacts[k](w * x) * x * w + acts[k](w * x);
      double want = dx * v[0] + dw * v[1];
      cur_k = k;
      check_at("f x=%g w=%g k=%d", x, w, k);
#ifdef NO_AD
      double t = want;
#else
      double t = __enzyme_fwddiff((void *)f, x, v[0], w, v[1], enzyme_const, k);
#endif
      double h = 1e-6, a[2] = {x + h * v[0], w + h * v[1]}, b[2] = {x - h * v[0], w - h * v[1]};
      check_close("tangent vs analytic", t, want, TOL_AD);
      check_close("tangent vs FD", t, (f_v(a) - f_v(b)) / (2.0 * h), TOL_FD);
    }
    for (int k = 0; k < 2; k++) {
      double x = xs[p];
      act_t a = k ? cube : softplus, da = k ? dcube : dsoftplus;
      double want = da(x) * a(2.0 * x) + a(x) * da(2.0 * x) * 2.0;
      check_at("apply x=%g k=%d", x, k);
#ifdef NO_AD
      double t = want;
#else
      double t = k ? __enzyme_fwddiff((void *)apply, cube, x, 1.0)
                   : __enzyme_fwddiff((void *)apply, softplus, x, 1.0);
#endif
      check_close("apply tangent vs analytic", t, want, TOL_AD);
    }
  }
  return check_report();
}
