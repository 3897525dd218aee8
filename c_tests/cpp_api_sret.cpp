// cpp_api_sret.cpp: functions that return a class by value (through a
// hidden sret pointer) differentiated in forward mode through
// <enzyme/enzyme>: the tangent alone (DuplicatedNoNeed<std::vector<double>>)
// or the primal and the tangent (Duplicated<...>), of
//   poly(u) = (u0^2 + u1, sin(u0) u1, 3 u1)   a std::vector built inside,
//   pass(u) = u                               a copy of the argument,
//   pair(x) = {x^2, e^x}                      a two-double struct.
// Checked against the analytic tangents and central finite differences.
#include <enzyme/enzyme>
#include <math.h>
#include <vector>
#include "check.h"

static std::vector<double> poly(const std::vector<double> &u) {
  std::vector<double> r(3);
  r[0] = u[0] * u[0] + u[1];
  r[1] = sin(u[0]) * u[1];
  r[2] = 3 * u[1];
  return r;
}

static std::vector<double> pass(const std::vector<double> &u) { return u; }

struct Pair {
  double a, b, c; // three doubles: returned through sret on x86-64
};
static Pair pair(double x) { return {x * x, exp(x), -x}; }

static double poly_k(const double *x, int k) {
  std::vector<double> u{x[0], x[1]};
  return poly(u)[k];
}

int main() {
  const double pts[2][2] = {{0.4, -1.3}, {-0.9, 2.2}};
  const double dirs[2][2] = {{1.0, 0.0}, {0.3, -0.7}};
  for (int p = 0; p < 2; p++)
    for (int d = 0; d < 2; d++) {
      std::vector<double> u{pts[p][0], pts[p][1]}, du{dirs[d][0], dirs[d][1]};
      double u0 = u[0], u1 = u[1], d0 = du[0], d1 = du[1];
      double want[3] = {2 * u0 * d0 + d1, cos(u0) * u1 * d0 + sin(u0) * d1,
                        3 * d1};
      check_at("poly tangent at (%g, %g) along (%g, %g)", u0, u1, d0, d1);
      auto t = enzyme::get<0>(
          enzyme::autodiff<enzyme::Forward,
                           enzyme::DuplicatedNoNeed<std::vector<double>>>(
              poly, enzyme::Duplicated<const std::vector<double> &>(u, du)));
      check_close("tangent size", t.size(), 3, 0);
      for (int k = 0; k < 3 && k < (int)t.size(); k++) {
        check_close_i("tangent vs analytic", k, t[k], want[k], TOL_AD);
        double x[2] = {u0, u1};
        double h = 1e-6, fp, fm;
        x[0] = u0 + h * d0, x[1] = u1 + h * d1;
        fp = poly_k(x, k);
        x[0] = u0 - h * d0, x[1] = u1 - h * d1;
        fm = poly_k(x, k);
        check_close_i("tangent vs FD", k, t[k], (fp - fm) / (2 * h), TOL_FD);
      }
      auto both = enzyme::autodiff<enzyme::Forward,
                                   enzyme::Duplicated<std::vector<double>>>(
          poly, enzyme::Duplicated<const std::vector<double> &>(u, du));
      std::vector<double> primal = enzyme::get<0>(both), tan = enzyme::get<1>(both);
      check_close("primal size", primal.size(), 3, 0);
      check_close("tangent size", tan.size(), 3, 0);
      std::vector<double> f = poly(u);
      for (int k = 0; k < 3 && k < (int)primal.size() && k < (int)tan.size(); k++) {
        check_close_i("primal", k, primal[k], f[k], TOL_AD);
        check_close_i("tangent (with primal) vs analytic", k, tan[k], want[k], TOL_AD);
      }
      check_at("pass tangent");
      auto c = enzyme::get<0>(
          enzyme::autodiff<enzyme::Forward,
                           enzyme::DuplicatedNoNeed<std::vector<double>>>(
              pass, enzyme::Duplicated<const std::vector<double> &>(u, du)));
      check_close("copied tangent size", c.size(), 2, 0);
      for (int k = 0; k < 2 && k < (int)c.size(); k++)
        check_close_i("copied tangent", k, c[k], du[k], TOL_AD);
    }
  const double xs[] = {0.5, -1.7};
  for (double x : xs) {
    check_at("pair at %g", x);
    Pair t = enzyme::get<0>(
        enzyme::autodiff<enzyme::Forward, enzyme::DuplicatedNoNeed<Pair>>(
            pair, enzyme::Duplicated<double>(x, 1.0)));
    check_close("d a", t.a, 2 * x, TOL_AD);
    check_close("d b", t.b, exp(x), TOL_AD);
    check_close("d c", t.c, -1, TOL_AD);
  }
  return check_report();
}
