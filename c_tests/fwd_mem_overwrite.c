/* fwd_mem_overwrite.c: forward mode of functions that read an array slot,
 * overwrite it and keep computing. The tangent memory follows the primal
 * memory: after the call, the shadow of an overwritten slot holds the
 * tangent of its NEW value, the shadow of an untouched slot its input
 * tangent; the returned tangent is w.r.t. the ORIGINAL inputs, and the
 * primal side effects are visible.
 *   f(x)    = t*x0' + sin(x0') with t = x0, x0' = x0*x1  (= a^2 b + sin(ab))
 *   g(x, i) overwrites x[i] and x[2] (variable index), = a b c^2 cos^2(x_i)
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include <stdlib.h>
#include "enzyme.h"
#include "check.h"

static double f(double *x) {
  double t = x[0];
  x[0] = x[0] * x[1];
  return t * x[0] + sin(x[0]);
}
static void f_inplace(double *x) { (void)f(x); }
static void f_grad(const double *x, double *g) {
  double a = x[0], b = x[1];
  g[0] = 2.0 * a * b + b * cos(a * b);
  g[1] = a * a + a * cos(a * b);
}

static double g(double *x, int i) {
  double old = x[i];
  x[i] = cos(x[i]) * x[2];
  x[2] = old * x[i];
  return x[0] * x[1] * x[2];
}
static int g_i;
static double g_v(double *x) { return g(x, g_i); }
static void g_inplace(double *x) { (void)g(x, g_i); }
static void g_grad(const double *x, int i, double *gr) {
  double a = x[0], b = x[1], c = x[2], u = x[i];
  double cu = cos(u), su = sin(u);
  gr[0] = b * c * c * cu * cu;
  gr[1] = a * c * c * cu * cu;
  gr[2] = 2.0 * a * b * c * cu * cu;
  gr[i] = (i == 0 ? b : a) * c * c * cu * (cu - 2.0 * u * su);
}
/* tangents of the memory after g: x[i]' = cos(u) c, x[2]' = u cos(u) c */
static void g_mem_tangent(const double *x, int i, const double *v, double *out) {
  double u = x[i], c = x[2], cu = cos(u), su = sin(u);
  out[1 - i] = v[1 - i];
  out[i] = -su * c * v[i] + cu * v[2];
  out[2] = (cu - u * su) * c * v[i] + u * cu * v[2];
}

#ifdef NO_AD
static double emul_f(double *x, double *dx) {
  double gr[2], a = x[0], b = x[1];
  f_grad(x, gr);
  double t = gr[0] * dx[0] + gr[1] * dx[1];
  dx[0] = b * dx[0] + a * dx[1];
  f(x);
  return t;
}
static double emul_g(double *x, double *dx, int i) {
  double gr[3], out[3];
  g_grad(x, i, gr);
  g_mem_tangent(x, i, dx, out);
  double t = gr[0] * dx[0] + gr[1] * dx[1] + gr[2] * dx[2];
  for (int k = 0; k < 3; k++)
    dx[k] = out[k];
  g(x, i);
  return t;
}
#endif

int main(void) {
  const double pts[2][3] = {{0.9, -1.4, 1.3}, {-0.6, 0.8, -2.1}};
  check_seed(31);
  for (int p = 0; p < 2; p++) {
    double x[3], dx[3], v[3], gr[3], fdm[3];
    check_rand_dir(v, 3);
    for (int k = 0; k < 3; k++) {
      x[k] = pts[p][k];
      dx[k] = v[k];
    }
    f_grad(pts[p], gr);
    check_at("f point %d", p);
#ifdef NO_AD
    double t = emul_f(x, dx);
#else
    double t = __enzyme_fwddiff((void *)f, enzyme_dup, x, dx);
#endif
    check_close("tangent vs analytic", t, gr[0] * v[0] + gr[1] * v[1], TOL_AD);
    check_close("tangent vs FD", t, fddir(f, pts[p], v, 2), TOL_FD);
    fdjvp_inplace(f_inplace, pts[p], 2, v, fdm);
    check_close("dx[0] (new x0) vs analytic", dx[0], pts[p][1] * v[0] + pts[p][0] * v[1], TOL_AD);
    check_close("dx[0] (new x0) vs FD", dx[0], fdm[0], TOL_FD);
    check_close("dx[1] unchanged", dx[1], v[1], 0.0);
    check_close("primal x[0] overwritten", x[0], pts[p][0] * pts[p][1], TOL_AD);
    check_close("primal x[1] kept", x[1], pts[p][1], 0.0);

    for (int i = 0; i < 2; i++) {
      double y[3], dy[3], mt[3];
      for (int k = 0; k < 3; k++) {
        y[k] = pts[p][k];
        dy[k] = v[k];
      }
      g_i = i;
      g_grad(pts[p], i, gr);
      g_mem_tangent(pts[p], i, v, mt);
      check_at("g i=%d point %d", i, p);
#ifdef NO_AD
      double tg = emul_g(y, dy, i);
#else
      double tg = __enzyme_fwddiff((void *)g, enzyme_dup, y, dy, i);
#endif
      check_close("tangent vs analytic", tg, gr[0] * v[0] + gr[1] * v[1] + gr[2] * v[2], TOL_AD);
      check_close("tangent vs FD", tg, fddir(g_v, pts[p], v, 3), TOL_FD);
      fdjvp_inplace(g_inplace, pts[p], 3, v, fdm);
      for (int k = 0; k < 3; k++) {
        check_close_i("dx (memory tangent) vs analytic", k, dy[k], mt[k], TOL_AD);
        check_close_i("dx (memory tangent) vs FD", k, dy[k], fdm[k], TOL_FD);
      }
      double u = pts[p][i], nu = cos(u) * pts[p][2];
      check_close("primal x[i] overwritten", y[i], nu, TOL_AD);
      check_close("primal x[2] overwritten", y[2], u * nu, TOL_AD);
    }
  }
  return check_report();
}
