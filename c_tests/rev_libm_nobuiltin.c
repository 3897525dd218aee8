// enz-cflags: -fno-builtin
/* rev_libm_nobuiltin.c: with -fno-builtin even fabs, fmin, fmax, floor,
 * ceil, trunc, round, copysign, fma (and their f32 forms) stay plain libm
 * calls (marked nobuiltin, no memory attributes): rules match by name. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

typedef struct { double dx, dy; } grad2;
grad2 __enzyme_autodiff_grad2(void *, ...);
typedef struct { float dx, dy; } grad2f;
grad2f __enzyme_autodiff_grad2f(void *, ...);

static double sgn(double x) { return x > 0 ? 1.0 : -1.0; }
static double n1(double x) {
  return fabs(x) * sin(x) + floor(x) * exp(x) + ceil(x) + trunc(x) * x + round(x) * log(x * x);
}
static double dn1(double x) {
  return sgn(x) * sin(x) + fabs(x) * cos(x) + floor(x) * exp(x) + trunc(x) + round(x) * 2.0 / x;
}
static double n2(double x, double y) {
  return 2.0 * fmin(x, y) + fmax(x * y, 0.5) + copysign(y, x) + fma(x, y, sqrt(y * y + 1.0));
}
static double n2_v(const double *v) { return n2(v[0], v[1]); }
static float n3(float x, float y) {
  return fminf(x, y) + fmaxf(x, -y) * x + fabsf(y) + floorf(x) * y + 0.5f * copysignf(x, y) +
         fmaf(x, x, y) + sqrtf(x * x + y * y);
}
static float n3_v(const float *v) { return n3(v[0], v[1]); }

int main(void) {
  const double xs[] = {1.3, -2.6, 0.4};
  for (int i = 0; i < 3; i++)
    CHECK_GRAD1(n1, dn1, xs[i]);
  const double p[3][2] = {{1.5, 0.8}, {-0.7, 1.2}, {0.9, -1.1}};
  for (int i = 0; i < 3; i++) {
    double x = p[i][0], y = p[i][1];
    double wx = y, wy = x + y / sqrt(y * y + 1.0) + sgn(y) * sgn(x);
    if (x < y) wx += 2; else wy += 2;
    if (x * y > 0.5) { wx += y; wy += x; }
    check_at("n2 x=%g y=%g", x, y);
    grad2 a = __enzyme_autodiff_grad2((void *)n2, x, y);
    check_close("dx vs analytic", a.dx, wx, TOL_AD);
    check_close("dy vs analytic", a.dy, wy, TOL_AD);
    check_close("dx vs FD", a.dx, fdn(n2_v, p[i], 2, 0), TOL_FD);
    check_close("dy vs FD", a.dy, fdn(n2_v, p[i], 2, 1), TOL_FD);
  }
  const float q[3][2] = {{0.6f, 1.3f}, {-1.4f, 0.5f}, {2.3f, -0.8f}};
  for (int i = 0; i < 3; i++) {
    double x = q[i][0], y = q[i][1], r = sqrt(x * x + y * y);
    double wx = (x < y) + 0.5 * sgn(x) * sgn(y) + 2.0 * x + x / r;
    double wy = (x < y ? 0.0 : 1.0) + sgn(y) + floor(x) + 1.0 + y / r;
    if (x > -y) wx += 2.0 * x; else { wx += -y; wy += -x; }
    check_at("n3 x=%g y=%g", x, y);
    grad2f b = __enzyme_autodiff_grad2f((void *)n3, q[i][0], q[i][1]);
    check_close("dx vs analytic", b.dx, wx, TOL_AD_F);
    check_close("dy vs analytic", b.dy, wy, TOL_AD_F);
    check_close("dx vs FD", b.dx, fdnf(n3_v, q[i], 2, 0), TOL_FD_F);
    check_close("dy vs FD", b.dy, fdnf(n3_v, q[i], 2, 1), TOL_FD_F);
  }
  return check_report();
}
