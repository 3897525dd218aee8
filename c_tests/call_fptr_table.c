/* call_fptr_table.c: a run-time-indexed table of activation functions,
 * called through a function pointer loaded from a constant table (static
 * functions and libm's tanh and sin themselves), in reverse mode.
 *   f(x, w, k) = acts[k](w x) w + acts[(k + 1) % 4](x^2)
 *   df/dx = acts'[k](w x) w^2 + acts'[k + 1](x^2) 2x
 *   df/dw = acts'[k](w x) x w + acts[k](w x)
 * The shadow of each entry is a table of that function's derivatives on
 * the canonical ABI (the table's shadow holds them at the same places).
 * Also a function pointer chosen by a select of two functions, and a
 * function pointer argument passed unmarked (its own shadow).
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

typedef struct {
  double dx, dw;
} grad2;
grad2 __enzyme_autodiff_g2(void *, ...);

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

/* A pointer chosen at run time between two functions. */
static double g(double x, int k) {
  act_t a = k ? cube : softplus;
  return a(x) * x;
}
static double g_v(const double *a) { return g(a[0], cur_k); }

/* A function pointer argument: passed unmarked, it is its own shadow. */
static double apply(act_t a, double x) { return a(x) * a(2.0 * x); }

int main(void) {
  const double xs[3] = {0.7, -0.45, 1.3};
  const double ws[3] = {1.2, -0.8, 0.6};
  for (int p = 0; p < 3; p++) {
    for (int k = 0; k < 4; k++) {
      double x = xs[p], w = ws[p], pt[2] = {x, w};
      int k1 = (k + 1) % 4;
      double dx = dacts[k](w * x) * w * w + dacts[k1](x * x) * 2.0 * x;
      double dw = dacts[k](w * x) * x * w + acts[k](w * x);
      cur_k = k;
      check_at("f x=%g w=%g k=%d", x, w, k);
#ifdef NO_AD
      grad2 gr = {dx, dw};
#else
      grad2 gr = __enzyme_autodiff_g2((void *)f, x, w, enzyme_const, k);
#endif
      check_close("dx vs analytic", gr.dx, dx, TOL_AD);
      check_close("dw vs analytic", gr.dw, dw, TOL_AD);
      check_close("dx vs FD", gr.dx, fdn(f_v, pt, 2, 0), TOL_FD);
      check_close("dw vs FD", gr.dw, fdn(f_v, pt, 2, 1), TOL_FD);
    }
    for (int k = 0; k < 2; k++) {
      double x = xs[p], pt[1] = {x};
      double want = k ? dcube(x) * x + cube(x) : dsoftplus(x) * x + softplus(x);
      cur_k = k;
      check_at("g x=%g k=%d", x, k);
#ifdef NO_AD
      double d = want;
#else
      double d = __enzyme_autodiff((void *)g, x, enzyme_const, k);
#endif
      check_close("dg vs analytic", d, want, TOL_AD);
      check_close("dg vs FD", d, fdn(g_v, pt, 1, 0), TOL_FD);
    }
    for (int k = 0; k < 4; k++) {
      double x = xs[p];
      double want = dacts[k](x) * acts[k](2.0 * x) + acts[k](x) * dacts[k](2.0 * x) * 2.0;
      check_at("apply x=%g k=%d", x, k);
#ifdef NO_AD
      double d = want;
#else
      double d = 0.0;
      switch (k) { /* the function itself, a constant, at the call */
      case 0: d = __enzyme_autodiff((void *)apply, softplus, x); break;
      case 1: d = __enzyme_autodiff((void *)apply, cube, x); break;
      case 2: d = __enzyme_autodiff((void *)apply, tanh, x); break;
      default: d = __enzyme_autodiff((void *)apply, enzyme_dup, sin, sin, x);
      }
#endif
      check_close("dapply vs analytic", d, want, TOL_AD);
    }
  }
  return check_report();
}
