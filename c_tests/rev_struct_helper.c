/* rev_struct_helper.c: a noinline static helper returning a struct of two
 * doubles: insertvalue in the helper and extractvalue in the caller at
 * -O1+ ({double,double} return), memory round trips at -O0. One of the two
 * fixtures with helper functions. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

typedef struct { double dx, dy; } grad2;
grad2 __enzyme_autodiff_grad2(void *, ...);

typedef struct { double s, c; } sc;
__attribute__((noinline)) static sc sincos_scaled(double x, double k) {
  sc r;
  r.s = k * sin(x);
  r.c = k * cos(x);
  return r;
}
/* = 0.5 y^2 sin(2x) + y sin(x) */
static double f(double x, double y) {
  sc a = sincos_scaled(x, y);
  return a.s * a.c + a.s;
}
static double f_v(const double *v) { return f(v[0], v[1]); }

int main(void) {
  const double p[3][2] = {{0.4, 1.5}, {-1.1, 0.7}, {2.0, -1.3}};
  for (int i = 0; i < 3; i++) {
    double x = p[i][0], y = p[i][1];
    check_at("f x=%g y=%g", x, y);
    grad2 a = __enzyme_autodiff_grad2((void *)f, x, y);
    check_close("dx vs analytic", a.dx, y * y * cos(2.0 * x) + y * cos(x), TOL_AD);
    check_close("dy vs analytic", a.dy, y * sin(2.0 * x) + sin(x), TOL_AD);
    check_close("dx vs FD", a.dx, fdn(f_v, p[i], 2, 0), TOL_FD);
    check_close("dy vs FD", a.dy, fdn(f_v, p[i], 2, 1), TOL_FD);
  }
  return check_report();
}
