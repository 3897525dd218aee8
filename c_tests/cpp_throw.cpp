// cpp_throw.cpp: a function that may throw (and does not) between active
// statements, in reverse and forward mode, with exceptions (and, with
// -fno-exceptions, the same code without the throw):
//   checked_sqrt(v) throws std::domain_error for v < 0;
//   f(x, y) = exp(x) * checked_sqrt(x*x + y*y) + tanh(y), with a
//   try/catch around a second call that returns a fallback on error
//   df/dx = exp(x) r + exp(x) x / r (+ d of the guarded term),
//   r = sqrt(x^2 + y^2); guarded term g = x * checked_sqrt(1 + y^2)
//   dg/dx = sqrt(1+y^2), dg/dy = x y / sqrt(1+y^2)
// Checked against the analytic derivatives and central finite differences.
#include <math.h>
#include <stdexcept>
#include "enzyme.h"
#include "check.h"

__attribute__((noinline)) double checked_sqrt(double v) {
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
  if (v < 0)
    throw std::domain_error("negative");
#else
  if (v < 0)
    return NAN;
#endif
  return sqrt(v);
}

double may_throw(double x, double y) {
  double e = exp(x);
  double r = checked_sqrt(x * x + y * y);
  double g;
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
  try {
    g = x * checked_sqrt(1.0 + y * y);
  } catch (const std::domain_error &) {
    g = 0.0;
  }
#else
  g = x * checked_sqrt(1.0 + y * y);
#endif
  return e * r + g + tanh(y);
}

static double y_g;
static double fx(double x) { return may_throw(x, y_g); }
static double x_g;
static double fy(double y) { return may_throw(x_g, y); }

typedef struct {
  double dx, dy;
} grad2;
extern "C" grad2 __enzyme_autodiff_g2(void *, ...);

int main() {
  const double pts[3][2] = {{0.3, 1.2}, {-1.4, 0.7}, {1.1, -0.5}};
  for (int p = 0; p < 3; p++) {
    double x = pts[p][0], y = pts[p][1];
    x_g = x;
    y_g = y;
    double r = sqrt(x * x + y * y), s = sqrt(1 + y * y), t = tanh(y);
    double wx = exp(x) * r + exp(x) * x / r + s;
    double wy = exp(x) * y / r + x * y / s + (1 - t * t);
    check_at("x=%g y=%g", x, y);
#ifdef NO_AD
    grad2 g = {wx, wy};
    double tx = wx, ty = wy;
#else
    grad2 g = __enzyme_autodiff_g2((void *)may_throw, x, y);
    double tx = __enzyme_fwddiff((void *)may_throw, x, 1.0, y, 0.0);
    double ty = __enzyme_fwddiff((void *)may_throw, x, 0.0, y, 1.0);
#endif
    check_close("dx vs analytic", g.dx, wx, TOL_AD);
    check_close("dy vs analytic", g.dy, wy, TOL_AD);
    check_close("dx vs FD", g.dx, fd1(fx, x), TOL_FD);
    check_close("dy vs FD", g.dy, fd1(fy, y), TOL_FD);
    check_close("forward dx vs analytic", tx, wx, TOL_AD);
    check_close("forward dy vs analytic", ty, wy, TOL_AD);
  }
  return check_report();
}
