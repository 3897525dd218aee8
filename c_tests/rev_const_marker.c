/* rev_const_marker.c: explicit enzyme_const on double args (no adjoint
 * returned for them, later adjoints move up) and enzyme_out markers. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

typedef struct { double d0, d1; } grad2;
grad2 __enzyme_autodiff_grad2(void *, ...);
typedef struct { double d0, d1, d2; } grad3;
grad3 __enzyme_autodiff_grad3(void *, ...);

static double f(double a, double x, double b) { return a * sin(x) + b * x * x + a * b; }
static double f_v(const double *v) { return f(v[0], v[1], v[2]); }

int main(void) {
  const double p[3][3] = {{1.5, 0.7, -0.4}, {-0.8, 2.1, 1.3}, {2.4, -1.2, 0.6}};
  for (int i = 0; i < 3; i++) {
    const double *v = p[i];
    double a = v[0], x = v[1], b = v[2];
    double da = sin(x) + b, dx = a * cos(x) + 2.0 * b * x, db = x * x + a;
    check_at("f a=%g x=%g b=%g", a, x, b);

    double r1 = __enzyme_autodiff((void *)f, enzyme_const, a, x, enzyme_const, b);
    check_close("dx (a,b const) vs analytic", r1, dx, TOL_AD);
    check_close("dx (a,b const) vs FD", r1, fdn(f_v, v, 3, 1), TOL_FD);

    double r2 = __enzyme_autodiff((void *)f, a, enzyme_const, x, enzyme_const, b);
    check_close("da (x,b const) vs analytic", r2, da, TOL_AD);
    check_close("da (x,b const) vs FD", r2, fdn(f_v, v, 3, 0), TOL_FD);

    grad2 r3 = __enzyme_autodiff_grad2((void *)f, enzyme_out, a, enzyme_const, x, b);
    check_close("da (x const) vs analytic", r3.d0, da, TOL_AD);
    check_close("db (x const) vs analytic", r3.d1, db, TOL_AD);
    check_close("db (x const) vs FD", r3.d1, fdn(f_v, v, 3, 2), TOL_FD);

    grad3 r4 = __enzyme_autodiff_grad3((void *)f, enzyme_out, a, enzyme_out, x, enzyme_out, b);
    check_close("da (all out) vs analytic", r4.d0, da, TOL_AD);
    check_close("dx (all out) vs analytic", r4.d1, dx, TOL_AD);
    check_close("db (all out) vs analytic", r4.d2, db, TOL_AD);
  }
  return check_report();
}
