/* rev_fptrunc.c: fptrunc/fpext mixing: a double function computed partly
 * in float, a float function computed in double, a {double,float} result. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

typedef struct { double dx; float dy; } g_df;
g_df __enzyme_autodiff_df(void *, ...);

static double f(double x) {
  float y = (float)x;
  return (double)(sinf(y) * y) + x * x;
}
static float g(float a) { return (float)(exp((double)a) * (double)a * 0.5); }
static double h(double x, float y) { return (double)((float)x * y) + x; }
static double h_v(const double *v) { return h(v[0], (float)v[1]); }

int main(void) {
  const double xs[] = {0.6, -1.3, 2.2};
  for (int i = 0; i < 3; i++) {
    double x = xs[i];
    double y = (float)x;
    double hf = FD_REL_F * (1.0 + fabs(x));
    check_at("f x=%g", x);
    double d = __enzyme_autodiff((void *)f, x);
    /* float-precision part: float tolerances */
    check_close("dx vs analytic", d, cos(y) * y + sin(y) + 2.0 * x, TOL_AD_F);
    check_close("dx vs FD", d, fd1_h(f, x, hf), TOL_FD_F);

    float a = (float)(0.5 * x);
    check_at("g a=%g", a);
    float e = __enzyme_autodiff_f32((void *)g, a);
    check_close("da vs analytic", e, 0.5 * exp(a) * (1.0 + a), TOL_AD_F);
    check_close("da vs FD", e, fd1f(g, a), TOL_FD_F);

    double v[2] = {x, (float)(1.0 - x)};
    check_at("h x=%g y=%g", v[0], v[1]);
    g_df r = __enzyme_autodiff_df((void *)h, v[0], (float)v[1]);
    check_close("dx vs analytic", r.dx, v[1] + 1.0, TOL_AD_F);
    check_close("dy vs analytic", r.dy, y, TOL_AD_F);
    check_close("dx vs FD", r.dx, fdn_h(h_v, v, 2, 0, hf), TOL_FD_F);
    check_close("dy vs FD", r.dy, fdn_h(h_v, v, 2, 1, hf), TOL_FD_F);
  }
  return check_report();
}
