// cpp_std_map.cpp: associative containers holding active values, in
// reverse mode, with and without exceptions:
//  - bucket_sum(xs, n): std::map<int, double> accumulating xs_i^2 into
//    bucket i % 3, then f = sum_b (b+1) * bucket_b^... written as
//      B_b = sum_{i%3==b} xs_i^2,   f = sum_b (b+1) * B_b * B_b
//    df/dxs_i = (b+1) * 2 B_b * 2 xs_i   with b = i % 3
//  - named_sum(xs, n): std::unordered_map<std::string, double> keyed by
//    "even"/"odd", values accumulated with +=, then
//      f = E * sin(O),  E = sum_{i even} xs_i,  O = sum_{i odd} xs_i * xs_i
//    df/dxs_i = sin(O) (i even),  E cos(O) 2 xs_i (i odd)
// Checked against the analytic derivatives and central finite differences.
#include <math.h>
#include <map>
#include <string>
#include <unordered_map>
#include "enzyme.h"
#include "check.h"

double bucket_sum(const double *xs, int n) {
  std::map<int, double> buckets;
  for (int i = 0; i < n; i++)
    buckets[i % 3] += xs[i] * xs[i];
  double f = 0.0;
  for (const auto &kv : buckets)
    f += (kv.first + 1) * kv.second * kv.second;
  return f;
}

double named_sum(const double *xs, int n) {
  std::unordered_map<std::string, double> acc;
  for (int i = 0; i < n; i++) {
    if (i % 2 == 0)
      acc["even"] += xs[i];
    else
      acc["odd"] += xs[i] * xs[i];
  }
  return acc["even"] * sin(acc["odd"]);
}

#define N 7
static double bucket_v(const double *x) { return bucket_sum(x, N); }
static double named_v(const double *x) { return named_sum(x, N); }

int main() {
  for (int p = 0; p < 2; p++) {
    double xs[N], d1[N] = {0}, d2[N] = {0};
    for (int i = 0; i < N; i++)
      xs[i] = 0.21 * i - 0.6 + 0.4 * p;
    double B[3] = {0, 0, 0}, E = 0, O = 0;
    for (int i = 0; i < N; i++) {
      B[i % 3] += xs[i] * xs[i];
      if (i % 2 == 0)
        E += xs[i];
      else
        O += xs[i] * xs[i];
    }
    double w1[N], w2[N];
    for (int i = 0; i < N; i++) {
      int b = i % 3;
      w1[i] = (b + 1) * 2 * B[b] * 2 * xs[i];
      w2[i] = i % 2 == 0 ? sin(O) : E * cos(O) * 2 * xs[i];
    }
#ifdef NO_AD
    for (int i = 0; i < N; i++) {
      d1[i] = w1[i];
      d2[i] = w2[i];
    }
#else
    __enzyme_autodiff((void *)bucket_sum, xs, d1, enzyme_const, N);
    __enzyme_autodiff((void *)named_sum, xs, d2, enzyme_const, N);
#endif
    for (int i = 0; i < N; i++) {
      check_at("p=%d i=%d", p, i);
      check_close("map vs analytic", d1[i], w1[i], TOL_AD);
      check_close("map vs FD", d1[i], fdn(bucket_v, xs, N, i), TOL_FD);
      check_close("unordered_map vs analytic", d2[i], w2[i], TOL_AD);
      check_close("unordered_map vs FD", d2[i], fdn(named_v, xs, N, i), TOL_FD);
    }
  }
  return check_report();
}
