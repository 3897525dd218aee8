/* rev_int_piece.c: a float moved as a 32-bit integer that reaches its
 * use through a phi together with the upper half of a 64-bit load. x0
 * and x1 are swapped through uint32_t; a loop then copies both into a
 * buffer (clang: one `load i64` of x, hoisted); after the loop, x1 is
 * either the swapped `load i32` (no iteration) or `trunc (lshr (load
 * i64), 32)` (enz-fuzz diff seed 303008): the derivative through that
 * phi of integers was silently lost at -O2/-O3 (18 of these 42 checks
 * failed there). Preprocessing now loads such an integer piece narrow,
 * so the phi is a move of floats.
 *   x' = (x1, x0); s0 = a; s_{i+1} = x1 s_i + sin(x1 (i+1)) + 0.3 x1 (i+1)
 *   f = s_n; after the call x = (x1, x0 + 0.55 sin a)
 * Reverse mode with x's shadow seeded by (w0, w1) (its adjoint after the
 * call) and forward mode, checked against the analytic derivatives and
 * central finite differences (in double, of the same function).
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "enzyme.h"
#include "check.h"

__attribute__((noinline)) static void use(float *t, float a) {
  t[0] = t[0] * a + sinf(t[1]);
}

static float f(float *x, float a, int n) {
  float s = a;
  uint32_t c;
  memcpy(&c, &x[1], 4);
  for (int j = 0; j < 2; j++) {
    uint32_t next;
    memcpy(&next, &x[j], 4);
    memcpy(&x[j], &c, 4);
    c = next;
  }
  for (int i = 0; i < n; i++) {
    float t[2];
    memcpy(t, x, 2 * sizeof(float));
    t[1] = t[0] * (float)(i + 1);
    use(t, s);
    s = t[0] + t[1] * 0.3f;
  }
  x[1] += 0.55f * sinf(a);
  return s;
}

static const double W[2] = {1.5, -2.0};
static int nn;

/* f plus the weighted x after the call, in double: z = (x0, x1, a) */
static double g_d(const double *z) {
  double x0 = z[0], x1 = z[1], a = z[2], s = a;
  for (int i = 0; i < nn; i++)
    s = x1 * s + sin(x1 * (i + 1)) + 0.3 * x1 * (i + 1);
  return s + W[0] * x1 + W[1] * (x0 + 0.55 * sin(a));
}

static void grad(const double *z, double *g) {
  double x1 = z[1], a = z[2], s = a, ds_dx1 = 0, ds_da = 1;
  for (int i = 0; i < nn; i++) {
    double k = i + 1;
    ds_dx1 = s + x1 * ds_dx1 + k * cos(x1 * k) + 0.3 * k;
    ds_da = x1 * ds_da;
    s = x1 * s + sin(x1 * k) + 0.3 * x1 * k;
  }
  g[0] = W[1];
  g[1] = ds_dx1 + W[0];
  g[2] = ds_da + W[1] * 0.55 * cos(a);
}

float __enzyme_autodiff_f(void *, ...);
float __enzyme_fwddiff_f(void *, ...);

int main(void) {
  const double pts[2][3] = {{0.3, -0.7, 1.2}, {-0.4, 0.5, 0.8}};
  for (int p = 0; p < 2; p++)
    for (nn = 0; nn < 3; nn++) {
      const double *z = pts[p];
      double g[3];
      grad(z, g);
      float x[2] = {(float)z[0], (float)z[1]}, dx[2] = {(float)W[0], (float)W[1]};
#ifdef NO_AD
      dx[0] = (float)g[0], dx[1] = (float)g[1];
      float da = (float)g[2];
#else
      float da = __enzyme_autodiff_f((void *)f, x, dx, (float)z[2], nn);
#endif
      check_at("reverse point %d n %d", p, nn);
      for (int j = 0; j < 3; j++) {
        double got = j < 2 ? dx[j] : da;
        check_close("vs analytic", got, g[j], TOL_AD_F);
        check_close("vs FD", got, fdn(g_d, z, 3, j), TOL_FD_F);
      }
      /* forward along v: f's tangent plus the weighted tangents of x */
      const double v[3] = {1.0, -0.5, 0.25};
      float y[2] = {(float)z[0], (float)z[1]}, dy[2] = {(float)v[0], (float)v[1]};
#ifdef NO_AD
      float t = (float)(g[0] * v[0] + g[1] * v[1] + g[2] * v[2]);
      dy[0] = dy[1] = 0;
#else
      float t = __enzyme_fwddiff_f((void *)f, y, dy, (float)z[2], (float)v[2], nn);
#endif
      double tw = t + W[0] * dy[0] + W[1] * dy[1];
      check_at("forward point %d n %d", p, nn);
      check_close("vs analytic", tw, g[0] * v[0] + g[1] * v[1] + g[2] * v[2], TOL_AD_F * 4);
    }
  return check_report();
}
