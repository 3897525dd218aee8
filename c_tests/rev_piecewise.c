/* rev_piecewise.c: fcmp-driven branches over an acyclic CFG with several
 * returns (double), one point in every region. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

typedef struct { double dx, dy; } grad2;
grad2 __enzyme_autodiff_grad2(void *, ...);

static double pw(double x) {
  if (x < -1.0)
    return -2.0 * x - 1.0;
  if (x < 0.5)
    return x * x;
  if (x <= 2.0)
    return sin(x) + x;
  return 3.0 * log(x);
}
static double dpw(double x) {
  if (x < -1.0) return -2.0;
  if (x < 0.5) return 2.0 * x;
  if (x <= 2.0) return cos(x) + 1.0;
  return 3.0 / x;
}

static double pw2(double x, double y) {
  if (x > y) {
    if (x > 2.0 * y)
      return x * y;
    return x - y * y;
  } else if (y >= 1.0) {
    return y / x;
  }
  return x + 3.0 * y + 1.0;
}
static double pw2_v(const double *v) { return pw2(v[0], v[1]); }
static grad2 dpw2(double x, double y) {
  grad2 r;
  if (x > y && x > 2.0 * y) { r.dx = y; r.dy = x; }
  else if (x > y) { r.dx = 1.0; r.dy = -2.0 * y; }
  else if (y >= 1.0) { r.dx = -y / (x * x); r.dy = 1.0 / x; }
  else { r.dx = 1.0; r.dy = 3.0; }
  return r;
}

int main(void) {
  const double xs[] = {-2.3, -0.6, 0.3, 1.2, 3.1};
  for (int i = 0; i < 5; i++) {
    double x = xs[i];
    check_at("pw x=%g", x);
    double d = __enzyme_autodiff((void *)pw, x);
    check_close("d/dx vs analytic", d, dpw(x), TOL_AD);
    check_close("d/dx vs FD", d, fd1(pw, x), TOL_FD);
  }
  /* regions: x>2y, y<x<=2y, x<=y with y>=1, x<=y with y<1 */
  const double p[4][2] = {{3.0, 1.1}, {1.5, 0.9}, {0.8, 1.6}, {-0.7, 0.2}};
  for (int i = 0; i < 4; i++) {
    check_at("pw2 x=%g y=%g", p[i][0], p[i][1]);
    grad2 a = __enzyme_autodiff_grad2((void *)pw2, p[i][0], p[i][1]);
    grad2 w = dpw2(p[i][0], p[i][1]);
    check_close("d/dx vs analytic", a.dx, w.dx, TOL_AD);
    check_close("d/dy vs analytic", a.dy, w.dy, TOL_AD);
    check_close("d/dx vs FD", a.dx, fdn(pw2_v, p[i], 2, 0), TOL_FD);
    check_close("d/dy vs FD", a.dy, fdn(pw2_v, p[i], 2, 1), TOL_FD);
  }
  return check_report();
}
