/* rev_pow.c: pow (both arguments), powi (__builtin_powi: constant and
 * const-int-param exponents), sqrt (llvm.sqrt at -O2 when the argument is
 * provably >= 0, a libm call otherwise), cbrt (double). */
#include <math.h>
#include "enzyme.h"
#include "check.h"

typedef struct { double dx, dy; } grad2;
grad2 __enzyme_autodiff_grad2(void *, ...);

static double f_pow(double x) { return pow(x, 2.7); }
static double d_pow(double x) { return 2.7 * pow(x, 1.7); }
static double f_powi3(double x) { return __builtin_powi(x, 3) * 0.5; }
static double d_powi3(double x) { return 1.5 * x * x; }
static double f_sqrt(double x) { return sqrt(1.0 + x * x); }
static double d_sqrt(double x) { return x / sqrt(1.0 + x * x); }
static double f_sqrtx(double x) { return 2.0 * sqrt(x); } /* libm call at -O2 */
static double d_sqrtx(double x) { return 1.0 / sqrt(x); }
static double f_cbrt(double x) { return cbrt(2.0 * x); }
static double d_cbrt(double x) { double c = cbrt(2.0 * x); return 2.0 / (3.0 * c * c); }

static double g(double x, double y) { return pow(x, y); }
static double g_v(const double *v) { return g(v[0], v[1]); }
static double h(double x, int n) { return __builtin_powi(x, n); }
static int cur_n;
static double h_1(double x) { return h(x, cur_n); }

int main(void) {
  const double xs[] = {0.6, 1.3, 2.4};
  for (int i = 0; i < 3; i++) {
    CHECK_GRAD1(f_pow, d_pow, xs[i]);
    CHECK_GRAD1(f_powi3, d_powi3, xs[i] - 1.0);
    CHECK_GRAD1(f_sqrt, d_sqrt, xs[i] - 1.0);
    CHECK_GRAD1(f_sqrtx, d_sqrtx, xs[i]);
    CHECK_GRAD1(f_cbrt, d_cbrt, 1.5 - xs[i]);
  }
  const double p[3][2] = {{0.7, 2.3}, {1.9, -0.6}, {3.1, 0.4}};
  for (int i = 0; i < 3; i++) {
    double x = p[i][0], y = p[i][1];
    check_at("pow x=%g y=%g", x, y);
    grad2 a = __enzyme_autodiff_grad2((void *)g, x, y);
    check_close("dx vs analytic", a.dx, y * pow(x, y - 1.0), TOL_AD);
    check_close("dy vs analytic", a.dy, pow(x, y) * log(x), TOL_AD);
    check_close("dx vs FD", a.dx, fdn(g_v, p[i], 2, 0), TOL_FD);
    check_close("dy vs FD", a.dy, fdn(g_v, p[i], 2, 1), TOL_FD);
  }
  const int ns[] = {5, -2, 1};
  for (int i = 0; i < 3; i++) {
    double x = 1.4 - 0.9 * i;
    int n = ns[i];
    cur_n = n;
    check_at("powi x=%g n=%d", x, n);
    double d = __enzyme_autodiff((void *)h, x, n);
    check_close("dx vs analytic", d, n * pow(x, n - 1), TOL_AD);
    check_close("dx vs FD", d, fd1(h_1, x), TOL_FD);
  }
  return check_report();
}
