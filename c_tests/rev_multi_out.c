/* rev_multi_out.c: two double `out` args -> struct {double,double} returned
 * in registers; default activity, explicit enzyme_out markers, and a
 * parameter the result does not depend on (adjoint 0). */
#include <math.h>
#include "enzyme.h"
#include "check.h"

typedef struct { double dx, dy; } grad2;
grad2 __enzyme_autodiff_grad2(void *, ...);

static double f(double x, double y) { return x * x * y + sin(y) * x; }
static double f_v(const double *v) { return f(v[0], v[1]); }

static double h(double x, double y) { (void)y; return 3.0 * x - 1.0; }

int main(void) {
  const double p[3][2] = {{0.7, 1.9}, {-1.2, 0.4}, {2.3, -0.8}};
  for (int i = 0; i < 3; i++) {
    double x = p[i][0], y = p[i][1];
    double wx = 2.0 * x * y + sin(y), wy = x * x + x * cos(y);
    check_at("f x=%g y=%g", x, y);
    grad2 a = __enzyme_autodiff_grad2((void *)f, x, y);
    check_close("dx vs analytic", a.dx, wx, TOL_AD);
    check_close("dy vs analytic", a.dy, wy, TOL_AD);
    check_close("dx vs FD", a.dx, fdn(f_v, p[i], 2, 0), TOL_FD);
    check_close("dy vs FD", a.dy, fdn(f_v, p[i], 2, 1), TOL_FD);

    grad2 b = __enzyme_autodiff_grad2((void *)f, enzyme_out, x, enzyme_out, y);
    check_close("dx (enzyme_out) vs analytic", b.dx, wx, TOL_AD);
    check_close("dy (enzyme_out) vs analytic", b.dy, wy, TOL_AD);
    grad2 c = __enzyme_autodiff_grad2((void *)f, x, enzyme_out, y);
    check_close("dx (mixed) vs analytic", c.dx, wx, TOL_AD);
    check_close("dy (mixed) vs analytic", c.dy, wy, TOL_AD);

    check_at("h x=%g y=%g", x, y);
    grad2 d = __enzyme_autodiff_grad2((void *)h, x, y);
    check_close("dx vs analytic", d.dx, 3.0, TOL_AD);
    check_close("dy (unused param) is 0", d.dy, 0.0, TOL_AD);
  }
  return check_report();
}
