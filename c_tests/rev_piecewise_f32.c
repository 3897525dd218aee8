/* rev_piecewise_f32.c: float functions with several returns and various
 * fcmp predicates (ole, olt, oge, une, ogt), one point per region. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

typedef struct { float dx, dy; } grad2f;
grad2f __enzyme_autodiff_grad2f(void *, ...);

static float pw(float x) {
  if (x <= -1.0f) return x * x * 0.5f;
  if (x < 0.0f) return -x;
  if (x >= 3.0f) return 9.0f;
  if (x != 1.0f) return x * x * x / 3.0f;
  return 1.0f / 3.0f;
}
static double dpw(double x) {
  if (x <= -1.0) return x;
  if (x < 0.0) return -1.0;
  if (x >= 3.0) return 0.0;
  return x * x;
}

static float pw2(float x, float y) {
  if (x * y > 1.0f) return x + y;
  if (x > y) return x * y;
  return y * y - x;
}
static float pw2_v(const float *v) { return pw2(v[0], v[1]); }

int main(void) {
  const float xs[] = {-2.5f, -0.5f, 4.0f, 1.5f, 0.5f};
  for (int i = 0; i < 5; i++)
    CHECK_GRAD1F(pw, dpw, xs[i]);
  const float p[3][2] = {{2.0f, 1.0f}, {0.5f, -1.0f}, {-0.5f, 0.75f}};
  const double w[3][2] = {{1.0, 1.0}, {-1.0, 0.5}, {-1.0, 1.5}};
  for (int i = 0; i < 3; i++) {
    check_at("pw2 x=%g y=%g", p[i][0], p[i][1]);
    grad2f a = __enzyme_autodiff_grad2f((void *)pw2, p[i][0], p[i][1]);
    check_close("dx vs analytic", a.dx, w[i][0], TOL_AD_F);
    check_close("dy vs analytic", a.dy, w[i][1], TOL_AD_F);
    check_close("dx vs FD", a.dx, fdnf(pw2_v, p[i], 2, 0), TOL_FD_F);
    check_close("dy vs FD", a.dy, fdnf(pw2_v, p[i], 2, 1), TOL_FD_F);
  }
  return check_report();
}
