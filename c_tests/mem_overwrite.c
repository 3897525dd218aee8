/* mem_overwrite.c: a function reads an array slot, then overwrites it and
 * keeps computing: the reverse sweep needs the OLD value (a cache), not a
 * re-read of memory. Gradients are w.r.t. the ORIGINAL inputs, and the
 * primal side effect (the overwritten slot) must be visible after the call.
 *   f(x)    = t*x0' + sin(x0') with t = x0, x0' = x0*x1  (= a^2 b + sin(ab))
 *   g(x, i) overwrites x[i] and x[2] (variable index), = a b c^2 cos^2(x_i)
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

static double f(double *x) {
  double t = x[0];
  x[0] = x[0] * x[1];
  return t * x[0] + sin(x[0]);
}
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
/* g = a b c^2 cos^2(u), u = x[i] (i is 0 or 1) */
static void g_grad(const double *x, int i, double *gr) {
  double a = x[0], b = x[1], c = x[2], u = x[i];
  double cu = cos(u), su = sin(u);
  gr[0] = b * c * c * cu * cu;
  gr[1] = a * c * c * cu * cu;
  gr[2] = 2.0 * a * b * c * cu * cu;
  /* the x_i factor of a*b is u itself: d/du of u * K cos^2 u */
  gr[i] = (i == 0 ? b : a) * c * c * cu * (cu - 2.0 * u * su);
}

#ifdef NO_AD
static void emul_f(double *x, double *dx) {
  double gr[2];
  f_grad(x, gr);
  f(x);
  /* x[0] overwritten: adjoint of its old value only; x[1] read-only */
  dx[0] = gr[0];
  dx[1] += gr[1];
}
static void emul_g(double *x, double *dx, int i) {
  double gr[3];
  g_grad(x, i, gr);
  g(x, i);
  dx[i] = gr[i]; /* overwritten slots: only the gradient remains */
  dx[2] = gr[2];
  dx[1 - i] += gr[1 - i];
}
#endif

int main(void) {
  const double pts[2][3] = {{0.9, -1.4, 1.3}, {-0.6, 0.8, -2.1}};
  for (int p = 0; p < 2; p++) {
    double x[3], dx[3] = {0}, gr[3];
    for (int k = 0; k < 3; k++)
      x[k] = pts[p][k];
    f_grad(pts[p], gr);
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
    check_close("primal x[0] overwritten", x[0], pts[p][0] * pts[p][1], TOL_AD);
    check_close("primal x[1] kept", x[1], pts[p][1], 0.0);

    for (int i = 0; i < 2; i++) {
      double y[3], dy[3] = {0};
      for (int k = 0; k < 3; k++)
        y[k] = pts[p][k];
      g_i = i;
      g_grad(pts[p], i, gr);
      check_at("g i=%d point %d", i, p);
#ifdef NO_AD
      emul_g(y, dy, i);
#else
      __enzyme_autodiff_v((void *)g, enzyme_dup, y, dy, i);
#endif
      for (int k = 0; k < 3; k++) {
        check_close_i("dx vs analytic", k, dy[k], gr[k], TOL_AD);
        check_close_i("dx vs FD", k, dy[k], fdp(g_v, pts[p], 3, k), TOL_FD);
      }
      double u = pts[p][i], nu = cos(u) * pts[p][2];
      check_close("primal x[i] overwritten", y[i], nu, TOL_AD);
      check_close("primal x[2] overwritten", y[2], u * nu, TOL_AD);
    }
  }
  return check_report();
}
