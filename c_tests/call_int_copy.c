/* call_int_copy.c: floats moved as integers while their source is written
 * in between, in functions called from the differentiated one. clang
 * turns each memcpy below into a `load i64` and a `store i64`; synthesis
 * gives integers no derivatives, so before preprocessing made these
 * copies of memory again (or floats again) the derivatives of what they
 * moved were silently lost: 48 of the 66 checks failed with --no-inline
 * at -O0..-O3, where each callee is differentiated on its own.
 *   save(x, y, a):  t = bits(x0, x1); x0 <- x0 a; x1 <- sin x1; y = t
 *   pick(x, y, c):  t = bits(c ? x2 : x3); x2 <- 2 x2 (if c) or x3 <- 3 x3
 *                   (else); y2 = t
 *   choose(x, y, c): t0 = bits(x0), t1 = bits(x1); x0 <- x0 x1;
 *                   y3 = c ? t0 : t1
 *   f = 3 y0 y1 + x0 x1 + y2^2 x2 + x3 + y3 x0
 * with x0..x3 and y0..y3 the values after the calls. Reverse mode and
 * forward mode (one direction), checked against the analytic gradient
 * and central finite differences (in double, of the same function).
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "enzyme.h"
#include "check.h"

__attribute__((noinline)) static void save(float *x, float *y, float a) {
  uint64_t t;
  memcpy(&t, x, 8);
  x[0] = x[0] * a;
  x[1] = sinf(x[1]);
  memcpy(y, &t, 8);
}

__attribute__((noinline)) static void pick(float *x, float *y, int c) {
  uint32_t t;
  if (c) {
    memcpy(&t, &x[2], 4);
    x[2] = 2 * x[2];
  } else {
    memcpy(&t, &x[3], 4);
    x[3] = 3 * x[3];
  }
  memcpy(&y[2], &t, 4);
}

__attribute__((noinline)) static void choose(float *x, float *y, int c) {
  uint32_t t0, t1;
  memcpy(&t0, &x[0], 4);
  memcpy(&t1, &x[1], 4);
  x[0] = x[0] * x[1];
  uint32_t t = c ? t0 : t1;
  memcpy(&y[3], &t, 4);
}

static float f(float *x, float a, int c) {
  float y[4];
  save(x, y, a);
  pick(x, y, c);
  choose(x, y, c);
  return 3 * y[0] * y[1] + x[0] * x[1] + y[2] * y[2] * x[2] + x[3] + y[3] * x[0];
}

/* the same in double, z = (x0, x1, x2, x3, a) */
static int cc;
static double f_d(const double *z) {
  double x0 = z[0], x1 = z[1], x2 = z[2], x3 = z[3], a = z[4], y[4];
  y[0] = x0, y[1] = x1;
  x0 *= a, x1 = sin(x1);
  if (cc) y[2] = x2, x2 *= 2;
  else y[2] = x3, x3 *= 3;
  double t0 = x0, t1 = x1;
  x0 = x0 * x1;
  y[3] = cc ? t0 : t1;
  return 3 * y[0] * y[1] + x0 * x1 + y[2] * y[2] * x2 + x3 + y[3] * x0;
}

/* gradient of f_d (c = cc) */
static void grad(const double *z, double *g) {
  double x0 = z[0], x1 = z[1], x2 = z[2], x3 = z[3], a = z[4];
  double s = sin(x1), co = cos(x1);
  /* after save: X0 = x0 a, X1 = s; after choose: P = X0 X1, y3 = c ? X0 : X1 */
  double X0 = x0 * a, X1 = s, P = X0 * X1, y3 = cc ? X0 : X1;
  /* f = 3 x0 x1 + P X1 + y2^2 X2 + X3 + y3 P */
  double dX0 = X1 * X1 + (cc ? P : 0) + y3 * X1;
  double dX1 = X0 * X1 + P + (cc ? 0 : P) + y3 * X0;
  g[0] = 3 * x1 + dX0 * a;
  g[1] = 3 * x0 + dX1 * co;
  g[4] = dX0 * x0;
  if (cc) {
    g[2] = 2 * x2 * 2 * x2 + x2 * x2 * 2; /* y2 = x2, X2 = 2 x2 */
    g[3] = 1;
  } else {
    g[2] = x3 * x3;                       /* y2 = x3, X2 = x2 */
    g[3] = 2 * x3 * x2 + 3;               /* X3 = 3 x3 */
  }
}

float __enzyme_autodiff_f(void *, ...);
float __enzyme_fwddiff_f(void *, ...);

int main(void) {
  const double pts[3][5] = {{0.3, -0.7, 0.9, 0.4, 1.2},
                            {-1.1, 0.4, 1.3, -0.6, 0.8},
                            {0.8, 0.9, -0.6, 1.1, -0.5}};
  for (int p = 0; p < 3; p++)
    for (cc = 0; cc < 2; cc++) {
      const double *z = pts[p];
      double g[5];
      grad(z, g);
      float x[4], dx[4] = {0, 0, 0, 0};
      for (int j = 0; j < 4; j++) x[j] = (float)z[j];
#ifdef NO_AD
      for (int j = 0; j < 4; j++) dx[j] = (float)g[j];
      float da = (float)g[4];
#else
      float da = __enzyme_autodiff_f((void *)f, x, dx, (float)z[4], cc);
#endif
      check_at("reverse point %d c %d", p, cc);
      for (int j = 0; j < 5; j++) {
        double got = j < 4 ? dx[j] : da;
        check_close("vs analytic", got, g[j], TOL_AD_F);
        check_close("vs FD", got, fdn(f_d, z, 5, j), TOL_FD_F);
      }
      const double v[5] = {1.0, -0.5, 0.25, 0.75, -1.5};
      double want = 0;
      for (int j = 0; j < 5; j++) want += g[j] * v[j];
      float y[4], dy[4];
      for (int j = 0; j < 4; j++) y[j] = (float)z[j], dy[j] = (float)v[j];
#ifdef NO_AD
      float t = (float)want;
#else
      float t = __enzyme_fwddiff_f((void *)f, y, dy, (float)z[4], (float)v[4], cc);
#endif
      check_at("forward point %d c %d", p, cc);
      check_close("vs analytic", t, want, TOL_AD_F * 4);
    }
  return check_report();
}
