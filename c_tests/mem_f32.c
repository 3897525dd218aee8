/* mem_f32.c: float memory: a float function of two dup float arrays, and a
 * void function writing float outputs through a dup pointer (output shadow
 * seeded by the caller, consumed to zero).
 *   f(x, y) = x0 y0 + sinf(x1) y1 + x2^2 y2
 *   g(x, out): out0 = x0 x1 + expf(x2), out1 = x1 / x2
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

static float f(float *x, float *y) {
  return x[0] * y[0] + sinf(x[1]) * y[1] + x[2] * x[2] * y[2];
}
static float f_v(float *v) { return f(v, v + 3); }
static void f_grad(const float *v, double *g) {
  const float *x = v, *y = v + 3;
  g[0] = y[0];
  g[1] = cos(x[1]) * y[1];
  g[2] = 2.0 * x[2] * y[2];
  g[3] = x[0];
  g[4] = sin(x[1]);
  g[5] = (double)x[2] * x[2];
}

static void g(float *x, float *out) {
  out[0] = x[0] * x[1] + expf(x[2]);
  out[1] = x[1] / x[2];
}
static void g_vjp(const float *x, const float *w, double *d) {
  d[0] = w[0] * x[1];
  d[1] = w[0] * x[0] + w[1] / x[2];
  d[2] = w[0] * exp(x[2]) - w[1] * x[1] / ((double)x[2] * x[2]);
}

#ifdef NO_AD
static void emul_f(float *x, float *dx, float *y, float *dy) {
  float v[6] = {x[0], x[1], x[2], y[0], y[1], y[2]};
  double gr[6];
  f_grad(v, gr);
  for (int k = 0; k < 3; k++) {
    dx[k] += (float)gr[k];
    dy[k] += (float)gr[3 + k];
  }
}
static void emul_g(float *x, float *dx, float *out, float *dout) {
  double d[3];
  g_vjp(x, dout, d);
  g(x, out);
  for (int k = 0; k < 3; k++)
    dx[k] += (float)d[k];
  dout[0] = dout[1] = 0.0f;
}
#endif

int main(void) {
  const float pts[2][6] = {{0.9f, -1.4f, 1.3f, 0.4f, -0.8f, 1.1f},
                           {-0.6f, 0.8f, -2.1f, 1.7f, 0.25f, -0.5f}};
  const float seeds[2][2] = {{1.0f, 1.0f}, {-0.5f, 2.0f}};
  for (int p = 0; p < 2; p++) {
    float x[3], y[3], dx[3] = {0}, dy[3] = {0};
    double gr[6];
    for (int k = 0; k < 3; k++) {
      x[k] = pts[p][k];
      y[k] = pts[p][3 + k];
    }
    f_grad(pts[p], gr);
    check_at("f point %d", p);
#ifdef NO_AD
    emul_f(x, dx, y, dy);
#else
    __enzyme_autodiff_v((void *)f, enzyme_dup, x, dx, enzyme_dup, y, dy);
#endif
    for (int k = 0; k < 3; k++) {
      check_close_i("dx vs analytic", k, dx[k], gr[k], TOL_AD_F);
      check_close_i("dy vs analytic", k, dy[k], gr[3 + k], TOL_AD_F);
      check_close_i("dx vs FD", k, dx[k], fdpf(f_v, pts[p], 6, k), TOL_FD_F);
      check_close_i("dy vs FD", k, dy[k], fdpf(f_v, pts[p], 6, 3 + k), TOL_FD_F);
    }

    const float *w = seeds[p];
    float dx2[3] = {0}, out[2] = {0}, dout[2] = {w[0], w[1]};
    double d[3];
    g_vjp(x, w, d);
    check_at("g point %d", p);
#ifdef NO_AD
    emul_g(x, dx2, out, dout);
#else
    __enzyme_autodiff_v((void *)g, enzyme_dup, x, dx2, enzyme_dup, out, dout);
#endif
    for (int k = 0; k < 3; k++) {
      check_close_i("dx vs analytic", k, dx2[k], d[k], TOL_AD_F);
      check_close_i("dx vs FD", k, dx2[k], fdvjpf(g, pts[p], 3, k, w, 2), TOL_FD_F);
    }
    check_close("dout[0] consumed", dout[0], 0.0, TOL_AD_F);
    check_close("dout[1] consumed", dout[1], 0.0, TOL_AD_F);
    check_close("primal out[0]", out[0], x[0] * x[1] + exp(x[2]), TOL_AD_F);
    check_close("primal out[1]", out[1], x[1] / x[2], TOL_AD_F);
  }
  return check_report();
}
