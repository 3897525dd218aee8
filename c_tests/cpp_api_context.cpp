// cpp_api_context.cpp: contexts of global shadows through the C++
// interface: enzyme::context(), enzyme::shadow(ctx, global),
// enzyme::zero_shadows(ctx) and enzyme::autodiff<Mode>(ctx, f, args...),
// for f(x) = scale x^2 + Params::offset x (a global and a static member):
//   - reverse: d/dx, and the adjoints of both globals in the context,
//     against the analytic derivative and central differences of f in
//     each global; a second context is independent;
//   - forward: a tangent seeded in the context's shadow of `scale`.
#include <enzyme/enzyme>
#include <math.h>
#include "check.h"

double scale = 2.0;
struct Params {
  static double offset;
};
double Params::offset = 1.0;

static double f(double x) { return scale * x * x + Params::offset * x; }

static double *global_;
static double x_;
static double f_in_global(double v) {
  double keep = *global_;
  *global_ = v;
  double y = f(x_);
  *global_ = keep;
  return y;
}
static double fd_global(double &g, double x) {
  global_ = &g;
  x_ = x;
  return fd1(f_in_global, g);
}

int main() {
  auto ctx = enzyme::context();
  double *dscale = enzyme::shadow(ctx, scale);
  double *doffset = enzyme::shadow(ctx, Params::offset);
  for (double x = -1.0; x <= 2.5; x += 1.75) {
    check_at("reverse x=%g", x);
    enzyme::zero_shadows(ctx);
    auto r = enzyme::autodiff<enzyme::Reverse>(ctx, f, enzyme::Active<double>(x));
    double dx = enzyme::get<0>(enzyme::get<0>(r));
    check_close("dx vs analytic", dx, 2 * scale * x + Params::offset, TOL_AD);
    check_close("dx vs FD", dx, fd1(f, x), TOL_FD);
    check_close("d/dscale vs analytic", *dscale, x * x, TOL_AD);
    check_close("d/dscale vs FD", *dscale, fd_global(scale, x), TOL_FD);
    check_close("d/doffset vs FD", *doffset, fd_global(Params::offset, x), TOL_FD);

    auto other = enzyme::context();
    enzyme::autodiff<enzyme::Reverse>(other, f, enzyme::Active<double>(x));
    check_close("other context", *enzyme::shadow(other, scale), x * x, TOL_AD);
    check_close("first context unchanged", *dscale, x * x, TOL_AD);

    check_at("forward x=%g", x);
    enzyme::zero_shadows(ctx);
    *dscale = 1.0;
    auto t = enzyme::autodiff<enzyme::Forward>(ctx, f, enzyme::Duplicated<double>(x, 0.0));
    check_close("seeded d/dscale", enzyme::get<0>(t), x * x, TOL_AD);
  }
  return check_report();
}
