/* call_two_activities.c: one noinline callee g(a, s) called from three
 * sites with different activities: an active pointer with a constant
 * scalar, a pointer to a constant table with an active scalar, and both
 * active. The tool must differentiate g for each activity pattern.
 *   g(a, s) = a0 s^2 + sin(a1) s
 *   f(x, y) = g(x, 2) g(T, y) + g(x, y)
 * x is dup, y is `out` (its adjoint is returned).
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

static const double table[2] = {0.75, -1.25};

__attribute__((noinline)) static double g(const double *a, double s) {
  return a[0] * s * s + sin(a[1]) * s;
}
static double f(double *x, double y) { return g(x, 2.0) * g(table, y) + g(x, y); }
/* v = {x0, x1, y} */
static double f_v(double *v) { return f(v, v[2]); }
static void grad(const double *v, double *gr) {
  double x0 = v[0], x1 = v[1], y = v[2], T0 = 0.75, T1 = -1.25;
  double A = 4.0 * x0 + 2.0 * sin(x1), B = T0 * y * y + sin(T1) * y;
  gr[0] = 4.0 * B + y * y;
  gr[1] = 2.0 * cos(x1) * B + cos(x1) * y;
  gr[2] = A * (2.0 * T0 * y + sin(T1)) + 2.0 * x0 * y + sin(x1);
}

#ifdef NO_AD
static double emul(double *x, double *dx, double y) {
  double v[3] = {x[0], x[1], y}, gr[3];
  grad(v, gr);
  dx[0] += gr[0];
  dx[1] += gr[1];
  return gr[2];
}
#endif

int main(void) {
  const double pts[2][3] = {{0.9, -1.4, 1.3}, {-0.6, 0.8, -2.1}};
  for (int p = 0; p < 2; p++) {
    double x[2] = {pts[p][0], pts[p][1]}, dx[2] = {0}, y = pts[p][2], gr[3];
    grad(pts[p], gr);
    check_at("f point %d", p);
#ifdef NO_AD
    double dy = emul(x, dx, y);
#else
    double dy = __enzyme_autodiff((void *)f, enzyme_dup, x, dx, y);
#endif
    check_close("dx[0] vs analytic", dx[0], gr[0], TOL_AD);
    check_close("dx[1] vs analytic", dx[1], gr[1], TOL_AD);
    check_close("dy vs analytic", dy, gr[2], TOL_AD);
    check_close("dx[0] vs FD", dx[0], fdp(f_v, pts[p], 3, 0), TOL_FD);
    check_close("dx[1] vs FD", dx[1], fdp(f_v, pts[p], 3, 1), TOL_FD);
    check_close("dy vs FD", dy, fdp(f_v, pts[p], 3, 2), TOL_FD);
  }
  return check_report();
}
