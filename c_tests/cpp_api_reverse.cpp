// cpp_api_reverse.cpp: the C++ interface <enzyme/enzyme> in reverse mode
// (enzyme::Reverse and enzyme::ReverseWithPrimal), checked against the
// analytic derivatives and central finite differences:
//   - a scalar function of three Active doubles, with a Const return (only
//     memory adjoints flow) and with its primal result;
//   - Duplicated arrays with a Const<int> length and an Active scale;
//   - a struct by const reference (Duplicated<const T &>) and by pointer;
//   - a void function writing an output array (Duplicated on both sides);
//   - a lambda with a capture, a function object and a float function.
#include <enzyme/enzyme>
#include <math.h>
#include "check.h"
#include "cpp_api_f3.h"


static double weighted(const double *p, double a, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += a * p[i] * p[i] + log(1 + p[i] * p[i]);
  return s;
}

struct Particle {
  double x, v;
};
static double energy(const Particle &s, double k) {
  return 0.5 * s.v * s.v + 0.5 * k * s.x * s.x + cos(s.x * s.v);
}
static double energy_ptr(const Particle *s, double k) { return energy(*s, k); }

static void smooth(double *out, const double *in, int n) {
  for (int i = 0; i < n; i++) {
    double l = in[i > 0 ? i - 1 : i], r = in[i + 1 < n ? i + 1 : i];
    out[i] = tanh(0.25 * l + 0.5 * in[i] + 0.25 * r);
  }
}

struct Poly {
  double c0, c1, c2;
  double operator()(double x) const { return c0 + x * (c1 + x * c2); }
};

static float ff(float x, float y) { return x * x * y + sinf(y); }

// Finite-difference helpers over globals.
static double g_a;
static double weighted_at(const double *v) { return weighted(v, g_a, 4); }

