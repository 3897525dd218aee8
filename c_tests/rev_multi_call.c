/* rev_multi_call.c: several __enzyme_autodiff call sites in one program:
 * different functions, the same function from two call sites, the same
 * function with different activities, double and float. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

typedef struct { double dx, dy; } grad2;
grad2 __enzyme_autodiff_grad2(void *, ...);

static double f1(double x) { return x * exp(x); }
static double df1(double x) { return (1.0 + x) * exp(x); }
static double f2(double x, double y) { return x / y + y * y; }
static double f2_v(const double *v) { return f2(v[0], v[1]); }
static float f3(float x) { return sinf(x) * x; }
static double df3(double x) { return cos(x) * x + sin(x); }

int main(void) {
  /* f1, first call site */
  check_at("f1 x=0.3");
  double a = __enzyme_autodiff((void *)f1, 0.3);
  check_close("d/dx vs analytic", a, df1(0.3), TOL_AD);
  check_close("d/dx vs FD", a, fd1(f1, 0.3), TOL_FD);

  double y = 1.7, x = -0.4;
  double v[2] = {x, y};
  check_at("f2 x=%g y=%g", x, y);
  grad2 g = __enzyme_autodiff_grad2((void *)f2, x, y);
  check_close("dx vs analytic", g.dx, 1.0 / y, TOL_AD);
  check_close("dy vs analytic", g.dy, -x / (y * y) + 2.0 * y, TOL_AD);
  check_close("dx vs FD", g.dx, fdn(f2_v, v, 2, 0), TOL_FD);
  check_close("dy vs FD", g.dy, fdn(f2_v, v, 2, 1), TOL_FD);
  double gy = __enzyme_autodiff((void *)f2, enzyme_const, x, y);
  check_close("dy (x const) vs analytic", gy, -x / (y * y) + 2.0 * y, TOL_AD);
  double gx = __enzyme_autodiff((void *)f2, x, enzyme_const, y);
  check_close("dx (y const) vs analytic", gx, 1.0 / y, TOL_AD);

  for (int i = 0; i < 3; i++) {
    float xf = 0.5f + 0.75f * i;
    check_at("f3 x=%g", xf);
    float d = __enzyme_autodiff_f32((void *)f3, xf);
    check_close("d/dx vs analytic", d, df3(xf), TOL_AD_F);
    check_close("d/dx vs FD", d, fd1f(f3, xf), TOL_FD_F);
  }

  /* f1, second call site, other points */
  const double xs[] = {-1.5, 1.2};
  for (int i = 0; i < 2; i++) {
    check_at("f1 x=%g", xs[i]);
    double b = __enzyme_autodiff((void *)f1, xs[i]);
    check_close("d/dx vs analytic", b, df1(xs[i]), TOL_AD);
    check_close("d/dx vs FD", b, fd1(f1, xs[i]), TOL_FD);
  }
  return check_report();
}
