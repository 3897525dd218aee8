/* fwd_f32.c: forward mode of float code (__enzyme_fwddiff_f32: float
 * arguments and tangents arrive promoted to double through `...`, the float
 * tangent is returned; void functions through __enzyme_fwddiff_v):
 *   f(x)      arithmetic in float, one parameter
 *   g(x, y)   two float parameters, both duplicated
 *   s(x, y)   float arrays: x0 y0 + sinf(x1) y1 + x2^2 y2
 *   w(x, out) void, float outputs through a dup pointer:
 *             out0 = x0 x1 + expf(x2), out1 = x1 / x2
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include <stdlib.h>
#include "enzyme.h"
#include "check.h"

float __enzyme_fwddiff_f32(void *, ...);
void __enzyme_fwddiff_v(void *, ...);

static float f(float x) {
  return 0.25f * x * x * x - 2.0f * x + 1.5f / x + (x - 1.0f) / (x + 3.0f);
}
static double df(double x) {
  return 0.75 * x * x - 2.0 - 1.5 / (x * x) + 4.0 / ((x + 3.0) * (x + 3.0));
}

static float g(float x, float y) { return -(x * y) / (y + 2.0f) + (x - y) * (x + y); }
static float g_v(float *v) { return g(v[0], v[1]); }
static double g_dir(double X, double Y, double vx, double vy) {
  double wx = -Y / (Y + 2.0) + 2.0 * X;
  double wy = -2.0 * X / ((Y + 2.0) * (Y + 2.0)) - 2.0 * Y;
  return wx * vx + wy * vy;
}

static float s(float *x, float *y) {
  return x[0] * y[0] + sinf(x[1]) * y[1] + x[2] * x[2] * y[2];
}
static float s_v(float *v) { return s(v, v + 3); }
static double s_dir(const float *x, const float *y, const float *vx, const float *vy) {
  return (double)vx[0] * y[0] + cos(x[1]) * vx[1] * y[1] + 2.0 * x[2] * vx[2] * y[2] +
         (double)x[0] * vy[0] + sin(x[1]) * vy[1] + (double)x[2] * x[2] * vy[2];
}

static void w(float *x, float *out) {
  out[0] = x[0] * x[1] + expf(x[2]);
  out[1] = x[1] / x[2];
}
static void w_jvp(const float *x, const float *v, double *t) {
  t[0] = (double)v[0] * x[1] + (double)x[0] * v[1] + exp(x[2]) * v[2];
  t[1] = (double)v[1] / x[2] - (double)x[1] * v[2] / ((double)x[2] * x[2]);
}

#ifdef NO_AD
static float emul_g(float x, float dx, float y, float dy) {
  return (float)g_dir(x, y, dx, dy);
}
static float emul_s(float *x, float *dx, float *y, float *dy) {
  return (float)s_dir(x, y, dx, dy);
}
static void emul_w(float *x, float *dx, float *out, float *dout) {
  double t[2];
  w_jvp(x, dx, t);
  dout[0] = (float)t[0];
  dout[1] = (float)t[1];
  w(x, out);
}
#endif

int main(void) {
  const float xs[] = {0.6f, -1.4f, 2.2f};
  const float ys[] = {0.3f, -0.8f, 1.9f};
  check_seed(32);
  for (int i = 0; i < 3; i++) {
    float x = xs[i], y = ys[i], v[2], pt[2] = {x, y};
    CHECK_FWD1F(f, df, x, 2.0 * check_rand());
    check_rand_dirf(v, 2);
    check_at("g x=%g y=%g", x, y);
#ifdef NO_AD
    float t = emul_g(x, v[0], y, v[1]);
#else
    float t = __enzyme_fwddiff_f32((void *)g, x, v[0], y, v[1]);
#endif
    check_close("tangent vs analytic", t, g_dir(x, y, v[0], v[1]), TOL_AD_F);
    check_close("tangent vs FD", t, fddirf(g_v, pt, v, 2), TOL_FD_F);
  }

  const float pts[2][6] = {{0.9f, -1.4f, 1.3f, 0.4f, -0.8f, 1.1f},
                           {-0.6f, 0.8f, -2.1f, 1.7f, 0.25f, -0.5f}};
  for (int p = 0; p < 2; p++) {
    float x[3], y[3], v[6], dx[3], dy[3];
    check_rand_dirf(v, 6);
    for (int k = 0; k < 3; k++) {
      x[k] = pts[p][k];
      y[k] = pts[p][3 + k];
      dx[k] = v[k];
      dy[k] = v[3 + k];
    }
    check_at("s point %d", p);
#ifdef NO_AD
    float t = emul_s(x, dx, y, dy);
#else
    float t = __enzyme_fwddiff_f32((void *)s, enzyme_dup, x, dx, enzyme_dup, y, dy);
#endif
    check_close("tangent vs analytic", t, s_dir(x, y, v, v + 3), TOL_AD_F);
    check_close("tangent vs FD", t, fddirf(s_v, pts[p], v, 6), TOL_FD_F);

    float out[2] = {0}, dout[2] = {9.0f, 9.0f};
    double tw[2], fd[2];
    w_jvp(x, v, tw);
    fdjvpf(w, x, 3, v, 2, fd);
    check_at("w point %d", p);
#ifdef NO_AD
    emul_w(x, dx, out, dout);
#else
    __enzyme_fwddiff_v((void *)w, enzyme_dup, x, dx, enzyme_dup, out, dout);
#endif
    for (int j = 0; j < 2; j++) {
      check_close_i("dout vs analytic", j, dout[j], tw[j], TOL_AD_F);
      check_close_i("dout vs FD", j, dout[j], fd[j], TOL_FD_F);
    }
    check_close("primal out[0]", out[0], x[0] * x[1] + exp(x[2]), TOL_AD_F);
    check_close("primal out[1]", out[1], x[1] / x[2], TOL_AD_F);
  }
  return check_report();
}
