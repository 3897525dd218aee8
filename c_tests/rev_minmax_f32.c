/* rev_minmax_f32.c: fminf/fmaxf chains and ?: chains in float; 3 float
 * `out` args ({<2 x float>, float} return) and 2 (<2 x float>). */
#include <math.h>
#include "enzyme.h"
#include "check.h"

typedef struct { float da, db, dc; } grad3f;
grad3f __enzyme_autodiff_grad3f(void *, ...);
typedef struct { float dx, dy; } grad2f;
grad2f __enzyme_autodiff_grad2f(void *, ...);

static float m1(float a, float b, float c) {
  return 2.0f * fmaxf(fminf(a, b), c) + fminf(a, -c);
}
static float m1_v(const float *v) { return m1(v[0], v[1], v[2]); }
static grad3f dm1(float a, float b, float c) {
  grad3f r = {0, 0, 0};
  float t = a < b ? a : b;
  if (t > c) { if (a < b) r.da += 2; else r.db += 2; }
  else r.dc += 2;
  if (a < -c) r.da += 1; else r.dc -= 1;
  return r;
}

static float sel(float x, float y) {
  return x > y ? (x > 0.0f ? x * y : y) : (y > 1.0f ? y * y : x - y);
}
static float sel_v(const float *v) { return sel(v[0], v[1]); }
static grad2f dsel(float x, float y) {
  grad2f r;
  if (x > y && x > 0.0f) { r.dx = y; r.dy = x; }
  else if (x > y) { r.dx = 0; r.dy = 1; }
  else if (y > 1.0f) { r.dx = 0; r.dy = 2 * y; }
  else { r.dx = 1; r.dy = -1; }
  return r;
}

int main(void) {
  const float p[3][3] = {{1.0f, 2.0f, 0.5f}, {3.0f, 2.0f, 0.5f}, {-1.0f, 2.0f, 0.5f}};
  for (int i = 0; i < 3; i++) {
    const float *v = p[i];
    check_at("m1 a=%g b=%g c=%g", v[0], v[1], v[2]);
    grad3f g = __enzyme_autodiff_grad3f((void *)m1, v[0], v[1], v[2]);
    grad3f w = dm1(v[0], v[1], v[2]);
    check_close("da vs analytic", g.da, w.da, TOL_AD_F);
    check_close("db vs analytic", g.db, w.db, TOL_AD_F);
    check_close("dc vs analytic", g.dc, w.dc, TOL_AD_F);
    check_close("da vs FD", g.da, fdnf(m1_v, v, 3, 0), TOL_FD_F);
    check_close("db vs FD", g.db, fdnf(m1_v, v, 3, 1), TOL_FD_F);
    check_close("dc vs FD", g.dc, fdnf(m1_v, v, 3, 2), TOL_FD_F);
  }
  const float q[4][2] = {{2.0f, 0.5f}, {-0.5f, -1.5f}, {0.2f, 1.5f}, {-0.3f, 0.4f}};
  for (int i = 0; i < 4; i++) {
    check_at("sel x=%g y=%g", q[i][0], q[i][1]);
    grad2f g = __enzyme_autodiff_grad2f((void *)sel, q[i][0], q[i][1]);
    grad2f w = dsel(q[i][0], q[i][1]);
    check_close("dx vs analytic", g.dx, w.dx, TOL_AD_F);
    check_close("dy vs analytic", g.dy, w.dy, TOL_AD_F);
    check_close("dx vs FD", g.dx, fdnf(sel_v, q[i], 2, 0), TOL_FD_F);
    check_close("dy vs FD", g.dy, fdnf(sel_v, q[i], 2, 1), TOL_FD_F);
  }
  return check_report();
}
