/* mem_accumulate.c: shadows ACCUMULATE (+=): a call with a non-zero initial
 * shadow leaves initial + gradient; a second call adds the gradient again;
 * the same array passed for two dup parameters (same shadow too) receives
 * the sum of both contributions; a void function adds w^T J to a non-zero
 * input shadow while its output shadow is consumed (ends zero).
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

static double f(double *x) { return x[0] * x[1] + sin(x[2]) * x[0]; }
static void f_grad(const double *x, double *g) {
  g[0] = x[1] + sin(x[2]);
  g[1] = x[0];
  g[2] = cos(x[2]) * x[0];
}

static double dot3(double *a, double *b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
static double sq3(double *a) { return dot3(a, a); }

static void h(double *x, double *y) { y[0] = x[0] * x[1] + exp(x[2]); }
static void h_vjp(const double *x, double w, double *g) {
  g[0] = w * x[1];
  g[1] = w * x[0];
  g[2] = w * exp(x[2]);
}

#ifdef NO_AD
static void emul_f(double *x, double *dx) {
  double g[3];
  f_grad(x, g);
  for (int k = 0; k < 3; k++)
    dx[k] += g[k];
}
static void emul_dot3(double *a, double *da, double *b, double *db) {
  for (int k = 0; k < 3; k++) {
    double ak = a[k], bk = b[k];
    da[k] += bk;
    db[k] += ak;
  }
}
static void emul_h(double *x, double *dx, double *y, double *dy) {
  double g[3];
  h_vjp(x, dy[0], g);
  h(x, y);
  for (int k = 0; k < 3; k++)
    dx[k] += g[k];
  dy[0] = 0.0;
}
#endif

int main(void) {
  const double pts[2][3] = {{0.9, -1.4, 1.3}, {-0.6, 0.8, -2.1}};
  const double init[3] = {0.5, -1.0, 2.0};
  for (int p = 0; p < 2; p++) {
    double x[3], dx[3], g[3];
    for (int k = 0; k < 3; k++) {
      x[k] = pts[p][k];
      dx[k] = init[k];
    }
    f_grad(x, g);
    check_at("f non-zero shadow point %d", p);
#ifdef NO_AD
    emul_f(x, dx);
#else
    __enzyme_autodiff_v((void *)f, enzyme_dup, x, dx);
#endif
    for (int k = 0; k < 3; k++) {
      check_close_i("dx = init + grad", k, dx[k], init[k] + g[k], TOL_AD);
      check_close_i("dx - init vs FD", k, dx[k] - init[k], fdp(f, pts[p], 3, k), TOL_FD);
    }
    check_at("f second call point %d", p);
#ifdef NO_AD
    emul_f(x, dx);
#else
    __enzyme_autodiff_v((void *)f, enzyme_dup, x, dx);
#endif
    for (int k = 0; k < 3; k++)
      check_close_i("dx = init + 2 grad", k, dx[k], init[k] + 2.0 * g[k], TOL_AD);

    /* the same array and shadow for both parameters: d(a.a) = 2a */
    double da[3] = {init[0], init[1], init[2]};
    check_at("dot3(a, a) point %d", p);
#ifdef NO_AD
    emul_dot3(x, da, x, da);
#else
    __enzyme_autodiff_v((void *)dot3, enzyme_dup, x, da, enzyme_dup, x, da);
#endif
    for (int k = 0; k < 3; k++) {
      check_close_i("da = init + 2a", k, da[k], init[k] + 2.0 * x[k], TOL_AD);
      check_close_i("da - init vs FD", k, da[k] - init[k], fdp(sq3, pts[p], 3, k), TOL_FD);
    }

    /* void function: input shadow non-zero, output shadow seeded */
    double dx3[3] = {init[0], init[1], init[2]}, y[1] = {0}, dy[1] = {p ? -1.5 : 1.0};
    double w[1] = {dy[0]};
    h_vjp(x, w[0], g);
    check_at("h point %d seed %g", p, w[0]);
#ifdef NO_AD
    emul_h(x, dx3, y, dy);
#else
    __enzyme_autodiff_v((void *)h, enzyme_dup, x, dx3, enzyme_dup, y, dy);
#endif
    for (int k = 0; k < 3; k++) {
      check_close_i("dx = init + w J", k, dx3[k], init[k] + g[k], TOL_AD);
      check_close_i("dx - init vs FD", k, dx3[k] - init[k], fdvjp(h, pts[p], 3, k, w, 1), TOL_FD);
    }
    check_close("dy consumed", dy[0], 0.0, TOL_AD);
  }
  return check_report();
}
