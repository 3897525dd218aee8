/* fwd_call_fptr_table.c: forward mode (__enzyme_fwddiff) through function
 * pointers: a run-time-indexed constant table of activation functions
 * (static functions and libm's tanh and sin), and a function pointer
 * argument passed unmarked (its own shadow). The tangent of each call is
 * entry 2 of the pointer's shadow table; in vector forward mode
 * (enzyme_width 2 and 4) the table's entry of that width.
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

typedef struct { double d[2]; } tan2;
typedef struct { double d[4]; } tan4;
tan2 __enzyme_fwddiff_w2(void *, ...);
tan4 __enzyme_fwddiff_w4(void *, ...);

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
      /* the same tangent as lane 1 of 2 beside direction (1, 0), and as
       * lane 3 of 4 beside (0, 1), (1, 1), (0.5, -2) */
      double wx = dacts[k](w * x) * w * w + dacts[k1](x * x) * 2.0 * x;
      double ww = dacts[k](w * x) * x * w + acts[k](w * x);
#ifdef NO_AD
      tan2 t2 = {{wx, want}};
      tan4 t4 = {{ww, wx + ww, 0.5 * wx - 2.0 * ww, want}};
#else
      tan2 t2 = __enzyme_fwddiff_w2((void *)f, enzyme_width, 2, x, 1.0, v[0], w, 0.0, v[1],
                                    enzyme_const, k);
      tan4 t4 = __enzyme_fwddiff_w4((void *)f, enzyme_width, 4, x, 0.0, 1.0, 0.5, v[0], w,
                                    1.0, 1.0, -2.0, v[1], enzyme_const, k);
#endif
      check_close("width 2 lane 0", t2.d[0], wx, TOL_AD);
      check_close("width 2 lane 1", t2.d[1], want, TOL_AD);
      check_close("width 4 lane 0", t4.d[0], ww, TOL_AD);
      check_close("width 4 lane 1", t4.d[1], wx + ww, TOL_AD);
      check_close("width 4 lane 2", t4.d[2], 0.5 * wx - 2.0 * ww, TOL_AD);
      check_close("width 4 lane 3", t4.d[3], want, TOL_AD);
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
      /* width 2: the pointer argument has a shadow per lane (itself) */
#ifdef NO_AD
      tan2 t2 = {{want, -0.5 * want}};
#else
      tan2 t2 = k ? __enzyme_fwddiff_w2((void *)apply, enzyme_width, 2, cube, cube, cube, x,
                                        1.0, -0.5)
                  : __enzyme_fwddiff_w2((void *)apply, enzyme_width, 2, softplus, softplus,
                                        softplus, x, 1.0, -0.5);
#endif
      check_close("apply width 2 lane 0", t2.d[0], want, TOL_AD);
      check_close("apply width 2 lane 1", t2.d[1], -0.5 * want, TOL_AD);
    }
  }
  return check_report();
}
