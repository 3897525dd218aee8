/* call_small_memcpy.c: an 8-byte memcpy into a local array that a noinline
 * callee then updates. At -O0 with --no-inline the preprocessing's
 * instcombine turns the memcpy into `load i64` / `store i64`, and the
 * derivative of what it copies was lost (gradient 0 for x0 in f).
 *   f (float):  t = {x0, x1} (memcpy of two floats), t0 *= x2,
 *               upd(t, x1): t0 = 0.8 t0 + sin(x1 t1); t1 = t1 - 0.2 exp(t0)
 *               f = t0 + t1 x1
 *     A = 0.8 x0 x2 + sin(x1^2), B = x1 - 0.2 e^A, f = A + B x1
 *   g (double): d = {x0, .} (memcpy of one double), d1 = x1 x2,
 *               mix(d, x2): d0 = d0 cos(d1) + x2; d1 = d1 d0
 *               g = d0 + d1
 *     P = x1 x2, D = x0 cos P + x2, g = D (1 + P)
 * Each is checked in reverse (__enzyme_autodiff) and forward
 * (__enzyme_fwddiff, one unit direction at a time) mode.
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include <string.h>
#include "enzyme.h"
#include "check.h"

float __enzyme_fwddiff_f32(void *, ...);
void __enzyme_autodiff_v(void *, ...);

__attribute__((noinline)) static void upd(float *t, float u) {
  t[0] = 0.8f * t[0] + sinf(u * t[1]);
  t[1] = t[1] - 0.2f * expf(t[0]);
}
static float f(float *x) {
  float t[2];
  memcpy(t, x, 2 * sizeof(float));
  t[0] *= x[2];
  upd(t, x[1]);
  return t[0] + t[1] * x[1];
}
static void f_grad(const float *xf, double *gr) {
  double x0 = xf[0], x1 = xf[1], x2 = xf[2];
  double A = 0.8 * x0 * x2 + sin(x1 * x1), B = x1 - 0.2 * exp(A);
  double dA[3] = {0.8 * x2, 2.0 * x1 * cos(x1 * x1), 0.8 * x0};
  for (int k = 0; k < 3; k++)
    gr[k] = dA[k] + x1 * ((k == 1) - 0.2 * exp(A) * dA[k]) + B * (k == 1);
}

__attribute__((noinline)) static void mix(double *d, double c) {
  d[0] = d[0] * cos(d[1]) + c;
  d[1] = d[1] * d[0];
}
static double g(double *x) {
  double d[2];
  memcpy(d, x, sizeof(double));
  d[1] = x[1] * x[2];
  mix(d, x[2]);
  return d[0] + d[1];
}
static void g_grad(const double *x, double *gr) {
  double P = x[1] * x[2], D = x[0] * cos(P) + x[2];
  double dP[3] = {0.0, x[2], x[1]};
  double dD[3] = {cos(P), -x[0] * sin(P) * x[2], -x[0] * sin(P) * x[1] + 1.0};
  for (int k = 0; k < 3; k++)
    gr[k] = dD[k] * (1.0 + P) + D * dP[k];
}

#ifdef NO_AD
static void emul_f(float *x, float *dx) {
  double gr[3];
  f_grad(x, gr);
  for (int k = 0; k < 3; k++)
    dx[k] += (float)gr[k];
}
static float emul_f_fwd(float *x, float *v) {
  double gr[3];
  f_grad(x, gr);
  return (float)(gr[0] * v[0] + gr[1] * v[1] + gr[2] * v[2]);
}
static void emul_g(double *x, double *dx) {
  double gr[3];
  g_grad(x, gr);
  for (int k = 0; k < 3; k++)
    dx[k] += gr[k];
}
static double emul_g_fwd(double *x, double *v) {
  double gr[3];
  g_grad(x, gr);
  return gr[0] * v[0] + gr[1] * v[1] + gr[2] * v[2];
}
#endif

int main(void) {
  const float fpts[2][3] = {{0.7f, -0.4f, 1.3f}, {-0.9f, 0.6f, -0.5f}};
  const double gpts[2][3] = {{0.7, -0.4, 1.3}, {-0.9, 0.6, -0.5}};
  for (int p = 0; p < 2; p++) {
    float x[3] = {fpts[p][0], fpts[p][1], fpts[p][2]}, dx[3] = {0};
    double gr[3];
    f_grad(x, gr);
    check_at("f point %d", p);
#ifdef NO_AD
    emul_f(x, dx);
#else
    __enzyme_autodiff_v((void *)f, enzyme_dup, x, dx);
#endif
    for (int k = 0; k < 3; k++) {
      double fd = fdpf(f, fpts[p], 3, k);
      check_close_i("rev dx vs analytic", k, dx[k], gr[k], TOL_AD_F);
      check_close_i("rev dx vs FD", k, dx[k], fd, TOL_FD_F);
      float v[3] = {0};
      v[k] = 1.0f;
#ifdef NO_AD
      float t = emul_f_fwd(x, v);
#else
      float t = __enzyme_fwddiff_f32((void *)f, enzyme_dup, x, v);
#endif
      check_close_i("fwd tangent vs analytic", k, t, gr[k], TOL_AD_F);
      check_close_i("fwd tangent vs FD", k, t, fd, TOL_FD_F);
    }

    double y[3] = {gpts[p][0], gpts[p][1], gpts[p][2]}, dy[3] = {0};
    g_grad(y, gr);
    check_at("g point %d", p);
#ifdef NO_AD
    emul_g(y, dy);
#else
    __enzyme_autodiff_v((void *)g, enzyme_dup, y, dy);
#endif
    for (int k = 0; k < 3; k++) {
      double fd = fdp(g, gpts[p], 3, k);
      check_close_i("rev dx vs analytic", k, dy[k], gr[k], TOL_AD);
      check_close_i("rev dx vs FD", k, dy[k], fd, TOL_FD);
      double v[3] = {0};
      v[k] = 1.0;
#ifdef NO_AD
      double t = emul_g_fwd(y, v);
#else
      double t = __enzyme_fwddiff((void *)g, enzyme_dup, y, v);
#endif
      check_close_i("fwd tangent vs analytic", k, t, gr[k], TOL_AD);
      check_close_i("fwd tangent vs FD", k, t, fd, TOL_FD);
    }
  }
  return check_report();
}
