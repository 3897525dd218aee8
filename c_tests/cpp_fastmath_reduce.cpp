// cpp_fastmath_reduce.cpp: standard-library reductions under -ffast-math,
// which the loop vectoriser turns into llvm.vector.reduce.* at -O2/-O3
// (reverse and forward mode, with and without exceptions):
//   acc(x)  = std::accumulate(x^2)                 d/dx_i = 2 x_i
//   top(x)  = *std::max_element(x) * x_0           d/dx_0 = m + [0 = argmax] x_0,
//                                                  d/dx_i = [i = argmax] x_0
//   dot(x)  = std::inner_product(x, w)             d/dx_i = w_i
//   f(x) = acc(x) + top(x) + 3 dot(x)
// checked against those derivatives and central finite differences.
// Finite-math-only stays off so that check.h's isfinite tests keep their
// meaning.
// enz-cflags: -ffast-math -fno-finite-math-only
#include <algorithm>
#include <math.h>
#include <numeric>
#include <vector>
#include "enzyme.h"
#include "check.h"

#define N 37
static double w[N];

double reductions(const double *x, int n) {
  std::vector<double> sq(x, x + n);
  for (auto &e : sq)
    e = e * e;
  double acc = std::accumulate(sq.begin(), sq.end(), 0.0);
  double top = *std::max_element(x, x + n) * x[0];
  double dot = std::inner_product(x, x + n, w, 0.0);
  return acc + top + 3.0 * dot;
}

static double f_v(const double *x) { return reductions(x, N); }

int main() {
  for (int i = 0; i < N; i++)
    w[i] = 0.1 * (i % 7) - 0.25;
  for (int p = 0; p < 2; p++) {
    double x[N], dx[N] = {0}, want[N];
    int arg = 0;
    for (int i = 0; i < N; i++) {
      x[i] = sin(1.3 * i + p) * (1 + 0.05 * i);
      if (x[i] > x[arg])
        arg = i;
    }
    for (int i = 0; i < N; i++)
      want[i] = 2 * x[i] + (i == arg ? x[0] : 0.0) + 3 * w[i];
    want[0] += x[arg];
#ifdef NO_AD
    for (int i = 0; i < N; i++)
      dx[i] = want[i];
#else
    __enzyme_autodiff((void *)reductions, x, dx, enzyme_const, N);
#endif
    for (int i = 0; i < N; i++) {
      check_at("p=%d i=%d", p, i);
      check_close("reverse vs analytic", dx[i], want[i], TOL_AD);
      double xs[N];
      for (int j = 0; j < N; j++)
        xs[j] = x[j];
      double h = 1e-6 * (1 + fabs(x[i]));
      xs[i] = x[i] + h;
      double fp = f_v(xs);
      xs[i] = x[i] - h;
      double fm = f_v(xs);
      check_close("reverse vs FD", dx[i], (fp - fm) / (2 * h), TOL_FD);
    }
    for (int i = 0; i < N; i += 6) {
      double t[N] = {0};
      t[i] = 1.0;
#ifdef NO_AD
      double got = want[i];
#else
      double got = __enzyme_fwddiff((void *)reductions, x, t, enzyme_const, N);
#endif
      check_at("p=%d i=%d", p, i);
      check_close("forward vs analytic", got, want[i], TOL_AD);
    }
  }
  return check_report();
}
