/* rev_multi_out_f32.c: several float `out` args: 2 -> {float,float}
 * (<2 x float>), 3 -> {<2 x float>, float}, 4 -> {<2 x float>, <2 x float>}. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

typedef struct { float dx, dy; } g2f;
typedef struct { float dx, dy, dz; } g3f;
typedef struct { float da, db, dc, dd; } g4f;
g2f __enzyme_autodiff_g2f(void *, ...);
g3f __enzyme_autodiff_g3f(void *, ...);
g4f __enzyme_autodiff_g4f(void *, ...);

static float f2(float x, float y) { return x * y + sinf(x); }
static float f2_v(const float *v) { return f2(v[0], v[1]); }
static float f3(float x, float y, float z) { return x * y * z - z / x; }
static float f3_v(const float *v) { return f3(v[0], v[1], v[2]); }
static float f4(float a, float b, float c, float d) { return a * b + c * d * d - a / c; }
static float f4_v(const float *v) { return f4(v[0], v[1], v[2], v[3]); }

int main(void) {
  const float p[3][4] = {{0.5f, 1.5f, 2.5f, -0.5f}, {-1.25f, 0.75f, 0.5f, 1.5f}, {2.0f, -0.7f, -1.6f, 0.6f}};
  for (int i = 0; i < 3; i++) {
    const float *v = p[i];
    double a = v[0], b = v[1], c = v[2], d = v[3];
    check_at("f2 %g %g", a, b);
    g2f r2 = __enzyme_autodiff_g2f((void *)f2, v[0], v[1]);
    check_close("dx vs analytic", r2.dx, b + cos(a), TOL_AD_F);
    check_close("dy vs analytic", r2.dy, a, TOL_AD_F);
    check_close("dx vs FD", r2.dx, fdnf(f2_v, v, 2, 0), TOL_FD_F);
    check_close("dy vs FD", r2.dy, fdnf(f2_v, v, 2, 1), TOL_FD_F);

    check_at("f3 %g %g %g", a, b, c);
    g3f r3 = __enzyme_autodiff_g3f((void *)f3, v[0], v[1], v[2]);
    check_close("dx vs analytic", r3.dx, b * c + c / (a * a), TOL_AD_F);
    check_close("dy vs analytic", r3.dy, a * c, TOL_AD_F);
    check_close("dz vs analytic", r3.dz, a * b - 1.0 / a, TOL_AD_F);
    check_close("dx vs FD", r3.dx, fdnf(f3_v, v, 3, 0), TOL_FD_F);
    check_close("dy vs FD", r3.dy, fdnf(f3_v, v, 3, 1), TOL_FD_F);
    check_close("dz vs FD", r3.dz, fdnf(f3_v, v, 3, 2), TOL_FD_F);

    check_at("f4 %g %g %g %g", a, b, c, d);
    g4f r4 = __enzyme_autodiff_g4f((void *)f4, v[0], v[1], v[2], v[3]);
    check_close("da vs analytic", r4.da, b - 1.0 / c, TOL_AD_F);
    check_close("db vs analytic", r4.db, a, TOL_AD_F);
    check_close("dc vs analytic", r4.dc, d * d + a / (c * c), TOL_AD_F);
    check_close("dd vs analytic", r4.dd, 2.0 * c * d, TOL_AD_F);
    check_close("da vs FD", r4.da, fdnf(f4_v, v, 4, 0), TOL_FD_F);
    check_close("db vs FD", r4.db, fdnf(f4_v, v, 4, 1), TOL_FD_F);
    check_close("dc vs FD", r4.dc, fdnf(f4_v, v, 4, 2), TOL_FD_F);
    check_close("dd vs FD", r4.dd, fdnf(f4_v, v, 4, 3), TOL_FD_F);
  }
  return check_report();
}