int main() {
  const double pts[3][3] = {{0.3, 0.7, -0.4}, {-1.1, 0.2, 0.9}, {0.8, -0.6, 0.5}};
  for (int k = 0; k < 3; k++) {
    double x = pts[k][0], y = pts[k][1], z = pts[k][2];
    check_at("f3 at (%g, %g, %g)", x, y, z);
    double want[3];
    f3_grad(x, y, z, want);
    g_args[0] = x, g_args[1] = y, g_args[2] = z;

    auto r = enzyme::autodiff<enzyme::Reverse>(f3, enzyme::Active<double>(x),
                                               enzyme::Active<double>(y),
                                               enzyme::Active<double>(z));
    enzyme::tuple<double, double, double> g = enzyme::get<0>(r);
    check_close("dx", enzyme::get<0>(g), want[0], TOL_AD);
    check_close("dy", enzyme::get<1>(g), want[1], TOL_AD);
    check_close("dz", enzyme::get<2>(g), want[2], TOL_AD);
    for (int i = 0; i < 3; i++)
      check_close("d vs FD", i == 0 ? enzyme::get<0>(g) : i == 1 ? enzyme::get<1>(g) : enzyme::get<2>(g),
                  fdn(f3_at, g_args, 3, i), TOL_FD);

    // Structured bindings over the adjoints; y Const.
    auto [dx, dz] = enzyme::get<0>(enzyme::autodiff<enzyme::Reverse>(
        f3, enzyme::Active<double>(x), enzyme::Const<double>(y), enzyme::Active<double>(z)));
    check_close("dx (y const)", dx, want[0], TOL_AD);
    check_close("dz (y const)", dz, want[2], TOL_AD);

    // With the primal: tuple<tuple<adjoints>, f>.
    auto rp = enzyme::autodiff<enzyme::ReverseWithPrimal>(
        f3, enzyme::Active<double>(x), enzyme::Const<double>(y), z);
    check_close("primal", enzyme::get<1>(rp), f3(x, y, z), TOL_AD);
    check_close("dx with primal", enzyme::get<0>(enzyme::get<0>(rp)), want[0], TOL_AD);

    // A Const return: not seeded, so no adjoint at all.
    auto rc = enzyme::autodiff<enzyme::Reverse, enzyme::Const<double>>(
        f3, enzyme::Active<double>(x), enzyme::Const<double>(y), enzyme::Const<double>(z));
    check_close("dx of a const return", enzyme::get<0>(enzyme::get<0>(rc)), 0.0, TOL_AD);
  }

  // Duplicated array, Active scale, Const length.
  {
    double p[4] = {0.5, -1.25, 2.0, 0.75}, dp[4] = {0, 0, 0, 0};
    g_a = 1.7;
    check_at("weighted");
    auto r = enzyme::autodiff<enzyme::Reverse>(
        weighted, enzyme::Duplicated<const double *>(p, dp), enzyme::Active<double>(g_a),
        enzyme::Const<int>(4));
    double da = enzyme::get<0>(enzyme::get<0>(r)), want_da = 0;
    for (int i = 0; i < 4; i++) {
      want_da += p[i] * p[i];
      double want = 2 * g_a * p[i] + 2 * p[i] / (1 + p[i] * p[i]);
      check_close_i("dp", i, dp[i], want, TOL_AD);
      check_close_i("dp vs FD", i, dp[i], fdn(weighted_at, p, 4, i), TOL_FD);
    }
    check_close("da", da, want_da, TOL_AD);
  }

  // A struct by const reference and by pointer.
  {
    Particle s = {0.4, -1.3}, ds = {0, 0};
    double k = 2.5;
    check_at("energy");
    auto r = enzyme::autodiff<enzyme::Reverse>(
        energy, enzyme::Duplicated<const Particle &>(s, ds), enzyme::Active<double>(k));
    double sn = sin(s.x * s.v);
    check_close("dx", ds.x, k * s.x - sn * s.v, TOL_AD);
    check_close("dv", ds.v, s.v - sn * s.x, TOL_AD);
    check_close("dk", enzyme::get<0>(enzyme::get<0>(r)), 0.5 * s.x * s.x, TOL_AD);
    Particle dq = {0, 0};
    enzyme::autodiff<enzyme::Reverse>(energy_ptr, enzyme::Duplicated<const Particle *>(&s, &dq),
                                      enzyme::Const<double>(k));
    check_close("dx by pointer", dq.x, k * s.x - sn * s.v, TOL_AD);
    check_close("dv by pointer", dq.v, s.v - sn * s.x, TOL_AD);
  }

  // A void function: seed the output's shadow, read the input's.
  {
    double in[5] = {0.1, -0.4, 0.9, 0.3, -0.2}, din[5] = {0};
    double out[5], dout[5] = {0, 0, 1, 0, 0};
    check_at("smooth");
    enzyme::autodiff<enzyme::Reverse>(smooth, enzyme::Duplicated<double *>(out, dout),
                                      enzyme::Duplicated<const double *>(in, din),
                                      enzyme::Const<int>(5));
    double a = 0.25 * in[1] + 0.5 * in[2] + 0.25 * in[3], t = 1 - tanh(a) * tanh(a);
    check_close("din[1]", din[1], 0.25 * t, TOL_AD);
    check_close("din[2]", din[2], 0.5 * t, TOL_AD);
    check_close("din[3]", din[3], 0.25 * t, TOL_AD);
    check_close("din[0]", din[0], 0.0, TOL_AD);
    check_close("out[2]", out[2], tanh(a), TOL_AD);
  }

  // A lambda with a capture and a function object.
  {
    double c = 1.5;
    auto lam = [&c](double x, double y) { return c * x * x * y + sin(x * y); };
    double x = 0.7, y = -0.3;
    check_at("lambda");
    auto r = enzyme::autodiff<enzyme::ReverseWithPrimal>(lam, enzyme::Active<double>(x),
                                                         enzyme::Active<double>(y));
    check_close("dx", enzyme::get<0>(enzyme::get<0>(r)), 2 * c * x * y + y * cos(x * y), TOL_AD);
    check_close("dy", enzyme::get<1>(enzyme::get<0>(r)), c * x * x + x * cos(x * y), TOL_AD);
    check_close("primal", enzyme::get<1>(r), lam(x, y), TOL_AD);

    Poly q = {0.5, -2.0, 3.0};
    auto rq = enzyme::autodiff<enzyme::Reverse>(q, enzyme::Active<double>(x));
    check_close("Poly'", enzyme::get<0>(enzyme::get<0>(rq)), q.c1 + 2 * q.c2 * x, TOL_AD);
  }

  // float.
  {
    float x = 1.25f, y = -0.5f;
    check_at("float");
    auto r = enzyme::autodiff<enzyme::Reverse>(ff, enzyme::Active<float>(x), enzyme::Active<float>(y));
    check_close("dx", enzyme::get<0>(enzyme::get<0>(r)), 2 * x * y, TOL_AD_F);
    check_close("dy", enzyme::get<1>(enzyme::get<0>(r)), x * x + cosf(y), TOL_AD_F);
  }
  return check_report();
}
