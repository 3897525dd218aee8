/* rev_fma.c: fma/fmaf (llvm.fma) and a*b+c contracted to llvm.fmuladd,
 * double and float. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

typedef struct { double dx, dy, dz; } grad3;
grad3 __enzyme_autodiff_grad3(void *, ...);
typedef struct { float dx, dy; } grad2f;
grad2f __enzyme_autodiff_grad2f(void *, ...);

static double f(double x, double y, double z) { return fma(x, y * y, z * x); }
static double f_v(const double *v) { return f(v[0], v[1], v[2]); }
static double m(double x) { return x * x + 3.0 * x; } /* fmuladd(x, x, 3x) */
static double dm(double x) { return 2.0 * x + 3.0; }
static float ff(float x, float y) { return fmaf(x, y, y * y) + x * y + x; }
static float ff_v(const float *v) { return ff(v[0], v[1]); }
static float mf(float x) { return x * 1.5f + x * x; }
static double dmf(double x) { return 1.5 + 2.0 * x; }

int main(void) {
  const double p[3][3] = {{0.5, 1.5, 2.5}, {-1.1, 0.3, 0.9}, {2.0, -0.7, -1.6}};
  for (int i = 0; i < 3; i++) {
    const double *v = p[i];
    double x = v[0], y = v[1], z = v[2];
    check_at("fma x=%g y=%g z=%g", x, y, z);
    grad3 g = __enzyme_autodiff_grad3((void *)f, x, y, z);
    check_close("dx vs analytic", g.dx, y * y + z, TOL_AD);
    check_close("dy vs analytic", g.dy, 2.0 * x * y, TOL_AD);
    check_close("dz vs analytic", g.dz, x, TOL_AD);
    check_close("dx vs FD", g.dx, fdn(f_v, v, 3, 0), TOL_FD);
    check_close("dy vs FD", g.dy, fdn(f_v, v, 3, 1), TOL_FD);
    check_close("dz vs FD", g.dz, fdn(f_v, v, 3, 2), TOL_FD);

    CHECK_GRAD1(m, dm, x);
    CHECK_GRAD1F(mf, dmf, z);

    float w[2] = {(float)x, (float)z};
    check_at("fmaf x=%g y=%g", w[0], w[1]);
    grad2f h = __enzyme_autodiff_grad2f((void *)ff, w[0], w[1]);
    check_close("dx vs analytic", h.dx, 2.0 * w[1] + 1.0, TOL_AD_F);
    check_close("dy vs analytic", h.dy, 2.0 * w[0] + 2.0 * w[1], TOL_AD_F);
    check_close("dx vs FD", h.dx, fdnf(ff_v, w, 2, 0), TOL_FD_F);
    check_close("dy vs FD", h.dy, fdnf(ff_v, w, 2, 1), TOL_FD_F);
  }
  return check_report();
}
