/* rev_select.c: ?: on active values (select at -O1+), conditions from an
 * active fcmp, from an inactive int param, and from a derived value. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

typedef struct { double dx, dy; } grad2;
grad2 __enzyme_autodiff_grad2(void *, ...);

static double s1(double x, double y) {
  return (x > y ? x * y : x + y) + (y < 0.0 ? -y : 2.0 * y);
}
static double s1_v(const double *v) { return s1(v[0], v[1]); }
static grad2 ds1(double x, double y) {
  grad2 r = x > y ? (grad2){y, x} : (grad2){1.0, 1.0};
  r.dy += y < 0.0 ? -1.0 : 2.0;
  return r;
}

static double s2(double x, int n) { return (n > 2 ? x * x : 3.0 * x) + ((n & 1) ? sin(x) : 0.0); }
static double ds2(double x, int n) { return (n > 2 ? 2.0 * x : 3.0) + ((n & 1) ? cos(x) : 0.0); }
static int cur_n;
static double s2_1(double x) { return s2(x, cur_n); }

static double s3(double x) { return sin(x) > 0.5 ? exp(x) : x * x * x; }
static double ds3(double x) { return sin(x) > 0.5 ? exp(x) : 3.0 * x * x; }

int main(void) {
  const double p[4][2] = {{1.5, 0.5}, {0.3, -0.7}, {-1.2, 0.8}, {-1.2, -0.4}};
  for (int i = 0; i < 4; i++) {
    check_at("s1 x=%g y=%g", p[i][0], p[i][1]);
    grad2 g = __enzyme_autodiff_grad2((void *)s1, p[i][0], p[i][1]);
    grad2 w = ds1(p[i][0], p[i][1]);
    check_close("dx vs analytic", g.dx, w.dx, TOL_AD);
    check_close("dy vs analytic", g.dy, w.dy, TOL_AD);
    check_close("dx vs FD", g.dx, fdn(s1_v, p[i], 2, 0), TOL_FD);
    check_close("dy vs FD", g.dy, fdn(s1_v, p[i], 2, 1), TOL_FD);
  }
  const int ns[] = {1, 2, 5};
  for (int i = 0; i < 3; i++) {
    double x = 0.9 - 0.7 * i;
    cur_n = ns[i];
    check_at("s2 x=%g n=%d", x, ns[i]);
    double d = __enzyme_autodiff((void *)s2, x, ns[i]);
    check_close("dx vs analytic", d, ds2(x, ns[i]), TOL_AD);
    check_close("dx vs FD", d, fd1(s2_1, x), TOL_FD);
  }
  const double xs[] = {1.0, 0.2, -1.0};
  for (int i = 0; i < 3; i++) {
    check_at("s3 x=%g", xs[i]);
    double d = __enzyme_autodiff((void *)s3, xs[i]);
    check_close("dx vs analytic", d, ds3(xs[i]), TOL_AD);
    check_close("dx vs FD", d, fd1(s3, xs[i]), TOL_FD);
  }
  return check_report();
}
