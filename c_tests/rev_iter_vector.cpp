// rev_iter_vector.cpp: __enzyme_iter in C++ with exceptions, where the call
// in primal code is an invoke (a std::vector needs cleanups), through
// templated entry points:
//   series(x) = sum_{k < n} x^k / k!  built in a std::vector,
//               n = __enzyme_iter(5, 1)
// The primal sees 5 terms (T5); the derivative sees 6, and d/dx T6 = T5;
// the second derivative (forward over reverse) sees 7, again T5.
// Checked against T5 and central differences of T6 (the series with the
// count the derivative's own primal sees).
// Build with -DNO_AD to replace the AD calls by the analytic derivative.
#include <math.h>
#include <vector>
#include "enzyme.h"
#include "check.h"

#ifdef NO_AD
static int no_ad_iter(int n, int m) { return n + 0 * m; }
#define __enzyme_iter no_ad_iter
#endif

template <typename R, typename... Args> R __enzyme_autodiff(void *, Args...);
template <typename R, typename... Args> R __enzyme_fwddiff(void *, Args...);

static double series(double x) {
  std::vector<double> terms;
  int n = __enzyme_iter(5, 1);
  double t = 1.0;
  for (int k = 0; k < n; k++) {
    terms.push_back(t);
    t *= x / (k + 1);
  }
  double s = 0.0;
  for (double v : terms)
    s += v;
  return s;
}

static double exp_series(double x, int n) {
  double term = 1.0, s = 0.0;
  for (int k = 0; k < n; k++) {
    s += term;
    term *= x / (k + 1);
  }
  return s;
}
static double t6(double x) { return exp_series(x, 6); }

#ifdef NO_AD
static double d1(double x) { return exp_series(x, 5); }
static double d2(double x) { return exp_series(x, 5); }
#else
static double d1(double x) {
  return __enzyme_autodiff<double>((void *)series, &enzyme_out, x);
}
static double d2(double x) {
  return __enzyme_fwddiff<double>((void *)d1, x, 1.0);
}
#endif

int main() {
  const double xs[3] = {0.5, -0.8, 1.4};
  for (int i = 0; i < 3; i++) {
    double x = xs[i];
    check_at("x=%g", x);
    check_close("primal: T5", series(x), exp_series(x, 5), TOL_AD);
    check_close("first derivative: T5", d1(x), exp_series(x, 5), TOL_AD);
    check_close("first derivative vs FD of T6", d1(x), fd1(t6, x), TOL_FD);
    check_close("second derivative: T5", d2(x), exp_series(x, 5), TOL_AD);
    check_close("second derivative vs FD of T6", d2(x), fd1(t6, x), TOL_FD);
  }
  return check_report();
}
