/* rev_sret3.c: three double `out` args -> struct {double,double,double},
 * returned through memory (sret) by the C ABI. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

typedef struct { double dx, dy, dz; } grad3;
grad3 __enzyme_autodiff_grad3(void *, ...);

static double f(double x, double y, double z) { return x * y * z + x / z + exp(y) * z; }
static double f_v(const double *v) { return f(v[0], v[1], v[2]); }
static grad3 df(double x, double y, double z) {
  grad3 r;
  r.dx = y * z + 1.0 / z;
  r.dy = x * z + exp(y) * z;
  r.dz = x * y - x / (z * z) + exp(y);
  return r;
}

int main(void) {
  const double p[3][3] = {{0.5, 1.5, 2.5}, {-1.1, 0.3, 0.9}, {2.0, -0.7, -1.6}};
  for (int i = 0; i < 3; i++) {
    const double *v = p[i];
    check_at("f x=%g y=%g z=%g", v[0], v[1], v[2]);
    grad3 g = __enzyme_autodiff_grad3((void *)f, v[0], v[1], v[2]);
    grad3 w = df(v[0], v[1], v[2]);
    check_close("dx vs analytic", g.dx, w.dx, TOL_AD);
    check_close("dy vs analytic", g.dy, w.dy, TOL_AD);
    check_close("dz vs analytic", g.dz, w.dz, TOL_AD);
    check_close("dx vs FD", g.dx, fdn(f_v, v, 3, 0), TOL_FD);
    check_close("dy vs FD", g.dy, fdn(f_v, v, 3, 1), TOL_FD);
    check_close("dz vs FD", g.dz, fdn(f_v, v, 3, 2), TOL_FD);
  }
  return check_report();
}
