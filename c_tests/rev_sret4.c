/* rev_sret4.c: four double `out` args -> struct of 4 doubles (sret), and
 * four `out` args with a const int in the middle of the list. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

typedef struct { double da, db, dc, dd; } grad4;
grad4 __enzyme_autodiff_grad4(void *, ...);

static double f(double a, double b, double c, double d) {
  return a * b - c * d + a / d + sin(b * c);
}
static double f_v(const double *v) { return f(v[0], v[1], v[2], v[3]); }
static grad4 df(double a, double b, double c, double d) {
  grad4 r;
  r.da = b + 1.0 / d;
  r.db = a + c * cos(b * c);
  r.dc = -d + b * cos(b * c);
  r.dd = -c - a / (d * d);
  return r;
}

/* The int is const by default and takes no slot in the result. */
static double g(double a, double b, int n, double c, double d) {
  return n * (a * b - c * d + a / d + sin(b * c));
}

static void check4(grad4 g, grad4 w, const double *v, double scale) {
  check_close("da vs analytic", g.da, scale * w.da, TOL_AD);
  check_close("db vs analytic", g.db, scale * w.db, TOL_AD);
  check_close("dc vs analytic", g.dc, scale * w.dc, TOL_AD);
  check_close("dd vs analytic", g.dd, scale * w.dd, TOL_AD);
  check_close("da vs FD", g.da, scale * fdn(f_v, v, 4, 0), TOL_FD);
  check_close("db vs FD", g.db, scale * fdn(f_v, v, 4, 1), TOL_FD);
  check_close("dc vs FD", g.dc, scale * fdn(f_v, v, 4, 2), TOL_FD);
  check_close("dd vs FD", g.dd, scale * fdn(f_v, v, 4, 3), TOL_FD);
}

int main(void) {
  const double p[3][4] = {{0.5, 1.5, 2.5, 3.5}, {-1.1, 0.3, 0.9, -2.2}, {2.0, -0.7, -1.6, 0.6}};
  for (int i = 0; i < 3; i++) {
    const double *v = p[i];
    grad4 w = df(v[0], v[1], v[2], v[3]);
    check_at("f %g %g %g %g", v[0], v[1], v[2], v[3]);
    grad4 a = __enzyme_autodiff_grad4((void *)f, v[0], v[1], v[2], v[3]);
    check4(a, w, v, 1.0);
    check_at("g (n=-3) %g %g %g %g", v[0], v[1], v[2], v[3]);
    grad4 b = __enzyme_autodiff_grad4((void *)g, v[0], v[1], -3, v[2], v[3]);
    check4(b, w, v, -3.0);
  }
  return check_report();
}
