/* fwd_call_nested.c: forward mode through calls that stay calls at -O2:
 * f calls g calls h, noinline on g and h (h has external linkage, g is
 * static); f also calls h directly. Tangents flow through a pointer
 * argument (g reads x) and through scalar arguments and returns.
 *   h(u) = u sin u;  g(x, s) = h(x0 s) + x1^2 s;  f(x) = g(x, x2) x0 + h(x1)
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include <stdlib.h>
#include "enzyme.h"
#include "check.h"

__attribute__((noinline)) double fwd_nested_h(double u) { return u * sin(u); }
__attribute__((noinline)) static double g(double *x, double s) {
  return fwd_nested_h(x[0] * s) + x[1] * x[1] * s;
}
static double f(double *x) { return g(x, x[2]) * x[0] + fwd_nested_h(x[1]); }

static double dh(double u) { return sin(u) + u * cos(u); }
static void grad(const double *x, double *gr) {
  double s = x[2], u = x[0] * s;
  double gv = u * sin(u) + x[1] * x[1] * s;
  gr[0] = gv + x[0] * dh(u) * s;
  gr[1] = x[0] * 2.0 * x[1] * s + dh(x[1]);
  gr[2] = x[0] * (dh(u) * x[0] + x[1] * x[1]);
}
/* tangent of g(x, s) along (dx, ds) */
static double g_dir(const double *x, const double *dx, double s, double ds) {
  double u = x[0] * s;
  return dh(u) * (dx[0] * s + x[0] * ds) + 2.0 * x[1] * dx[1] * s + x[1] * x[1] * ds;
}
static double g_v(double *z) { return g(z, z[2]); } /* z = (x0, x1, s) */

#ifdef NO_AD
static double emul_f(double *x, double *dx) {
  double gr[3];
  grad(x, gr);
  return gr[0] * dx[0] + gr[1] * dx[1] + gr[2] * dx[2];
}
static double emul_g(double *x, double *dx, double s, double ds) {
  return g_dir(x, dx, s, ds);
}
#endif

int main(void) {
  const double pts[2][3] = {{0.9, -1.4, 1.3}, {-0.6, 0.8, -2.1}};
  check_seed(77);
  for (int p = 0; p < 2; p++) {
    double x[3], dx[3], v[3], gr[3];
    check_rand_dir(v, 3);
    for (int k = 0; k < 3; k++) {
      x[k] = pts[p][k];
      dx[k] = v[k];
    }
    grad(x, gr);
    check_at("f point %d", p);
#ifdef NO_AD
    double t = emul_f(x, dx);
#else
    double t = __enzyme_fwddiff((void *)f, enzyme_dup, x, dx);
#endif
    check_close("tangent vs analytic", t, gr[0] * v[0] + gr[1] * v[1] + gr[2] * v[2], TOL_AD);
    check_close("tangent vs FD", t, fddir(f, pts[p], v, 3), TOL_FD);

    double s = x[2], ds = v[2];
    check_at("g point %d", p);
#ifdef NO_AD
    double tg = emul_g(x, dx, s, ds);
#else
    double tg = __enzyme_fwddiff((void *)g, enzyme_dup, x, dx, s, ds);
#endif
    check_close("tangent vs analytic", tg, g_dir(x, v, s, ds), TOL_AD);
    check_close("tangent vs FD", tg, fddir(g_v, pts[p], v, 3), TOL_FD);

    check_at("h point %d", p);
    CHECK_FWD1(fwd_nested_h, dh, x[0], v[0]);
  }
  return check_report();
}
