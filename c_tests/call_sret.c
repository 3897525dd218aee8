/* call_sret.c: a noinline callee returning a struct of three doubles by
 * value (returned through an sret pointer by the C ABI), used in active
 * code. The callee has external linkage so clang keeps its sret signature.
 *   mk(x, s) = {x0 s, sin x1, x0 x1 + s}
 *   f(x, s) = a b + c^2 = x0 s sin x1 + (x0 x1 + s)^2
 * x is dup, s is `out` (its adjoint is returned).
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

typedef struct {
  double a, b, c;
} V3;

__attribute__((noinline)) V3 call_sret_mk(double *x, double s) {
  V3 r;
  r.a = x[0] * s;
  r.b = sin(x[1]);
  r.c = x[0] * x[1] + s;
  return r;
}
static double f(double *x, double s) {
  V3 v = call_sret_mk(x, s);
  return v.a * v.b + v.c * v.c;
}
/* u = {x0, x1, s} */
static double f_v(double *u) { return f(u, u[2]); }
static void grad(const double *u, double *g) {
  double x0 = u[0], x1 = u[1], s = u[2], c = x0 * x1 + s;
  g[0] = s * sin(x1) + 2.0 * c * x1;
  g[1] = x0 * s * cos(x1) + 2.0 * c * x0;
  g[2] = x0 * sin(x1) + 2.0 * c;
}

#ifdef NO_AD
static double emul(double *x, double *dx, double s) {
  double u[3] = {x[0], x[1], s}, g[3];
  grad(u, g);
  dx[0] += g[0];
  dx[1] += g[1];
  return g[2];
}
#endif

int main(void) {
  const double pts[2][3] = {{0.9, -1.4, 1.3}, {-0.6, 0.8, -2.1}};
  for (int p = 0; p < 2; p++) {
    double x[2] = {pts[p][0], pts[p][1]}, dx[2] = {0}, s = pts[p][2], g[3];
    grad(pts[p], g);
    check_at("f point %d", p);
#ifdef NO_AD
    double ds = emul(x, dx, s);
#else
    double ds = __enzyme_autodiff((void *)f, enzyme_dup, x, dx, s);
#endif
    check_close("dx[0] vs analytic", dx[0], g[0], TOL_AD);
    check_close("dx[1] vs analytic", dx[1], g[1], TOL_AD);
    check_close("ds vs analytic", ds, g[2], TOL_AD);
    check_close("dx[0] vs FD", dx[0], fdp(f_v, pts[p], 3, 0), TOL_FD);
    check_close("dx[1] vs FD", dx[1], fdp(f_v, pts[p], 3, 1), TOL_FD);
    check_close("ds vs FD", ds, fdp(f_v, pts[p], 3, 2), TOL_FD);
  }
  return check_report();
}
