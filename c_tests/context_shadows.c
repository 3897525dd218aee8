/* context_shadows.c: Enzyme's contexts of global shadows.
 * __enzyme_context(w) makes a set of shadows of the module's globals (w
 * lanes), __enzyme_shadow(ctx, &g, lane) is where g's shadow lives in it,
 * __enzyme_zero_shadows(ctx) zeroes them, and a derivative called with
 * `enzyme_context, ctx` reads its global tangents from, and accumulates
 * its global adjoints into, that context (derivatives called without one
 * start from zero shadows, as before).
 * f(x) = scale (w0 + w1) x^2 + hidden x, at a few x:
 *  - reverse: dx, d/dscale and d/dw_k against the analytic derivative and
 *    central differences of f in the global; a second call accumulates;
 *    zeroing resets; a second context is independent;
 *  - forward: tangents seeded in the context (d/dscale, d/dw1);
 *  - width 2: one seed per lane;
 *  - a descriptor global pointing into an array: its shadow in a context
 *    points to the array's shadow in the same context and lane;
 *  - a derivative without a context after all this sees no seed. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

void *__enzyme_context(int);
void *__enzyme_shadow(void *, void *, int);
void __enzyme_zero_shadows(void *);
extern int enzyme_context;
typedef struct {
  double d[2];
} tan2;
tan2 __enzyme_fwddiff_w2(void *, ...) __asm__("__enzyme_fwddiff");

double scale = 2.0;
double w[2] = {3.0, 5.0};
double hidden = 7.0;

double f(double x) { return scale * (w[0] + w[1]) * x * x + hidden * x; }

double data[3] = {1, 2, 3};
struct {
  double *base;
  long n;
} desc = {data, 3};

double g(double x) {
  double s = 0;
  for (long i = 0; i < desc.n; i++)
    s += desc.base[i] * x;
  return s;
}

/* f as a function of a global, for central differences. */
static double *perturbed_;
static double x_;
static double f_of_global(double v) {
  double keep = *perturbed_;
  *perturbed_ = v;
  double y = f(x_);
  *perturbed_ = keep;
  return y;
}
static double fd_global(double *gp, double x) {
  perturbed_ = gp;
  x_ = x;
  return fd1(f_of_global, *gp);
}

int main(void) {
  void *ctx = __enzyme_context(1);
  double *dscale = __enzyme_shadow(ctx, &scale, 0);
  double *dw = __enzyme_shadow(ctx, &w, 0);
  for (double x = -1.5; x <= 2.0; x += 1.75) {
    check_at("reverse x=%g", x);
    __enzyme_zero_shadows(ctx);
    double dx = __enzyme_autodiff((void *)f, enzyme_context, ctx, x);
    check_close("dx vs analytic", dx, 2 * scale * 8 * x + hidden, TOL_AD);
    check_close("dx vs FD", dx, fd1(f, x), TOL_FD);
    check_close("d/dscale vs analytic", *dscale, 8 * x * x, TOL_AD);
    check_close("d/dscale vs FD", *dscale, fd_global(&scale, x), TOL_FD);
    check_close("d/dw0 vs analytic", dw[0], scale * x * x, TOL_AD);
    check_close("d/dw1 vs FD", dw[1], fd_global(&w[1], x), TOL_FD);
    __enzyme_autodiff((void *)f, enzyme_context, ctx, x);
    check_close("a second call accumulates", *dscale, 2 * 8 * x * x, TOL_AD);
    __enzyme_zero_shadows(ctx);
    check_close("zeroed", *dscale + dw[0] + dw[1], 0, 0);

    void *other = __enzyme_context(1);
    __enzyme_autodiff((void *)f, enzyme_context, other, x);
    check_close("other context's d/dscale", *(double *)__enzyme_shadow(other, &scale, 0),
                8 * x * x, TOL_AD);
    check_close("first context untouched", *dscale, 0, 0);

    check_at("forward x=%g", x);
    *dscale = 1.0;
    check_close("seed scale", __enzyme_fwddiff((void *)f, enzyme_context, ctx, x, 0.0),
                8 * x * x, TOL_AD);
    *dscale = 0.0;
    dw[1] = 1.0;
    check_close("seed w1 and x", __enzyme_fwddiff((void *)f, enzyme_context, ctx, x, 1.0),
                scale * x * x + 2 * scale * 8 * x + hidden, TOL_AD);
    dw[1] = 0.0;
    check_close("no context: no seed", __enzyme_fwddiff((void *)f, x, 0.0), 0, 0);

    check_at("width 2 x=%g", x);
    void *ctx2 = __enzyme_context(2);
    *(double *)__enzyme_shadow(ctx2, &scale, 0) = 1.0;
    ((double *)__enzyme_shadow(ctx2, &w, 1))[1] = 1.0;
    tan2 t = __enzyme_fwddiff_w2((void *)f, enzyme_context, ctx2, x, 0.0, 0.0);
    check_close("lane 0 (scale)", t.d[0], 8 * x * x, TOL_AD);
    check_close("lane 1 (w1)", t.d[1], scale * x * x, TOL_AD);

    check_at("descriptor x=%g", x);
    for (int lane = 0; lane < 2; lane++) {
      double **dbase = __enzyme_shadow(ctx2, &desc.base, lane);
      double *ddata = __enzyme_shadow(ctx2, &data, lane);
      check_close("shadow of desc.base is the shadow of data", *dbase == ddata, 1, 0);
      check_close("its integer is copied", *(long *)__enzyme_shadow(ctx2, &desc.n, lane), 3, 0);
      ddata[lane] = 1.0;
    }
    tan2 tg = __enzyme_fwddiff_w2((void *)g, enzyme_context, ctx2, x, 0.0, 0.0);
    check_close("g lane 0: d/ddata0", tg.d[0], x, TOL_AD);
    check_close("g lane 1: d/ddata1", tg.d[1], x, TOL_AD);
  }
  return check_report();
}
