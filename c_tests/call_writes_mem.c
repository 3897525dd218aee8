/* call_writes_mem.c: noinline callees that write through pointers:
 *   fill(t, x): writes two values into a LOCAL array of the caller (the
 *               caller's alloca needs a shadow passed to the callee);
 *   axpy(a, x, y): y += a x on the caller's dup output, called twice, the
 *               second time with a scalar read back from y.
 *   f(x) = t0 t1 + t1 x1 with t = {x0 x1, sin x0}
 *   g(x, y): axpy(x2, x, y); axpy(y0, x, y)  (void; y is in/out: its shadow
 *            is seeded with w and ends as the gradient w.r.t. y's initial
 *            values)
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

__attribute__((noinline)) static void fill(double *t, const double *x) {
  t[0] = x[0] * x[1];
  t[1] = sin(x[0]);
}
static double f(double *x) {
  double t[2];
  fill(t, x);
  return t[0] * t[1] + t[1] * x[1];
}
static void f_grad(const double *x, double *gr) {
  double t0 = x[0] * x[1], t1 = sin(x[0]);
  gr[0] = x[1] * t1 + (t0 + x[1]) * cos(x[0]);
  gr[1] = x[0] * t1 + t1;
}

__attribute__((noinline)) static void axpy(double a, const double *x, double *y) {
  y[0] += a * x[0];
  y[1] += a * x[1];
}
static void g(double *x, double *y) {
  axpy(x[2], x, y);
  axpy(y[0], x, y);
}
static double g_w[2];
/* v = {a, b, c, y0, y1}: w . y_after */
static double g_v(double *v) {
  double y[2] = {v[3], v[4]};
  g(v, y);
  return g_w[0] * y[0] + g_w[1] * y[1];
}
static void g_grad(const double *v, const double *w, double *gr) {
  double a = v[0], b = v[1], c = v[2], y0 = v[3];
  gr[0] = w[0] * (c * (1.0 + a) + (y0 + c * a)) + w[1] * c * b;
  gr[1] = w[1] * (c + y0 + c * a);
  gr[2] = w[0] * a * (1.0 + a) + w[1] * (b + a * b);
  gr[3] = w[0] * (1.0 + a) + w[1] * b;
  gr[4] = w[1];
}

#ifdef NO_AD
static void emul_f(double *x, double *dx) {
  double gr[2];
  f_grad(x, gr);
  dx[0] += gr[0];
  dx[1] += gr[1];
}
static void emul_g(double *x, double *dx, double *y, double *dy) {
  double v[5] = {x[0], x[1], x[2], y[0], y[1]}, gr[5];
  g_grad(v, dy, gr);
  g(x, y);
  for (int k = 0; k < 3; k++)
    dx[k] += gr[k];
  dy[0] = gr[3];
  dy[1] = gr[4];
}
#endif

int main(void) {
  const double pts[2][5] = {{0.9, -1.4, 1.3, 0.4, -0.8}, {-0.6, 0.8, -2.1, 1.7, 0.25}};
  const double seeds[2][2] = {{1.0, 1.0}, {-0.5, 2.0}};
  for (int p = 0; p < 2; p++) {
    double x[3] = {pts[p][0], pts[p][1], pts[p][2]}, dx[3] = {0}, gr[5];
    f_grad(x, gr);
    check_at("f point %d", p);
#ifdef NO_AD
    emul_f(x, dx);
#else
    __enzyme_autodiff_v((void *)f, enzyme_dup, x, dx);
#endif
    for (int k = 0; k < 2; k++) {
      check_close_i("dx vs analytic", k, dx[k], gr[k], TOL_AD);
      check_close_i("dx vs FD", k, dx[k], fdp(f, pts[p], 2, k), TOL_FD);
    }

    const double *w = seeds[p];
    double dx2[3] = {0}, y[2] = {pts[p][3], pts[p][4]}, dy[2] = {w[0], w[1]};
    g_w[0] = w[0];
    g_w[1] = w[1];
    g_grad(pts[p], w, gr);
    check_at("g point %d", p);
#ifdef NO_AD
    emul_g(x, dx2, y, dy);
#else
    __enzyme_autodiff_v((void *)g, enzyme_dup, x, dx2, enzyme_dup, y, dy);
#endif
    double got[5] = {dx2[0], dx2[1], dx2[2], dy[0], dy[1]};
    for (int k = 0; k < 5; k++) {
      check_close_i("d(x, y_initial) vs analytic", k, got[k], gr[k], TOL_AD);
      check_close_i("d(x, y_initial) vs FD", k, got[k], fdp(g_v, pts[p], 5, k), TOL_FD);
    }
    double a = x[0], b = x[1], c = x[2], y0 = pts[p][3], y1 = pts[p][4];
    check_close("primal y[0]", y[0], (y0 + c * a) * (1.0 + a), TOL_AD);
    check_close("primal y[1]", y[1], y1 + c * b + (y0 + c * a) * b, TOL_AD);
  }
  return check_report();
}
