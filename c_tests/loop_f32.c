/* loop_f32.c: loops over float arrays (n = 64, and 13 for a remainder).
 *   fdot(x, y, n) = sum_i x_i y_i + 0.1 sinf(x_i)    (float accumulator)
 *     dx_i = y_i + 0.1 cos x_i,  dy_i = x_i
 *   saxpy_sq(a, x, y, n): y_i <- a x_i + 0.5 y_i^2 (an element-wise loop that
 *     clang vectorises to <4 x float> at -O2, behind a runtime check that x
 *     and y do not overlap); a is a float `out` scalar (returned through
 *     __enzyme_autodiff_f32), x and y dup; y's shadow seeded with w:
 *     dx_i = a w_i, dy_i = w_i y_i (old y), da = sum_i w_i x_i.
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include <string.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

static float fdot(float *x, float *y, int n) {
  float s = 0.0f;
  for (int i = 0; i < n; i++)
    s += x[i] * y[i] + 0.1f * sinf(x[i]);
  return s;
}

static void saxpy_sq(float a, float *x, float *y, int n) {
  for (int i = 0; i < n; i++)
    y[i] = a * x[i] + 0.5f * y[i] * y[i];
}

#define N 64

static float *g_x, *g_y;
static float fdot_x(float *x, int n) { return fdot(x, g_y, n); }
static float fdot_y(float *y, int n) { return fdot(g_x, y, n); }

typedef struct {
  float *a, *x, *y0, *w;
  int n;
} ctx_t;
/* w . y after saxpy_sq, in double, on a copy of y0 */
static double saxpy_eval(void *v) {
  ctx_t *c = (ctx_t *)v;
  float y[N];
  double s = 0.0;
  memcpy(y, c->y0, sizeof y);
  saxpy_sq(*c->a, c->x, y, c->n);
  for (int i = 0; i < c->n; i++)
    s += (double)c->w[i] * y[i];
  return s;
}

#ifdef NO_AD
static void emul_fdot(float *x, float *dx, float *y, float *dy, int n) {
  for (int i = 0; i < n; i++) {
    dx[i] += y[i] + 0.1f * cosf(x[i]);
    dy[i] += x[i];
  }
}
static float emul_saxpy(float a, float *x, float *dx, float *y, float *dy,
                        int n) {
  float da = 0.0f;
  for (int i = 0; i < n; i++) {
    da += dy[i] * x[i];
    dx[i] += a * dy[i];
    dy[i] = dy[i] * y[i];
  }
  saxpy_sq(a, x, y, n);
  return da;
}
#endif

int main(void) {
  const int ns[2] = {64, 13};
  for (int t = 0; t < 2; t++) {
    int n = ns[t];
    float x[N], y[N], dx[N] = {0}, dy[N] = {0}, w[N], y0[N];
    double gx[N], gy[N], fx[N], fy[N];
    for (int i = 0; i < n; i++) {
      x[i] = sinf(0.7f * i + 0.2f) * 1.5f;
      y[i] = y0[i] = cosf(1.1f * i) * 0.8f;
      w[i] = 1.0f + 0.25f * sinf(2.3f * i);
      gx[i] = y[i] + 0.1 * cos(x[i]);
      gy[i] = x[i];
    }
    g_x = x;
    g_y = y;
    check_at("fdot n=%d", n);
#ifdef NO_AD
    emul_fdot(x, dx, y, dy, n);
#else
    __enzyme_autodiff_v((void *)fdot, enzyme_dup, x, dx, enzyme_dup, y, dy, n);
#endif
    check_close_arrf("dx vs analytic", dx, gx, n, TOL_AD_F);
    check_close_arrf("dy vs analytic", dy, gy, n, TOL_AD_F);
    for (int i = 0; i < n; i++) {
      fx[i] = fdpnf(fdot_x, x, n, i);
      fy[i] = fdpnf(fdot_y, y, n, i);
    }
    check_close_arrf("dx vs FD", dx, fx, n, TOL_FD_F);
    check_close_arrf("dy vs FD", dy, fy, n, TOL_FD_F);

    float a = 0.7f + 0.2f * t;
    double gda = 0.0;
    for (int i = 0; i < n; i++) {
      dx[i] = 0.0f;
      dy[i] = w[i];
      gx[i] = (double)a * w[i];
      gy[i] = (double)w[i] * y0[i];
      gda += (double)w[i] * x[i];
    }
    check_at("saxpy_sq n=%d", n);
#ifdef NO_AD
    float da = emul_saxpy(a, x, dx, y, dy, n);
#else
    float da = __enzyme_autodiff_f32((void *)saxpy_sq, a, enzyme_dup, x, dx,
                                     enzyme_dup, y, dy, n);
#endif
    check_close_arrf("dx vs analytic", dx, gx, n, TOL_AD_F);
    check_close_arrf("dy vs analytic", dy, gy, n, TOL_AD_F);
    check_close("da vs analytic", da, gda, TOL_AD_F);
    ctx_t c = {&a, x, y0, w, n};
    for (int i = 0; i < n; i++) {
      fx[i] = fd_slotf(saxpy_eval, &c, &x[i]);
      fy[i] = fd_slotf(saxpy_eval, &c, &y0[i]);
    }
    check_close_arrf("dx vs FD", dx, fx, n, TOL_FD_F);
    check_close_arrf("dy vs FD", dy, fy, n, TOL_FD_F);
    check_close("da vs FD", da, fd_slotf(saxpy_eval, &c, &a), TOL_FD_F);
    for (int i = 0; i < n; i++)
      gy[i] = (double)a * x[i] + 0.5 * (double)y0[i] * y0[i];
    check_close_arrf("primal y", y, gy, n, TOL_AD_F);
  }
  return check_report();
}
