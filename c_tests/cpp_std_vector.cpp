// cpp_std_vector.cpp: std::vector inside differentiated code, reverse and
// forward mode, with and without exceptions:
//  - poly_growth(x, n): a vector built by push_back (growth reallocates and
//    moves the active elements), then resize, reserve and a moved-from copy;
//      v_k = x^(k+1) (k < n), w = std::move(v), w.resize(n + 2, x)
//      f = sum_k (k+1) * w_k          (the two appended elements are x)
//    df/dx = sum_{k<n} (k+1)^2 x^k + (n+1) + (n+2)
//  - weighted(xs, m): a std::vector<double> copied from a dup'd array,
//    then transformed in place:  f = sum_i c_i * sin(xs_i)^2 with c_i = i+1
//    df/dxs_i = c_i * 2 sin(xs_i) cos(xs_i)
// Checked against the analytic derivatives and central finite differences.
#include <math.h>
#include <utility>
#include <vector>
#include "enzyme.h"
#include "check.h"

double poly_growth(double x, int n) {
  std::vector<double> v;
  double p = x;
  for (int k = 0; k < n; k++) {
    v.push_back(p);
    p *= x;
  }
  std::vector<double> w = std::move(v);
  w.reserve(n + 8);
  w.resize(n + 2, x);
  double f = 0.0;
  for (size_t k = 0; k < w.size(); k++)
    f += double(k + 1) * w[k];
  return f;
}

double weighted(const double *xs, int m) {
  std::vector<double> v(xs, xs + m);
  for (auto &e : v) {
    double s = sin(e);
    e = s * s;
  }
  double f = 0.0;
  for (int i = 0; i < m; i++)
    f += (i + 1) * v[i];
  return f;
}

static int n_g;
static double poly_v(double x) { return poly_growth(x, n_g); }
static double dpoly(double x, int n) {
  double d = 0.0, p = 1.0;
  for (int k = 0; k < n; k++) {
    d += double((k + 1) * (k + 1)) * p;
    p *= x;
  }
  return d + double(n + 1) + double(n + 2);
}
static double xs_g[5];
static double weighted_v(const double *x) { return weighted(x, 5); }

int main() {
  const double pts[3] = {0.7, -1.1, 1.3};
  const int ns[3] = {1, 5, 11};
  for (int p = 0; p < 3; p++) {
    for (int q = 0; q < 3; q++) {
      double x = pts[p];
      int n = ns[q];
      n_g = n;
      check_at("poly_growth x=%g n=%d", x, n);
#ifdef NO_AD
      double g = dpoly(x, n), t = dpoly(x, n);
#else
      double g = __enzyme_autodiff((void *)poly_growth, x, enzyme_const, n);
      double t = __enzyme_fwddiff((void *)poly_growth, x, 1.0, enzyme_const, n);
#endif
      check_close("reverse vs analytic", g, dpoly(x, n), TOL_AD);
      check_close("reverse vs FD", g, fd1(poly_v, x), TOL_FD);
      check_close("forward vs analytic", t, dpoly(x, n), TOL_AD);
    }
  }
  for (int p = 0; p < 2; p++) {
    double xs[5], dxs[5] = {0}, txs[5];
    for (int i = 0; i < 5; i++)
      xs[i] = 0.3 * i - 0.5 + p;
    check_at("weighted p=%d", p);
#ifdef NO_AD
    for (int i = 0; i < 5; i++)
      dxs[i] = (i + 1) * 2 * sin(xs[i]) * cos(xs[i]);
#else
    __enzyme_autodiff((void *)weighted, xs, dxs, enzyme_const, 5);
#endif
    for (int i = 0; i < 5; i++) {
      double want = (i + 1) * 2 * sin(xs[i]) * cos(xs[i]);
      check_close("reverse vs analytic", dxs[i], want, TOL_AD);
      check_close("reverse vs FD", dxs[i], fdn(weighted_v, xs, 5, i), TOL_FD);
      for (int j = 0; j < 5; j++)
        txs[j] = j == i ? 1.0 : 0.0;
#ifdef NO_AD
      double t = want;
#else
      double t = __enzyme_fwddiff((void *)weighted, xs, txs, enzyme_const, 5);
#endif
      check_close("forward vs analytic", t, want, TOL_AD);
    }
  }
  return check_report();
}
