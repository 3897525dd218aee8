/* call_nested.c: f calls g calls h, with noinline on g and h so they stay
 * calls at -O2 (h has external linkage, g is static); f also calls h
 * directly. The derivative flows through every level, through a pointer
 * argument (g reads x) and through scalar arguments and returns.
 *   h(u) = u sin u;  g(x, s) = h(x0 s) + x1^2 s;  f(x) = g(x, x2) x0 + h(x1)
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

__attribute__((noinline)) double call_nested_h(double u) { return u * sin(u); }
__attribute__((noinline)) static double g(double *x, double s) {
  return call_nested_h(x[0] * s) + x[1] * x[1] * s;
}
static double f(double *x) { return g(x, x[2]) * x[0] + call_nested_h(x[1]); }

static double dh(double u) { return sin(u) + u * cos(u); }
static void grad(const double *x, double *gr) {
  double s = x[2], u = x[0] * s;
  double gv = u * sin(u) + x[1] * x[1] * s;
  gr[0] = gv + x[0] * dh(u) * s;
  gr[1] = x[0] * 2.0 * x[1] * s + dh(x[1]);
  gr[2] = x[0] * (dh(u) * x[0] + x[1] * x[1]);
}

/* the middle level alone: g with an active pointer and an active scalar */
typedef struct {
  double ds;
} grad_s;

#ifdef NO_AD
static void emul_f(double *x, double *dx) {
  double gr[3];
  grad(x, gr);
  for (int k = 0; k < 3; k++)
    dx[k] += gr[k];
}
static double emul_g(double *x, double *dx, double s) {
  double u = x[0] * s;
  dx[0] += dh(u) * s;
  dx[1] += 2.0 * x[1] * s;
  return dh(u) * x[0] + x[1] * x[1];
}
#endif

int main(void) {
  const double pts[2][3] = {{0.9, -1.4, 1.3}, {-0.6, 0.8, -2.1}};
  for (int p = 0; p < 2; p++) {
    double x[3], dx[3] = {0}, gr[3];
    for (int k = 0; k < 3; k++)
      x[k] = pts[p][k];
    grad(x, gr);
    check_at("f point %d", p);
#ifdef NO_AD
    emul_f(x, dx);
#else
    __enzyme_autodiff_v((void *)f, enzyme_dup, x, dx);
#endif
    for (int k = 0; k < 3; k++) {
      check_close_i("dx vs analytic", k, dx[k], gr[k], TOL_AD);
      check_close_i("dx vs FD", k, dx[k], fdp(f, pts[p], 3, k), TOL_FD);
    }

    double dx2[2] = {0}, s = x[2], u = x[0] * s;
    check_at("g point %d", p);
#ifdef NO_AD
    double ds = emul_g(x, dx2, s);
#else
    double ds = __enzyme_autodiff((void *)g, enzyme_dup, x, dx2, s);
#endif
    check_close("dx[0] vs analytic", dx2[0], dh(u) * s, TOL_AD);
    check_close("dx[1] vs analytic", dx2[1], 2.0 * x[1] * s, TOL_AD);
    check_close("ds vs analytic", ds, dh(u) * x[0] + x[1] * x[1], TOL_AD);

    check_at("h point %d", p);
#ifdef NO_AD
    double dhu = dh(x[0]);
#else
    double dhu = __enzyme_autodiff((void *)call_nested_h, x[0]);
#endif
    check_close("dh vs analytic", dhu, dh(x[0]), TOL_AD);
    check_close("dh vs FD", dhu, fd1(call_nested_h, x[0]), TOL_FD);
  }
  return check_report();
}
