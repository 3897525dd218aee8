// cpp_api_forward.cpp: the C++ interface <enzyme/enzyme> in forward mode
// (enzyme::Forward and enzyme::ForwardWithPrimal), checked against the
// analytic derivatives and central finite differences:
//   - directional derivatives of a scalar function of three doubles
//     (Duplicated<double>(x, dx)), with each return activity: the default
//     (tuple<tangent>), Duplicated (tuple<f, tangent>), Const (tuple<f>);
//     ForwardWithPrimal (tuple<tangent, f>);
//   - a Const<int> length and Duplicated arrays (tangents in memory);
//   - a void function writing an output array;
//   - a double by reference (Duplicated<const double &>);
//   - a lambda with a capture.
#include <enzyme/enzyme>
#include <math.h>
#include "check.h"
#include "cpp_api_f3.h"


static double norm2(const double *p, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += p[i] * p[i];
  return sqrt(s);
}

static void softplus(double *out, const double *in, int n) {
  for (int i = 0; i < n; i++)
    out[i] = log1p(exp(in[i]));
}

static double cube_ref(const double &x) { return x * x * x; }

int main() {
  const double pts[2][3] = {{0.3, 0.7, -0.4}, {-1.1, 0.2, 0.9}};
  const double dir[3] = {0.6, -1.2, 0.8};
  for (int k = 0; k < 2; k++) {
    double x = pts[k][0], y = pts[k][1], z = pts[k][2];
    check_at("f3 at (%g, %g, %g)", x, y, z);
    double g[3];
    f3_grad(x, y, z, g);
    g_args[0] = x, g_args[1] = y, g_args[2] = z;
    for (int i = 0; i < 3; i++) {
      auto t = enzyme::autodiff<enzyme::Forward>(
          f3, enzyme::Duplicated<double>(x, i == 0), enzyme::Duplicated<double>(y, i == 1),
          enzyme::Duplicated<double>(z, i == 2));
      check_close_i("partial", i, enzyme::get<0>(t), g[i], TOL_AD);
      check_close_i("partial vs FD", i, enzyme::get<0>(t), fdn(f3_at, g_args, 3, i), TOL_FD);
    }
    double want = dir[0] * g[0] + dir[1] * g[1] + dir[2] * g[2];
    auto wp = enzyme::autodiff<enzyme::ForwardWithPrimal>(
        f3, enzyme::Duplicated<double>(x, dir[0]), enzyme::Duplicated<double>(y, dir[1]),
        enzyme::Duplicated<double>(z, dir[2]));
    check_close("directional (with primal)", enzyme::get<0>(wp), want, TOL_AD);
    check_close("primal (with primal)", enzyme::get<1>(wp), f3(x, y, z), TOL_AD);

    auto dr = enzyme::autodiff<enzyme::Forward, enzyme::Duplicated<double>>(
        f3, enzyme::Duplicated<double>(x, dir[0]), enzyme::Duplicated<double>(y, dir[1]),
        enzyme::Const<double>(z));
    check_close("primal (Duplicated return)", enzyme::get<0>(dr), f3(x, y, z), TOL_AD);
    check_close("tangent (Duplicated return)", enzyme::get<1>(dr), dir[0] * g[0] + dir[1] * g[1],
                TOL_AD);

    auto cr = enzyme::autodiff<enzyme::Forward, enzyme::Const<double>>(
        f3, enzyme::Duplicated<double>(x, 1.0), y, z);
    check_close("primal (Const return)", enzyme::get<0>(cr), f3(x, y, z), TOL_AD);
  }

  // Tangents through memory.
  {
    double p[4] = {0.5, -1.25, 2.0, 0.75}, dp[4] = {1.0, 0.5, -0.25, 2.0};
    check_at("norm2");
    auto t = enzyme::autodiff<enzyme::Forward>(norm2, enzyme::Duplicated<const double *>(p, dp),
                                               enzyme::Const<int>(4));
    double n = norm2(p, 4), want = 0;
    for (int i = 0; i < 4; i++)
      want += p[i] * dp[i] / n;
    check_close("tangent", enzyme::get<0>(t), want, TOL_AD);

    double in[3] = {-0.7, 0.2, 1.9}, din[3] = {1.0, -2.0, 0.5};
    double out[3], dout[3];
    enzyme::autodiff<enzyme::Forward>(softplus, enzyme::Duplicated<double *>(out, dout),
                                      enzyme::Duplicated<const double *>(in, din),
                                      enzyme::Const<int>(3));
    for (int i = 0; i < 3; i++) {
      double s = 1 / (1 + exp(-in[i]));
      check_close_i("softplus out", i, out[i], log1p(exp(in[i])), TOL_AD);
      check_close_i("softplus tangent", i, dout[i], s * din[i], TOL_AD);
    }
  }

  // By reference, and a lambda.
  {
    double x = 1.3, dx = 1.0;
    check_at("reference and lambda");
    auto t = enzyme::autodiff<enzyme::Forward>(cube_ref, enzyme::Duplicated<const double &>(x, dx));
    check_close("cube'", enzyme::get<0>(t), 3 * x * x, TOL_AD);

    double c = -0.8;
    auto lam = [c](double u) { return exp(c * u) * u; };
    auto tl = enzyme::autodiff<enzyme::ForwardWithPrimal>(lam, enzyme::Duplicated<double>(x, 2.0));
    check_close("lambda tangent", enzyme::get<0>(tl), 2.0 * exp(c * x) * (1 + c * x), TOL_AD);
    check_close("lambda primal", enzyme::get<1>(tl), lam(x), TOL_AD);
  }
  return check_report();
}
