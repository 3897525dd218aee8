/* mem_ptr_select.c: a pointer chosen by data-dependent control:
 *   f(x):    p = x0 > x1 ? &x[0] : &x[1] (a select of pointers);
 *            f = p^2 x2 + sin(p)
 *   g(x, y): p = x2 > 0 ? x : y (an if/else: a phi of pointers, possibly a
 *            select at -O2) across two dup arrays; g = p0 p1 + x2 y0
 * The shadow pointer must be chosen the same way. Points on both sides.
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

static double f(double *x) {
  double *p = x[0] > x[1] ? &x[0] : &x[1];
  return *p * *p * x[2] + sin(*p);
}
static void f_grad(const double *x, double *g) {
  int m = x[0] > x[1] ? 0 : 1;
  g[0] = g[1] = 0.0;
  g[m] = 2.0 * x[m] * x[2] + cos(x[m]);
  g[2] = x[m] * x[m];
}

static double g(double *x, double *y) {
  double *p;
  if (x[2] > 0.0)
    p = x;
  else
    p = y;
  return p[0] * p[1] + x[2] * y[0];
}
/* v = {x0, x1, x2, y0, y1} */
static double g_v(double *v) { return g(v, v + 3); }
static void g_grad(const double *v, double *gr) {
  for (int k = 0; k < 5; k++)
    gr[k] = 0.0;
  int b = v[2] > 0.0 ? 0 : 3;
  gr[b] += v[b + 1];
  gr[b + 1] += v[b];
  gr[2] += v[3];
  gr[3] += v[2];
}

#ifdef NO_AD
static void emul_f(double *x, double *dx) {
  double gr[3];
  f_grad(x, gr);
  for (int k = 0; k < 3; k++)
    dx[k] += gr[k];
}
static void emul_g(double *x, double *dx, double *y, double *dy) {
  double v[5] = {x[0], x[1], x[2], y[0], y[1]}, gr[5];
  g_grad(v, gr);
  for (int k = 0; k < 3; k++)
    dx[k] += gr[k];
  dy[0] += gr[3];
  dy[1] += gr[4];
}
#endif

int main(void) {
  /* x0 > x1 in the first point, x0 < x1 in the second; x2 > 0, then < 0 */
  const double pts[2][5] = {{1.3, -0.4, 0.7, 0.6, -1.1}, {-0.9, 0.5, -1.2, 1.4, 0.35}};
  for (int p = 0; p < 2; p++) {
    double x[3], dx[3] = {0}, gr[5];
    for (int k = 0; k < 3; k++)
      x[k] = pts[p][k];
    f_grad(x, gr);
    check_at("f point %d (max at x[%d])", p, x[0] > x[1] ? 0 : 1);
#ifdef NO_AD
    emul_f(x, dx);
#else
    __enzyme_autodiff_v((void *)f, enzyme_dup, x, dx);
#endif
    for (int k = 0; k < 3; k++) {
      check_close_i("dx vs analytic", k, dx[k], gr[k], TOL_AD);
      check_close_i("dx vs FD", k, dx[k], fdp(f, pts[p], 3, k), TOL_FD);
    }

    double y[2] = {pts[p][3], pts[p][4]}, dx2[3] = {0}, dy[2] = {0};
    g_grad(pts[p], gr);
    check_at("g point %d (p = %s)", p, x[2] > 0.0 ? "x" : "y");
#ifdef NO_AD
    emul_g(x, dx2, y, dy);
#else
    __enzyme_autodiff_v((void *)g, enzyme_dup, x, dx2, enzyme_dup, y, dy);
#endif
    double got[5] = {dx2[0], dx2[1], dx2[2], dy[0], dy[1]};
    for (int k = 0; k < 5; k++) {
      check_close_i("d(x,y) vs analytic", k, got[k], gr[k], TOL_AD);
      check_close_i("d(x,y) vs FD", k, got[k], fdp(g_v, pts[p], 5, k), TOL_FD);
    }
  }
  return check_report();
}
