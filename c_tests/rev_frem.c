// enz-cflags: -fno-math-errno
/* rev_frem.c: fmod/fmodf compiled to the `frem` instruction (clang emits
 * frem for fmod under -fno-math-errno): d/dx = 1, d/dy = -trunc(x/y). */
#include <math.h>
#include "enzyme.h"
#include "check.h"

typedef struct { double dx, dy; } grad2;
grad2 __enzyme_autodiff_grad2(void *, ...);
typedef struct { float dx, dy; } grad2f;
grad2f __enzyme_autodiff_grad2f(void *, ...);

static double f(double x, double y) { return fmod(x, y) + 0.5 * x * y; }
static double f_v(const double *v) { return f(v[0], v[1]); }
static float ff(float x, float y) { return fmodf(x * x, y) - y; }
static float ff_v(const float *v) { return ff(v[0], v[1]); }

int main(void) {
  /* x/y and x*x/y well away from integers */
  const double p[3][2] = {{5.3, 1.7}, {-4.1, 1.3}, {2.2, -0.9}};
  const float pf[3][2] = {{2.5f, 1.7f}, {-1.8f, 1.3f}, {1.1f, -0.9f}};
  for (int i = 0; i < 3; i++) {
    double x = p[i][0], y = p[i][1];
    check_at("fmod x=%g y=%g", x, y);
    grad2 a = __enzyme_autodiff_grad2((void *)f, x, y);
    check_close("dx vs analytic", a.dx, 1.0 + 0.5 * y, TOL_AD);
    check_close("dy vs analytic", a.dy, -trunc(x / y) + 0.5 * x, TOL_AD);
    check_close("dx vs FD", a.dx, fdn(f_v, p[i], 2, 0), TOL_FD);
    check_close("dy vs FD", a.dy, fdn(f_v, p[i], 2, 1), TOL_FD);

    float q[2] = {pf[i][0], pf[i][1]};
    double xx = (double)q[0] * q[0];
    check_at("fmodf(x*x,y) x=%g y=%g", q[0], q[1]);
    grad2f b = __enzyme_autodiff_grad2f((void *)ff, q[0], q[1]);
    check_close("dx vs analytic", b.dx, 2.0 * q[0], TOL_AD_F);
    check_close("dy vs analytic", b.dy, -trunc(xx / q[1]) - 1.0, TOL_AD_F);
    check_close("dx vs FD", b.dx, fdnf(ff_v, q, 2, 0), TOL_FD_F);
    check_close("dy vs FD", b.dy, fdnf(ff_v, q, 2, 1), TOL_FD_F);
  }
  return check_report();
}
