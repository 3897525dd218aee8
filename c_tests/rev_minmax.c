/* rev_minmax.c: fmin/fmax chains (llvm.minnum/maxnum) and ?: chains
 * (fcmp + select), double; 3 `out` args (sret) and 2 (registers). */
#include <math.h>
#include "enzyme.h"
#include "check.h"

typedef struct { double da, db, dc; } grad3;
grad3 __enzyme_autodiff_grad3(void *, ...);
typedef struct { double dx, dy; } grad2;
grad2 __enzyme_autodiff_grad2(void *, ...);

static double m1(double a, double b, double c) {
  return fmax(fmin(a, b), c) + 0.5 * fmin(a * c, b);
}
static double m1_v(const double *v) { return m1(v[0], v[1], v[2]); }
static grad3 dm1(double a, double b, double c) {
  grad3 r = {0, 0, 0};
  double t = a < b ? a : b;
  if (t > c) { if (a < b) r.da += 1; else r.db += 1; }
  else r.dc += 1;
  if (a * c < b) { r.da += 0.5 * c; r.dc += 0.5 * a; }
  else r.db += 0.5;
  return r;
}

static double m2(double x, double y) {
  double cl = x < -1.0 ? -1.0 : x > 1.0 ? 1.0 : x;
  return cl * y + (x > y ? x : y);
}
static double m2_v(const double *v) { return m2(v[0], v[1]); }
static grad2 dm2(double x, double y) {
  grad2 r;
  double inside = (x >= -1.0 && x <= 1.0);
  double cl = x < -1.0 ? -1.0 : x > 1.0 ? 1.0 : x;
  r.dx = inside * y + (x > y ? 1.0 : 0.0);
  r.dy = cl + (x > y ? 0.0 : 1.0);
  return r;
}

int main(void) {
  const double p[4][3] = {{1.0, 2.0, 0.5}, {3.0, 2.0, 0.5}, {1.0, 2.0, 1.5}, {2.0, 1.0, 0.7}};
  for (int i = 0; i < 4; i++) {
    const double *v = p[i];
    check_at("m1 a=%g b=%g c=%g", v[0], v[1], v[2]);
    grad3 g = __enzyme_autodiff_grad3((void *)m1, v[0], v[1], v[2]);
    grad3 w = dm1(v[0], v[1], v[2]);
    check_close("da vs analytic", g.da, w.da, TOL_AD);
    check_close("db vs analytic", g.db, w.db, TOL_AD);
    check_close("dc vs analytic", g.dc, w.dc, TOL_AD);
    check_close("da vs FD", g.da, fdn(m1_v, v, 3, 0), TOL_FD);
    check_close("db vs FD", g.db, fdn(m1_v, v, 3, 1), TOL_FD);
    check_close("dc vs FD", g.dc, fdn(m1_v, v, 3, 2), TOL_FD);
  }
  const double q[4][2] = {{0.3, 0.8}, {1.7, -0.5}, {-2.0, -2.5}, {0.5, -0.3}};
  for (int i = 0; i < 4; i++) {
    check_at("m2 x=%g y=%g", q[i][0], q[i][1]);
    grad2 g = __enzyme_autodiff_grad2((void *)m2, q[i][0], q[i][1]);
    grad2 w = dm2(q[i][0], q[i][1]);
    check_close("dx vs analytic", g.dx, w.dx, TOL_AD);
    check_close("dy vs analytic", g.dy, w.dy, TOL_AD);
    check_close("dx vs FD", g.dx, fdn(m2_v, q[i], 2, 0), TOL_FD);
    check_close("dy vs FD", g.dy, fdn(m2_v, q[i], 2, 1), TOL_FD);
  }
  return check_report();
}
