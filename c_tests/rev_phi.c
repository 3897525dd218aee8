/* rev_phi.c: values merged by phis (if/else assignments, after mem2reg at
 * -O0 input): chained diamonds, a phi with a constant incoming value, a
 * three-way merge. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

typedef struct { double dx, dy; } grad2;
grad2 __enzyme_autodiff_grad2(void *, ...);

static double f(double x, double y) {
  double r, s, t;
  if (x > 0.0) r = x * y; else r = y - x;
  if (y > 1.0) s = r * r; else s = r + y;
  if (x < y) t = s; else t = 2.0;
  return t + r;
}
static double f_v(const double *v) { return f(v[0], v[1]); }
static grad2 df(double x, double y) {
  double r, rx, ry, sx, sy, tx = 0.0, ty = 0.0;
  if (x > 0.0) { r = x * y; rx = y; ry = x; } else { r = y - x; rx = -1.0; ry = 1.0; }
  if (y > 1.0) { sx = 2.0 * r * rx; sy = 2.0 * r * ry; } else { sx = rx; sy = ry + 1.0; }
  if (x < y) { tx = sx; ty = sy; }
  return (grad2){tx + rx, ty + ry};
}

static double g(double x) {
  double u;
  if (x < -0.5) u = exp(x);
  else if (x < 1.0) u = x * x * x;
  else u = log(x) * 2.0;
  return u * x;
}
static double dg(double x) {
  if (x < -0.5) return exp(x) * (1.0 + x);
  if (x < 1.0) return 4.0 * x * x * x;
  return 2.0 * log(x) + 2.0;
}

int main(void) {
  const double p[4][2] = {{0.5, 1.5}, {-0.5, 0.5}, {2.0, 1.2}, {-1.0, -2.0}};
  for (int i = 0; i < 4; i++) {
    check_at("f x=%g y=%g", p[i][0], p[i][1]);
    grad2 a = __enzyme_autodiff_grad2((void *)f, p[i][0], p[i][1]);
    grad2 w = df(p[i][0], p[i][1]);
    check_close("dx vs analytic", a.dx, w.dx, TOL_AD);
    check_close("dy vs analytic", a.dy, w.dy, TOL_AD);
    check_close("dx vs FD", a.dx, fdn(f_v, p[i], 2, 0), TOL_FD);
    check_close("dy vs FD", a.dy, fdn(f_v, p[i], 2, 1), TOL_FD);
  }
  const double xs[] = {-1.3, 0.3, 2.2};
  for (int i = 0; i < 3; i++)
    CHECK_GRAD1(g, dg, xs[i]);
  return check_report();
}
