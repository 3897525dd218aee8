// cpp_api_f3.h: the scalar function of three variables the C++ API
// fixtures differentiate (cpp_api_reverse.cpp, cpp_api_forward.cpp), its
// analytic gradient, and an array form for finite differences.
#ifndef CPP_API_F3_H
#define CPP_API_F3_H
#include <math.h>

static double f3(double x, double y, double z) {
  return sin(x) * y + exp(y * z) / (1 + x * x);
}
static void f3_grad(double x, double y, double z, double g[3]) {
  double q = 1 + x * x, e = exp(y * z);
  g[0] = cos(x) * y - e * 2 * x / (q * q);
  g[1] = sin(x) + z * e / q;
  g[2] = y * e / q;
}
static double g_args[3];
static double f3_at(const double *v) { return f3(v[0], v[1], v[2]); }
#endif
