// enz-cflags: -fno-math-errno
/* rev_intrinsics.c: with -fno-math-errno clang emits LLVM intrinsics instead
 * of libm calls: llvm.{sin,cos,tan,exp,exp2,log,log2,log10,pow,sqrt,tanh,
 * sinh,cosh,atan,asin,acos,atan2}.f64 (expm1, log1p, cbrt, hypot, erf stay
 * calls). Double. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

typedef struct { double dx, dy; } grad2;
grad2 __enzyme_autodiff_grad2(void *, ...);

static double f1(double x) { return sin(1.5 * x) + cos(0.5 * x) + tan(0.3 * x); }
static double d1(double x) {
  double c = cos(0.3 * x);
  return 1.5 * cos(1.5 * x) - 0.5 * sin(0.5 * x) + 0.3 / (c * c);
}
static double f2(double x) { return exp(0.5 * x) + exp2(x) + log(x) + log2(x) + log10(x); }
static double d2(double x) { return 0.5 * exp(0.5 * x) + M_LN2 * exp2(x) + 1.0 / x + 1.0 / (x * M_LN2) + 1.0 / (x * M_LN10); }
static double f3(double x) { return sqrt(x) + tanh(x) + sinh(0.5 * x) + cosh(0.8 * x); }
static double d3(double x) {
  double t = tanh(x);
  return 0.5 / sqrt(x) + 1.0 - t * t + 0.5 * cosh(0.5 * x) + 0.8 * sinh(0.8 * x);
}
static double f4(double x) { return atan(x) + asin(0.3 * x) + acos(0.4 * x) + expm1(x) + log1p(x) + cbrt(x); }
static double d4(double x) {
  double c = cbrt(x);
  return 1.0 / (1.0 + x * x) + 0.3 / sqrt(1.0 - 0.09 * x * x) - 0.4 / sqrt(1.0 - 0.16 * x * x)
       + exp(x) + 1.0 / (1.0 + x) + 1.0 / (3.0 * c * c);
}
static double g(double x, double y) { return pow(x, y) + atan2(y, x) + hypot(x, y) * erf(y); }
static double g_v(const double *v) { return g(v[0], v[1]); }

int main(void) {
  const double xs[] = {0.4, 1.1, 2.3};
  for (int i = 0; i < 3; i++) {
    CHECK_GRAD1(f1, d1, xs[i] - 1.0);
    CHECK_GRAD1(f2, d2, xs[i]);
    CHECK_GRAD1(f3, d3, xs[i]);
    CHECK_GRAD1(f4, d4, xs[i]);
  }
  const double p[3][2] = {{0.7, 2.3}, {1.9, -0.6}, {3.1, 0.4}};
  for (int i = 0; i < 3; i++) {
    double x = p[i][0], y = p[i][1], r2 = x * x + y * y, r = sqrt(r2);
    double e = 1.1283791670955126 * exp(-y * y);
    check_at("g x=%g y=%g", x, y);
    grad2 a = __enzyme_autodiff_grad2((void *)g, x, y);
    double wx = y * pow(x, y - 1.0) - y / r2 + x / r * erf(y);
    double wy = pow(x, y) * log(x) + x / r2 + y / r * erf(y) + r * e;
    check_close("dx vs analytic", a.dx, wx, TOL_AD);
    check_close("dy vs analytic", a.dy, wy, TOL_AD);
    check_close("dx vs FD", a.dx, fdn(g_v, p[i], 2, 0), TOL_FD);
    check_close("dy vs FD", a.dy, fdn(g_v, p[i], 2, 1), TOL_FD);
  }
  return check_report();
}
