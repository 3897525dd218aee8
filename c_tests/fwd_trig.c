/* fwd_trig.c: forward mode (__enzyme_fwddiff) of sin, cos, tan (libm calls
 * under the default -fmath-errno), alone and combined.
 *   one double parameter:  __enzyme_fwddiff(f, x, dx) = f'(x) dx
 *   two double parameters: unmarked (both duplicated: x, dx, y, dy), with
 *     explicit enzyme_dup markers, and with x enzyme_const (no tangent
 *     follows it), along random directions.
 * Tangents are checked against the analytic directional derivative and
 * central finite differences along the same direction.
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include <stdlib.h>
#include "enzyme.h"
#include "check.h"

static double f_sin(double x) { return sin(1.5 * x); }
static double d_sin(double x) { return 1.5 * cos(1.5 * x); }
static double f_cos(double x) { return 2.0 * cos(0.7 * x); }
static double d_cos(double x) { return -1.4 * sin(0.7 * x); }
static double f_tan(double x) { return tan(0.5 * x); }
static double d_tan(double x) { double c = cos(0.5 * x); return 0.5 / (c * c); }

static double g(double x, double y) { return sin(x) * cos(y) + tan(x * y); }
static double g_v(double *v) { return g(v[0], v[1]); }
static double gx(double x, double y) {
  double c = cos(x * y);
  return cos(x) * cos(y) + y / (c * c);
}
static double gy(double x, double y) {
  double c = cos(x * y);
  return -sin(x) * sin(y) + x / (c * c);
}

int main(void) {
  const double xs[] = {0.4, -1.1, 2.0};
  check_seed(11);
  for (int i = 0; i < 3; i++) {
    double dx = 2.0 * check_rand();
    CHECK_FWD1(f_sin, d_sin, xs[i], dx);
    CHECK_FWD1(f_cos, d_cos, xs[i], dx);
    CHECK_FWD1(f_tan, d_tan, xs[i], dx);
    CHECK_FWD1(f_sin, d_sin, xs[i], 1.0);
  }
  const double p[3][2] = {{0.3, 0.9}, {-1.2, 0.5}, {0.8, -1.4}};
  for (int i = 0; i < 3; i++) {
    double x = p[i][0], y = p[i][1], v[2], pt[2] = {x, y};
    check_rand_dir(v, 2);
    double want = gx(x, y) * v[0] + gy(x, y) * v[1];
    check_at("g x=%g y=%g v=(%g,%g)", x, y, v[0], v[1]);
#ifdef NO_AD
    double t1 = want, t2 = want, t3 = gy(x, y) * v[1];
#else
    double t1 = __enzyme_fwddiff((void *)g, x, v[0], y, v[1]);
    double t2 = __enzyme_fwddiff((void *)g, enzyme_dup, x, v[0], enzyme_dup, y, v[1]);
    double t3 = __enzyme_fwddiff((void *)g, enzyme_const, x, enzyme_dup, y, v[1]);
#endif
    check_close("tangent (unmarked) vs analytic", t1, want, TOL_AD);
    check_close("tangent (unmarked) vs FD", t1, fddir(g_v, pt, v, 2), TOL_FD);
    check_close("tangent (enzyme_dup) vs analytic", t2, want, TOL_AD);
    double vy[2] = {0.0, v[1]};
    check_close("tangent (x const) vs analytic", t3, gy(x, y) * v[1], TOL_AD);
    check_close("tangent (x const) vs FD", t3, fddir(g_v, pt, vy, 2), TOL_FD);
  }
  return check_report();
}
