/* fwd_pow.c: forward mode of pow (both arguments), powi (__builtin_powi with
 * a constant exponent and with an int parameter: integer parameters are
 * const, no tangent follows them, unmarked or enzyme_const), sqrt, cbrt.
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include <stdlib.h>
#include "enzyme.h"
#include "check.h"

static double f_pow(double x) { return pow(x, 2.7); }
static double d_pow(double x) { return 2.7 * pow(x, 1.7); }
static double f_powi3(double x) { return __builtin_powi(x, 3) * 0.5; }
static double d_powi3(double x) { return 1.5 * x * x; }
static double f_sqrt(double x) { return sqrt(1.0 + x * x); }
static double d_sqrt(double x) { return x / sqrt(1.0 + x * x); }
static double f_sqrtx(double x) { return 2.0 * sqrt(x); }
static double d_sqrtx(double x) { return 1.0 / sqrt(x); }
static double f_cbrt(double x) { return cbrt(2.0 * x); }
static double d_cbrt(double x) { double c = cbrt(2.0 * x); return 2.0 / (3.0 * c * c); }

static double g(double x, double y) { return pow(x, y); }
static double g_v(double *v) { return g(v[0], v[1]); }
static double h(double x, int n) { return __builtin_powi(x, n); }
static int cur_n;
static double h_1(double x) { return h(x, cur_n); }

int main(void) {
  const double xs[] = {0.6, 1.3, 2.4};
  check_seed(5);
  for (int i = 0; i < 3; i++) {
    double dx = 2.0 * check_rand();
    CHECK_FWD1(f_pow, d_pow, xs[i], dx);
    CHECK_FWD1(f_powi3, d_powi3, xs[i] - 1.0, dx);
    CHECK_FWD1(f_sqrt, d_sqrt, xs[i] - 1.0, dx);
    CHECK_FWD1(f_sqrtx, d_sqrtx, xs[i], dx);
    CHECK_FWD1(f_cbrt, d_cbrt, 1.5 - xs[i], dx);
  }
  const double p[3][2] = {{0.7, 2.3}, {1.9, -0.6}, {3.1, 0.4}};
  for (int i = 0; i < 3; i++) {
    double pt[2] = {p[i][0], p[i][1]}, v[2], x = pt[0], y = pt[1];
    check_rand_dir(v, 2);
    double want = y * pow(x, y - 1.0) * v[0] + pow(x, y) * log(x) * v[1];
    check_at("pow x=%g y=%g", x, y);
#ifdef NO_AD
    double t = want, ty = pow(x, y) * log(x) * v[1];
#else
    double t = __enzyme_fwddiff((void *)g, x, v[0], y, v[1]);
    double ty = __enzyme_fwddiff((void *)g, enzyme_const, x, y, v[1]);
#endif
    check_close("tangent vs analytic", t, want, TOL_AD);
    check_close("tangent vs FD", t, fddir(g_v, pt, v, 2), TOL_FD);
    check_close("tangent (x const) vs analytic", ty, pow(x, y) * log(x) * v[1], TOL_AD);
  }
  const int ns[] = {5, -2, 1};
  for (int i = 0; i < 3; i++) {
    double x = 1.4 - 0.9 * i, dx = 2.0 * check_rand();
    int n = ns[i];
    cur_n = n;
    double want = n * pow(x, n - 1) * dx;
    check_at("powi x=%g n=%d dx=%g", x, n, dx);
#ifdef NO_AD
    double t1 = want, t2 = want;
#else
    double t1 = __enzyme_fwddiff((void *)h, x, dx, n);
    double t2 = __enzyme_fwddiff((void *)h, enzyme_dup, x, dx, enzyme_const, n);
#endif
    check_close("tangent vs analytic", t1, want, TOL_AD);
    check_close("tangent vs FD", t1, fd1(h_1, x) * dx, TOL_FD);
    check_close("tangent (markers) vs analytic", t2, want, TOL_AD);
  }
  return check_report();
}
