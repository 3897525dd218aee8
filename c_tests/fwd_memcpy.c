/* fwd_memcpy.c: forward mode through memcpy of doubles: the tangent memory
 * is copied along with the primal memory.
 *   f(x, i): memcpy x into a local buffer, square buf[i] (variable index, so
 *            the buffer and the memcpy survive -O2), combine;
 *   g(x, y): memcpy x into the dup output y, then update y in place (void;
 *            y's tangent memory receives J v, its old contents overwritten).
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_fwddiff_v(void *, ...);

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
static void g_jvp(const double *x, const double *v, double *t) {
  t[0] = v[0];
  t[1] = v[0] * x[1] + x[0] * v[1];
  t[2] = cos(x[2]) * v[2] + t[1];
}

#ifdef NO_AD
static double emul_f(double *x, double *dx, int i) {
  double gr[4];
  f_grad(x, i, gr);
  return gr[0] * dx[0] + gr[1] * dx[1] + gr[2] * dx[2] + gr[3] * dx[3];
}
static void emul_g(double *x, double *dx, double *y, double *dy) {
  g_jvp(x, dx, dy);
  g(x, y);
}
#endif

int main(void) {
  const double pts[2][4] = {{0.9, -1.4, 1.3, 0.4}, {-0.6, 0.8, -2.1, 1.7}};
  check_seed(19);
  for (int p = 0; p < 2; p++) {
    for (int i = 0; i < 4; i += 3) {
      double x[4], dx[4], v[4], gr[4];
      check_rand_dir(v, 4);
      for (int k = 0; k < 4; k++) {
        x[k] = pts[p][k];
        dx[k] = v[k];
      }
      g_i = i;
      f_grad(x, i, gr);
      check_at("f i=%d point %d", i, p);
#ifdef NO_AD
      double t = emul_f(x, dx, i);
#else
      double t = __enzyme_fwddiff((void *)f, enzyme_dup, x, dx, i);
#endif
      check_close("tangent vs analytic", t,
                  gr[0] * v[0] + gr[1] * v[1] + gr[2] * v[2] + gr[3] * v[3], TOL_AD);
      check_close("tangent vs FD", t, fddir(f_v, pts[p], v, 4), TOL_FD);
    }
    double x[3] = {pts[p][0], pts[p][1], pts[p][2]}, v[3], dx[3], t[3], fd[3];
    double y[3] = {0}, dy[3] = {5.0, 6.0, 7.0};
    check_rand_dir(v, 3);
    for (int k = 0; k < 3; k++)
      dx[k] = v[k];
    g_jvp(x, v, t);
    fdjvp(g, x, 3, v, 3, fd);
    check_at("g point %d", p);
#ifdef NO_AD
    emul_g(x, dx, y, dy);
#else
    __enzyme_fwddiff_v((void *)g, enzyme_dup, x, dx, enzyme_dup, y, dy);
#endif
    for (int k = 0; k < 3; k++) {
      check_close_i("dy vs analytic", k, dy[k], t[k], TOL_AD);
      check_close_i("dy vs FD", k, dy[k], fd[k], TOL_FD);
      check_close_i("dx unchanged", k, dx[k], v[k], 0.0);
    }
    check_close("primal y[0]", y[0], x[0], TOL_AD);
    check_close("primal y[1]", y[1], x[0] * x[1], TOL_AD);
    check_close("primal y[2]", y[2], sin(x[2]) + x[0] * x[1], TOL_AD);
  }
  return check_report();
}
