/* rev_arith.c: fadd, fsub, fmul, fdiv, fneg and constants in double;
 * one `out` argument (scalar adjoint) and two (struct {double,double}). */
#include "enzyme.h"
#include "check.h"

typedef struct { double dx, dy; } grad2;
grad2 __enzyme_autodiff_grad2(void *, ...);

static double f(double x) {
  return -(x * x * 0.5) + 3.0 * x - 7.25 / x + (x - 1.0) / (x + 2.0);
}
static double df(double x) {
  return -x + 3.0 + 7.25 / (x * x) + 3.0 / ((x + 2.0) * (x + 2.0));
}

static double g(double x, double y) {
  return (x - y) * (x + 2.0 * y) / (1.0 + y * y) - x;
}
static double g_v(const double *v) { return g(v[0], v[1]); }
static grad2 dg(double x, double y) {
  double q = 1.0 + y * y;
  grad2 r;
  r.dx = (2.0 * x + y) / q - 1.0;
  r.dy = (x - 4.0 * y) / q - 2.0 * y * (x - y) * (x + 2.0 * y) / (q * q);
  return r;
}

int main(void) {
  const double xs[] = {0.7, -1.3, 2.5};
  const double ys[] = {0.4, -0.9, 1.7};
  for (int i = 0; i < 3; i++) {
    double x = xs[i], y = ys[i];
    check_at("f x=%g", x);
    double d = __enzyme_autodiff((void *)f, x);
    check_close("df/dx vs analytic", d, df(x), TOL_AD);
    check_close("df/dx vs FD", d, fd1(f, x), TOL_FD);

    check_at("g x=%g y=%g", x, y);
    grad2 a = __enzyme_autodiff_grad2((void *)g, x, y);
    grad2 w = dg(x, y);
    double v[2] = {x, y};
    check_close("dg/dx vs analytic", a.dx, w.dx, TOL_AD);
    check_close("dg/dy vs analytic", a.dy, w.dy, TOL_AD);
    check_close("dg/dx vs FD", a.dx, fdn(g_v, v, 2, 0), TOL_FD);
    check_close("dg/dy vs FD", a.dy, fdn(g_v, v, 2, 1), TOL_FD);
  }
  return check_report();
}
