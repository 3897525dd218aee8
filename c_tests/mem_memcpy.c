/* mem_memcpy.c: memcpy of doubles.
 *   f(x, i): memcpy x into a local buffer, square buf[i] (variable index, so
 *            the buffer and the memcpy survive -O2), combine;
 *   g(x, y): memcpy x into the dup output y, then update y in place (void;
 *            the caller seeds y's shadow with w, which ends zeroed since y's
 *            initial contents are all overwritten).
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include <string.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

static double f(double *x, int i) {
  double buf[4];
  memcpy(buf, x, sizeof buf);
  buf[i] = buf[i] * buf[i];
  return buf[0] * buf[1] + buf[2] * sin(buf[3]);
}
static int g_i;
static double f_v(double *x) { return f(x, g_i); }
static void f_grad(const double *x, int i, double *g) {
  double b[4] = {x[0], x[1], x[2], x[3]};
  b[i] = x[i] * x[i];
  g[0] = b[1];
  g[1] = b[0];
  g[2] = sin(b[3]);
  g[3] = b[2] * cos(b[3]);
  g[i] *= 2.0 * x[i];
}

static void g(double *x, double *y) {
  memcpy(y, x, 3 * sizeof(double));
  y[1] *= y[0];
  y[2] = sin(y[2]) + y[1];
}
static void g_vjp(const double *x, const double *w, double *d) {
  d[0] = w[0] + (w[1] + w[2]) * x[1];
  d[1] = (w[1] + w[2]) * x[0];
  d[2] = w[2] * cos(x[2]);
}

#ifdef NO_AD
static void emul_f(double *x, double *dx, int i) {
  double gr[4];
  f_grad(x, i, gr);
  for (int k = 0; k < 4; k++)
    dx[k] += gr[k];
}
static void emul_g(double *x, double *dx, double *y, double *dy) {
  double d[3];
  g_vjp(x, dy, d);
  g(x, y);
  for (int k = 0; k < 3; k++) {
    dx[k] += d[k];
    dy[k] = 0.0;
  }
}
#endif

int main(void) {
  const double pts[2][4] = {{0.9, -1.4, 1.3, 0.4}, {-0.6, 0.8, -2.1, 1.7}};
  const double seeds[2][3] = {{1.0, 1.0, 1.0}, {-0.5, 2.0, 0.75}};
  for (int p = 0; p < 2; p++) {
    for (int i = 0; i < 4; i += 3) {
      double x[4], dx[4] = {0}, gr[4];
      for (int k = 0; k < 4; k++)
        x[k] = pts[p][k];
      g_i = i;
      f_grad(x, i, gr);
      check_at("f i=%d point %d", i, p);
#ifdef NO_AD
      emul_f(x, dx, i);
#else
      __enzyme_autodiff_v((void *)f, enzyme_dup, x, dx, i);
#endif
      for (int k = 0; k < 4; k++) {
        check_close_i("dx vs analytic", k, dx[k], gr[k], TOL_AD);
        check_close_i("dx vs FD", k, dx[k], fdp(f_v, pts[p], 4, k), TOL_FD);
      }
    }
    const double *w = seeds[p];
    double x[3] = {pts[p][0], pts[p][1], pts[p][2]}, dx[3] = {0}, d[3];
    double y[3] = {0}, dy[3] = {w[0], w[1], w[2]};
    g_vjp(x, w, d);
    check_at("g point %d", p);
#ifdef NO_AD
    emul_g(x, dx, y, dy);
#else
    __enzyme_autodiff_v((void *)g, enzyme_dup, x, dx, enzyme_dup, y, dy);
#endif
    for (int k = 0; k < 3; k++) {
      check_close_i("dx vs analytic", k, dx[k], d[k], TOL_AD);
      check_close_i("dx vs FD", k, dx[k], fdvjp(g, pts[p], 3, k, w, 3), TOL_FD);
      check_close_i("dy zeroed", k, dy[k], 0.0, TOL_AD);
    }
    check_close("primal y[0]", y[0], x[0], TOL_AD);
    check_close("primal y[1]", y[1], x[0] * x[1], TOL_AD);
    check_close("primal y[2]", y[2], sin(x[2]) + x[0] * x[1], TOL_AD);
  }
  return check_report();
}
