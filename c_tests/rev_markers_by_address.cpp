// rev_markers_by_address.cpp: activity markers passed by address, through
// templated entry points, as Enzyme's C++ header and rustc pass them.
//   template <typename R, typename... Args> R __enzyme_autodiff(void *, Args...);
// mangles as _Z17__enzyme_autodiffIdJPidS0_dEET_PvDpT0_ and the like (one
// declaration per instantiation, no varargs: floats are not promoted), and
// `&enzyme_const` is the marker global itself, not a load of it.
//   f(x, y)    = x^2 y + sin(x y)
//   g(p, c, n) = c * sum_k p[k]^2
// Checked against the analytic derivatives and central differences:
// reverse mode with &enzyme_const / &enzyme_out / &enzyme_dup and markers
// by value mixed, a struct of two adjoints, {primal, adjoints} through sret
// with &enzyme_primal_return, forward mode with &enzyme_dup,
// a float function, and &enzyme_width anywhere.
// Build with -DNO_AD to replace the AD calls by the analytic derivative.
#include <math.h>
#include "enzyme.h"
#include "check.h"

template <typename R, typename... Args> R __enzyme_autodiff(void *, Args...);
template <typename R, typename... Args> R __enzyme_fwddiff(void *, Args...);

struct grad2 {
  double dx, dy;
};
struct tan2 {
  double d[2];
};
struct prim2 { // returned through sret
  double f, dx, dy;
};

static double f(double x, double y) { return x * x * y + sin(x * y); }
static double f_v(const double *v) { return f(v[0], v[1]); }
static double fx(double x, double y) { return 2.0 * x * y + y * cos(x * y); }
static double fy(double x, double y) { return x * x + x * cos(x * y); }
static float ff(float x) { return x * sinf(x); }
static float ff_v(const float *v) { return ff(v[0]); }

__attribute__((noinline)) double g(double *p, double c, int n) {
  double s = 0.0;
  for (int k = 0; k < n; k++)
    s += p[k] * p[k];
  return c * s;
}
static double g_c(const double *v) {
  double p[3] = {0.3, -1.2, 0.8};
  return g(p, v[0], 3);
}

int main() {
  const double pts[3][2] = {{0.7, -1.3}, {-1.1, 0.4}, {1.6, 0.9}};
  for (int i = 0; i < 3; i++) {
    double x = pts[i][0], y = pts[i][1];
    double v[2] = {x, y};
    double wx = fx(x, y), wy = fy(x, y);
    double fdx = fdn(f_v, v, 2, 0), fdy = fdn(f_v, v, 2, 1);
#ifdef NO_AD
    double a = wy, b = wx;
    grad2 r = {wx, wy};
    double t = wx + 0.5 * wy;
    tan2 w = {{wx, wy}};
    prim2 pr = {f(x, y), wx, wy};
#else
    double a = __enzyme_autodiff<double>((void *)f, &enzyme_const, x,
                                         &enzyme_out, y);
    double b = __enzyme_autodiff<double>((void *)f, x, enzyme_const, y);
    grad2 r = __enzyme_autodiff<grad2>((void *)f, &enzyme_out, x, y);
    double t = __enzyme_fwddiff<double>((void *)f, &enzyme_dup, x, 1.0, y, 0.5);
    tan2 w = __enzyme_fwddiff<tan2>((void *)f, x, 1.0, 0.0, y, 0.0, 1.0,
                                    &enzyme_width, 2);
    prim2 pr = __enzyme_autodiff<prim2>((void *)f, x, &enzyme_primal_return, y);
#endif
    check_at("f point %d", i);
    check_close("&const x, &out y", a, wy, TOL_AD);
    check_close("&const x, &out y vs FD", a, fdy, TOL_FD);
    check_close("out x, const y by value", b, wx, TOL_AD);
    check_close("grad2 dx", r.dx, wx, TOL_AD);
    check_close("grad2 dy", r.dy, wy, TOL_AD);
    check_close("grad2 dx vs FD", r.dx, fdx, TOL_FD);
    check_close("fwd &dup", t, wx + 0.5 * wy, TOL_AD);
    check_close("fwd &dup vs FD", t, fdx + 0.5 * fdy, TOL_FD);
    check_close("fwd width 2 lane 0", w.d[0], wx, TOL_AD);
    check_close("fwd width 2 lane 1", w.d[1], wy, TOL_AD);
    check_close("&primal_return (sret): primal", pr.f, f(x, y), TOL_AD);
    check_close("&primal_return (sret): dx", pr.dx, wx, TOL_AD);
    check_close("&primal_return (sret): dy vs FD", pr.dy, fdy, TOL_FD);
  }
  const float fpts[2] = {0.8f, -1.4f};
  for (int i = 0; i < 2; i++) {
    float x = fpts[i];
#ifdef NO_AD
    float d = sinf(x) + x * cosf(x);
#else
    float d = __enzyme_autodiff<float>((void *)ff, &enzyme_out, x);
#endif
    check_at("ff x=%g", x);
    check_close("float &out", d, sinf(x) + x * cosf(x), TOL_AD_F);
    check_close("float &out vs FD", d, fdnf(ff_v, &x, 1, 0), TOL_FD_F);
  }
  for (int i = 0; i < 2; i++) {
    double p[3] = {0.3, -1.2, 0.8}, dp[3] = {0, 0, 0};
    double c = i ? -1.7 : 0.6;
    double s = p[0] * p[0] + p[1] * p[1] + p[2] * p[2];
#ifdef NO_AD
    double dc = s;
    for (int k = 0; k < 3; k++)
      dp[k] = 2.0 * c * p[k];
#else
    double dc = __enzyme_autodiff<double>((void *)g, &enzyme_dup, p, dp,
                                          &enzyme_out, c, &enzyme_const, 3);
#endif
    double cv[1] = {c};
    check_at("g c=%g", c);
    check_close("dc", dc, s, TOL_AD);
    check_close("dc vs FD", dc, fdn(g_c, cv, 1, 0), TOL_FD);
    for (int k = 0; k < 3; k++)
      check_close("dp[k] (&dup)", dp[k], 2.0 * c * p[k], TOL_AD);
  }
  return check_report();
}
