/* rev_trig.c: sin, cos, tan (double, libm calls under the default
 * -fmath-errno), alone and combined, with chain factors. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

typedef struct { double dx, dy; } grad2;
grad2 __enzyme_autodiff_grad2(void *, ...);

static double f_sin(double x) { return sin(1.5 * x); }
static double d_sin(double x) { return 1.5 * cos(1.5 * x); }
static double f_cos(double x) { return 2.0 * cos(0.7 * x); }
static double d_cos(double x) { return -1.4 * sin(0.7 * x); }
static double f_tan(double x) { return tan(0.5 * x); }
static double d_tan(double x) { double c = cos(0.5 * x); return 0.5 / (c * c); }

static double g(double x, double y) { return sin(x) * cos(y) + tan(x * y); }
static double g_v(const double *v) { return g(v[0], v[1]); }

int main(void) {
  const double xs[] = {0.4, -1.1, 2.0};
  for (int i = 0; i < 3; i++) {
    CHECK_GRAD1(f_sin, d_sin, xs[i]);
    CHECK_GRAD1(f_cos, d_cos, xs[i]);
    CHECK_GRAD1(f_tan, d_tan, xs[i]);
  }
  const double p[3][2] = {{0.3, 0.9}, {-1.2, 0.5}, {0.8, -1.4}};
  for (int i = 0; i < 3; i++) {
    double x = p[i][0], y = p[i][1];
    double sec2 = 1.0 / (cos(x * y) * cos(x * y));
    check_at("g x=%g y=%g", x, y);
    grad2 a = __enzyme_autodiff_grad2((void *)g, x, y);
    check_close("dx vs analytic", a.dx, cos(x) * cos(y) + y * sec2, TOL_AD);
    check_close("dy vs analytic", a.dy, -sin(x) * sin(y) + x * sec2, TOL_AD);
    check_close("dx vs FD", a.dx, fdn(g_v, p[i], 2, 0), TOL_FD);
    check_close("dy vs FD", a.dy, fdn(g_v, p[i], 2, 1), TOL_FD);
  }
  return check_report();
}
