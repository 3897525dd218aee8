/* call_f32.c: float code through a noinline callee: a float array (dup)
 * and a float scalar (`out`, promoted to double through `...` and its
 * adjoint returned by __enzyme_autodiff_f32) flow into the callee.
 *   S(x, k) = x0^2 k + sinf(x1 k)
 *   f(x, y) = S(x, y) x2 + y^2
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

__attribute__((noinline)) static float sq_sin(float *x, float k) {
  return x[0] * x[0] * k + sinf(x[1] * k);
}
static float f(float *x, float y) { return sq_sin(x, y) * x[2] + y * y; }
/* u = {x0, x1, x2, y} */
static float f_v(float *u) { return f(u, u[3]); }
static void grad(const float *u, double *g) {
  double x0 = u[0], x1 = u[1], x2 = u[2], y = u[3];
  double S = x0 * x0 * y + sin(x1 * y);
  g[0] = 2.0 * x0 * y * x2;
  g[1] = cos(x1 * y) * y * x2;
  g[2] = S;
  g[3] = (x0 * x0 + cos(x1 * y) * x1) * x2 + 2.0 * y;
}

#ifdef NO_AD
static float emul(float *x, float *dx, float y) {
  float u[4] = {x[0], x[1], x[2], y};
  double g[4];
  grad(u, g);
  for (int k = 0; k < 3; k++)
    dx[k] += (float)g[k];
  return (float)g[3];
}
#endif

int main(void) {
  const float pts[2][4] = {{0.9f, -1.4f, 1.3f, 0.7f}, {-0.6f, 0.8f, -2.1f, -1.2f}};
  for (int p = 0; p < 2; p++) {
    float x[3] = {pts[p][0], pts[p][1], pts[p][2]}, dx[3] = {0}, y = pts[p][3];
    double g[4];
    grad(pts[p], g);
    check_at("f point %d", p);
#ifdef NO_AD
    float dy = emul(x, dx, y);
#else
    float dy = __enzyme_autodiff_f32((void *)f, enzyme_dup, x, dx, y);
#endif
    for (int k = 0; k < 3; k++) {
      check_close_i("dx vs analytic", k, dx[k], g[k], TOL_AD_F);
      check_close_i("dx vs FD", k, dx[k], fdpf(f_v, pts[p], 4, k), TOL_FD_F);
    }
    check_close("dy vs analytic", dy, g[3], TOL_AD_F);
    check_close("dy vs FD", dy, fdpf(f_v, pts[p], 4, 3), TOL_FD_F);
  }
  return check_report();
}
