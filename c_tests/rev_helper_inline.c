/* rev_helper_inline.c: small static helpers called from the differentiated
 * functions (calls at -O0, inlined by clang at -O1+), double and float. One
 * of the two fixtures with helper functions. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

typedef struct { double dx, dy; } grad2;
grad2 __enzyme_autodiff_grad2(void *, ...);

static double sq(double u) { return u * u; }
static double cube(double u) { return u * sq(u); }
static double f(double x, double y) { return sq(x - y) + cube(x) * y; }
static double f_v(const double *v) { return f(v[0], v[1]); }

static float scale(float u, float k) { return k * expf(u); }
static float g(float x) { return scale(x * x, 0.5f) - scale(-x, 2.0f); }
static double dg(double x) { return x * exp(x * x) + 2.0 * exp(-x); }

int main(void) {
  const double p[3][2] = {{0.4, 1.5}, {-1.1, 0.7}, {2.0, -1.3}};
  for (int i = 0; i < 3; i++) {
    double x = p[i][0], y = p[i][1];
    check_at("f x=%g y=%g", x, y);
    grad2 a = __enzyme_autodiff_grad2((void *)f, x, y);
    check_close("dx vs analytic", a.dx, 2.0 * (x - y) + 3.0 * x * x * y, TOL_AD);
    check_close("dy vs analytic", a.dy, -2.0 * (x - y) + x * x * x, TOL_AD);
    check_close("dx vs FD", a.dx, fdn(f_v, p[i], 2, 0), TOL_FD);
    check_close("dy vs FD", a.dy, fdn(f_v, p[i], 2, 1), TOL_FD);
    CHECK_GRAD1F(g, dg, x);
  }
  return check_report();
}
