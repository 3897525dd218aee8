/* fwd_minmax.c: forward mode of fmin/fmax chains (llvm.minnum/maxnum) and
 * ?: chains (fcmp + select), double, three and two duplicated scalar
 * parameters, along random directions; the tangent follows the branch taken.
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include <stdlib.h>
#include "enzyme.h"
#include "check.h"

static double m1(double a, double b, double c) {
  return fmax(fmin(a, b), c) + 0.5 * fmin(a * c, b);
}
static double m1_v(double *v) { return m1(v[0], v[1], v[2]); }
static void dm1(double a, double b, double c, double *r) {
  r[0] = r[1] = r[2] = 0.0;
  double t = a < b ? a : b;
  if (t > c) { if (a < b) r[0] += 1; else r[1] += 1; }
  else r[2] += 1;
  if (a * c < b) { r[0] += 0.5 * c; r[2] += 0.5 * a; }
  else r[1] += 0.5;
}

static double m2(double x, double y) {
  double cl = x < -1.0 ? -1.0 : x > 1.0 ? 1.0 : x;
  return cl * y + (x > y ? x : y);
}
static double m2_v(double *v) { return m2(v[0], v[1]); }
static void dm2(double x, double y, double *r) {
  double inside = (x >= -1.0 && x <= 1.0);
  double cl = x < -1.0 ? -1.0 : x > 1.0 ? 1.0 : x;
  r[0] = inside * y + (x > y ? 1.0 : 0.0);
  r[1] = cl + (x > y ? 0.0 : 1.0);
}

int main(void) {
  const double p[4][3] = {{1.0, 2.0, 0.5}, {3.0, 2.0, 0.5}, {1.0, 2.0, 1.5}, {2.0, 1.0, 0.7}};
  check_seed(99);
  for (int i = 0; i < 4; i++) {
    double pt[3] = {p[i][0], p[i][1], p[i][2]}, v[3], g[3];
    check_rand_dir(v, 3);
    dm1(pt[0], pt[1], pt[2], g);
    double want = g[0] * v[0] + g[1] * v[1] + g[2] * v[2];
    check_at("m1 a=%g b=%g c=%g", pt[0], pt[1], pt[2]);
#ifdef NO_AD
    double t = want;
#else
    double t = __enzyme_fwddiff((void *)m1, pt[0], v[0], pt[1], v[1], pt[2], v[2]);
#endif
    check_close("tangent vs analytic", t, want, TOL_AD);
    check_close("tangent vs FD", t, fddir(m1_v, pt, v, 3), TOL_FD);
  }
  const double q[4][2] = {{0.3, 0.8}, {1.7, -0.5}, {-2.0, -2.5}, {0.5, -0.3}};
  for (int i = 0; i < 4; i++) {
    double pt[2] = {q[i][0], q[i][1]}, v[2], g[2];
    check_rand_dir(v, 2);
    dm2(pt[0], pt[1], g);
    double want = g[0] * v[0] + g[1] * v[1];
    check_at("m2 x=%g y=%g", pt[0], pt[1]);
#ifdef NO_AD
    double t = want;
#else
    double t = __enzyme_fwddiff((void *)m2, pt[0], v[0], pt[1], v[1]);
#endif
    check_close("tangent vs analytic", t, want, TOL_AD);
    check_close("tangent vs FD", t, fddir(m2_v, pt, v, 2), TOL_FD);
  }
  return check_report();
}
