/* mem_memset.c: memset of double buffers.
 *   f(x, i): memset a local buffer to 0, write slot i (variable index) and
 *            add to slot 1, combine (zeroed slots carry no derivative);
 *   g(x, y): memset the dup output y to 0, then write two of its four slots
 *            (void; the caller seeds y's shadow with w; slots cleared by the
 *            memset pass nothing back, and all of y's shadow ends zero).
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include <string.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

static double f(double *x, int i) {
  double buf[4];
  memset(buf, 0, sizeof buf);
  buf[i] = x[0] * x[1];
  buf[1] += sin(x[2]);
  return buf[0] * x[2] + buf[1] * buf[1] + buf[3] * x[0];
}
static int g_i;
static double f_v(double *x) { return f(x, g_i); }
static void f_grad(const double *x, int i, double *g) {
  double b[4] = {0, 0, 0, 0};
  double J[4][3] = {{0}};
  b[i] = x[0] * x[1];
  J[i][0] = x[1];
  J[i][1] = x[0];
  b[1] += sin(x[2]);
  J[1][2] += cos(x[2]);
  for (int k = 0; k < 3; k++)
    g[k] = J[0][k] * x[2] + 2.0 * b[1] * J[1][k] + J[3][k] * x[0];
  g[2] += b[0];
  g[0] += b[3];
}

static void g(double *x, double *y) {
  memset(y, 0, 4 * sizeof(double));
  y[1] = x[0] * x[1];
  y[3] = exp(x[0]);
}
static void g_vjp(const double *x, const double *w, double *d) {
  d[0] = w[1] * x[1] + w[3] * exp(x[0]);
  d[1] = w[1] * x[0];
}

#ifdef NO_AD
static void emul_f(double *x, double *dx, int i) {
  double gr[3];
  f_grad(x, i, gr);
  for (int k = 0; k < 3; k++)
    dx[k] += gr[k];
}
static void emul_g(double *x, double *dx, double *y, double *dy) {
  double d[2];
  g_vjp(x, dy, d);
  g(x, y);
  dx[0] += d[0];
  dx[1] += d[1];
  for (int k = 0; k < 4; k++)
    dy[k] = 0.0;
}
#endif

int main(void) {
  const double pts[2][3] = {{0.9, -1.4, 1.3}, {-0.6, 0.8, -2.1}};
  const double seeds[2][4] = {{1.0, 1.0, 1.0, 1.0}, {0.3, -2.0, 1.1, 0.75}};
  for (int p = 0; p < 2; p++) {
    for (int i = 0; i < 4; i++) {
      double x[3], dx[3] = {0}, gr[3];
      for (int k = 0; k < 3; k++)
        x[k] = pts[p][k];
      g_i = i;
      f_grad(x, i, gr);
      check_at("f i=%d point %d", i, p);
#ifdef NO_AD
      emul_f(x, dx, i);
#else
      __enzyme_autodiff_v((void *)f, enzyme_dup, x, dx, i);
#endif
      for (int k = 0; k < 3; k++) {
        check_close_i("dx vs analytic", k, dx[k], gr[k], TOL_AD);
        check_close_i("dx vs FD", k, dx[k], fdp(f_v, pts[p], 3, k), TOL_FD);
      }
    }
    const double *w = seeds[p];
    double x[2] = {pts[p][0], pts[p][1]}, dx[2] = {0}, d[2];
    double y[4] = {9.0, 9.0, 9.0, 9.0}, dy[4] = {w[0], w[1], w[2], w[3]};
    g_vjp(x, w, d);
    check_at("g point %d", p);
#ifdef NO_AD
    emul_g(x, dx, y, dy);
#else
    __enzyme_autodiff_v((void *)g, enzyme_dup, x, dx, enzyme_dup, y, dy);
#endif
    for (int k = 0; k < 2; k++) {
      check_close_i("dx vs analytic", k, dx[k], d[k], TOL_AD);
      check_close_i("dx vs FD", k, dx[k], fdvjp(g, pts[p], 2, k, w, 4), TOL_FD);
    }
    for (int k = 0; k < 4; k++)
      check_close_i("dy zeroed", k, dy[k], 0.0, TOL_AD);
    check_close("primal y[0]", y[0], 0.0, 0.0);
    check_close("primal y[1]", y[1], x[0] * x[1], TOL_AD);
    check_close("primal y[2]", y[2], 0.0, 0.0);
    check_close("primal y[3]", y[3], exp(x[0]), TOL_AD);
  }
  return check_report();
}
