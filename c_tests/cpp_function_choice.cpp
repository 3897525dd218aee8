// cpp_function_choice.cpp: the function given to __enzyme_autodiff and
// __enzyme_fwddiff chosen at run time (`k ? f : g`) inside a C++ `try`,
// where the call is an `invoke` with a landing pad; a call before it may
// throw, and the handler's value must come through.
//   f(x) = sin(x) x    f'(x) = cos(x) x + sin(x)
//   g(x) = exp(x / 2)  g'(x) = exp(x / 2) / 2
// Checked against these derivatives and central finite differences.
// With -fno-exceptions the same choices are plain calls.
#include <math.h>
#include <stdexcept>
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
#define TRY try
#define CATCH(value) catch (const std::exception &) { d = (value); }
#else
#define TRY
#define CATCH(value)
#endif
#include "enzyme.h"
#include "check.h"

static double f(double x) { return sin(x) * x; }
static double g(double x) { return exp(0.5 * x); }
static double df(double x) { return cos(x) * x + sin(x); }
static double dg(double x) { return 0.5 * exp(0.5 * x); }

__attribute__((noinline)) static void might_throw(int k) {
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
  if (k > 100)
    throw std::runtime_error("k too big");
#else
  (void)k;
#endif
}

__attribute__((noinline)) double grad(int k, double x) {
  double d = 0;
  TRY {
    might_throw(k);
    d = __enzyme_autodiff((void *)(k ? f : g), x);
  }
  CATCH(-1)
  return d;
}

__attribute__((noinline)) double tangent(int k, double x) {
  double d = 0;
  TRY {
    might_throw(k);
    d = __enzyme_fwddiff((void *)(k % 2 ? g : f), x, 1.0);
  }
  CATCH(-2)
  return d;
}

int main() {
  const double xs[] = {0.3, -1.1, 2.0};
  for (int i = 0; i < 3; i++) {
    double x = xs[i];
    check_at("x=%g", x);
    check_close("f' reverse", grad(1, x), df(x), TOL_AD);
    check_close("g' reverse", grad(0, x), dg(x), TOL_AD);
    check_close("f' forward", tangent(2, x), df(x), TOL_AD);
    check_close("g' forward", tangent(3, x), dg(x), TOL_AD);
    check_close("f' vs FD", grad(1, x), fd1(f, x), TOL_FD);
    check_close("g' vs FD", grad(0, x), fd1(g, x), TOL_FD);
  }
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
  check_close("thrown, reverse", grad(1000, 0.5), -1, 0);
  check_close("thrown, forward", tangent(1001, 0.5), -2, 0);
#endif
  return check_report();
}
