// cpp_catch.cpp: exceptions thrown at run time inside differentiated code,
// in reverse and forward mode (with -fno-exceptions the same control flow
// is written with a -1 sentinel instead of the throw):
//   checked_sqrt(v) = sqrt(v), throws std::domain_error for v < 0;
//   caught(x, y) = try { x * checked_sqrt(y) } catch { x*x/2 - y } + sin(x)
//     y >= 0: d/dx = sqrt(y) + cos x, d/dy = x / (2 sqrt y)
//     y <  0: d/dx = x + cos x,       d/dy = -1
//   looped(x[4]) = sum_i try { x_i * checked_sqrt(x_i) } catch { x_i^2 }
//     with a std::vector alive in the try block (a cleanup landing pad):
//     d/dx_i = 1.5 sqrt(x_i) for x_i >= 0, 2 x_i otherwise;
//   escaping(x) = exp(x) * checked_sqrt(x): for x < 0 the exception leaves
//     the derivative, caught around the __enzyme_autodiff call (and around
//     __enzyme_augmentfwd in split mode); later calls still work;
//   split mode: caught() through __enzyme_augmentfwd + __enzyme_reverse,
//     the landing pad run in the augmented forward function.
// Checked against the analytic derivatives and central finite differences.
#include <math.h>
#include <stdexcept>
#include <vector>
#include "enzyme.h"
#include "check.h"

#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
#define HAVE_EXCEPTIONS 1
#else
#define HAVE_EXCEPTIONS 0
#endif

__attribute__((noinline)) double checked_sqrt(double v) {
  if (v < 0) {
#if HAVE_EXCEPTIONS
    throw std::domain_error("negative");
#else
    return -1.0; /* the sentinel for "would throw" */
#endif
  }
  return sqrt(v);
}

double caught(double x, double y) {
  double a;
#if HAVE_EXCEPTIONS
  try {
    a = x * checked_sqrt(y);
  } catch (const std::domain_error &) {
    a = x * x / 2 - y;
  }
#else
  double r = checked_sqrt(y);
  a = r < 0 ? x * x / 2 - y : x * r;
#endif
  return a + sin(x);
}

void looped(const double *x, double *out) {
  double s = 0;
  for (int i = 0; i < 4; i++) {
#if HAVE_EXCEPTIONS
    try {
      std::vector<double> tmp(2, x[i]);
      s += tmp[0] * checked_sqrt(tmp[1]);
    } catch (const std::domain_error &) {
      s += x[i] * x[i];
    }
#else
    std::vector<double> tmp(2, x[i]);
    double r = checked_sqrt(tmp[1]);
    s += r < 0 ? x[i] * x[i] : tmp[0] * r;
#endif
  }
  *out = s;
}

double escaping(double x) { return exp(x) * checked_sqrt(x); }

static double y_g, x_g;
static double cx(double x) { return caught(x, y_g); }
static double cy(double y) { return caught(x_g, y); }
static double looped_v(const double *x) {
  double o;
  looped(x, &o);
  return o;
}

typedef struct {
  double dx, dy;
} grad2;
extern "C" grad2 __enzyme_autodiff_g2(void *, ...);
typedef struct {
  void *tape;
  double r;
} aug_r;
extern "C" aug_r __enzyme_augmentfwd_r(void *, ...);
extern "C" grad2 __enzyme_reverse_g2(void *, ...);

int main() {
  const double pts[4][2] = {{0.3, 1.2}, {-1.4, 0.7}, {1.1, -0.5}, {0.8, -2.0}};
  for (int p = 0; p < 4; p++) {
    double x = pts[p][0], y = pts[p][1];
    x_g = x;
    y_g = y;
    double wx = y >= 0 ? sqrt(y) + cos(x) : x + cos(x);
    double wy = y >= 0 ? x / (2 * sqrt(y)) : -1.0;
    check_at("caught x=%g y=%g", x, y);
#ifdef NO_AD
    grad2 g = {wx, wy};
    double tx = wx, ty = wy;
#else
    grad2 g = __enzyme_autodiff_g2((void *)caught, x, y);
    double tx = __enzyme_fwddiff((void *)caught, x, 1.0, y, 0.0);
    double ty = __enzyme_fwddiff((void *)caught, x, 0.0, y, 1.0);
#endif
    check_close("dx vs analytic", g.dx, wx, TOL_AD);
    check_close("dy vs analytic", g.dy, wy, TOL_AD);
    check_close("dx vs FD", g.dx, fd1(cx, x), TOL_FD);
    check_close("dy vs FD", g.dy, fd1(cy, y), TOL_FD);
    check_close("forward dx vs analytic", tx, wx, TOL_AD);
    check_close("forward dy vs analytic", ty, wy, TOL_AD);
#ifdef NO_AD
    aug_r a = {0, caught(x, y)};
    grad2 s = {wx, wy};
#else
    aug_r a = __enzyme_augmentfwd_r((void *)caught, x, y);
    grad2 s = __enzyme_reverse_g2((void *)caught, x, y, 1.0, a.tape);
#endif
    check_close("split: primal", a.r, caught(x, y), TOL_AD);
    check_close("split: dx vs analytic", s.dx, wx, TOL_AD);
    check_close("split: dy vs analytic", s.dy, wy, TOL_AD);
  }

  double xs[4] = {0.5, -0.3, 2.0, -1.5};
  double dxs[4] = {0, 0, 0, 0};
  double out = 0, dout = 1.0;
#ifdef NO_AD
  for (int i = 0; i < 4; i++)
    dxs[i] = xs[i] >= 0 ? 1.5 * sqrt(xs[i]) : 2 * xs[i];
#else
  __enzyme_autodiff((void *)looped, enzyme_dup, xs, dxs, enzyme_dup, &out, &dout);
#endif
  for (int i = 0; i < 4; i++) {
    check_at("looped i=%d x=%g", i, xs[i]);
    double w = xs[i] >= 0 ? 1.5 * sqrt(xs[i]) : 2 * xs[i];
    check_close("d/dx_i vs analytic", dxs[i], w, TOL_AD);
    check_close("d/dx_i vs FD", dxs[i], fdn(looped_v, xs, 4, i), TOL_FD);
  }

#if HAVE_EXCEPTIONS
  check_at("escaping");
  int thrown = 0;
  try {
#ifdef NO_AD
    escaping(-1.0);
#else
    __enzyme_autodiff((void *)escaping, -1.0);
#endif
  } catch (const std::domain_error &) {
    thrown = 1;
  }
  check_close("the exception reached the caller", thrown, 1, 0);
  thrown = 0;
  try {
#ifdef NO_AD
    escaping(-2.0);
#else
    __enzyme_augmentfwd_r((void *)escaping, -2.0);
#endif
  } catch (const std::domain_error &) {
    thrown = 1;
  }
  check_close("split: the exception reached the caller", thrown, 1, 0);
#endif
  check_at("escaping x=0.7");
#ifdef NO_AD
  double de = exp(0.7) * sqrt(0.7) + exp(0.7) / (2 * sqrt(0.7));
#else
  double de = __enzyme_autodiff((void *)escaping, 0.7);
#endif
  check_close("d/dx vs analytic", de, exp(0.7) * sqrt(0.7) + exp(0.7) / (2 * sqrt(0.7)), TOL_AD);
  check_close("d/dx vs FD", de, fd1(escaping, 0.7), TOL_FD);
  return check_report();
}
