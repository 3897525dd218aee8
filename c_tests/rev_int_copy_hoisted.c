/* rev_int_copy_hoisted.c: two floats copied into a buffer in every
 * iteration of a loop, which clang turns into one `load i64` hoisted out
 * of the loop and a `store i64` per iteration. Preprocessing makes each
 * store a copy of the memory again (nothing between the load and the
 * stores writes what was loaded), so the floats keep their derivatives;
 * before, the reverse sweep dropped them: every adjoint of x was 0 at -O1
 * (found by enz-fuzz's GMM-shaped block, seeds 205037 and 205085). x is
 * written before the loop, so "nothing in the function writes x" would
 * not do.
 *   x0 <- x0 a; for o < 3: bu = (x0, x1); s += 0.2 sum_j atan(bu_j a (o + 1))
 *   f = a + s
 * Reverse mode and forward mode, checked against the analytic gradient
 * and central finite differences (in double, of the same function).
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include <stdlib.h>
#include "enzyme.h"
#include "check.h"

#define NX 2

static float f(float *x, float a) {
  float s = a;
  x[0] = x[0] * a;
  float *bu = (float *)malloc(NX * sizeof(float));
  for (int o = 0; o < 3; o++) {
    for (int j = 0; j < NX; j++)
      bu[j] = x[j];
    for (int j = 0; j < NX; j++)
      s += 0.2f * atanf(bu[j] * a * (float)(o + 1));
  }
  free(bu);
  return s;
}

static double f_d(const double *z) {
  double x0 = z[0] * z[2], x1 = z[1], a = z[2], s = a;
  for (int o = 0; o < 3; o++)
    s += 0.2 * (atan(x0 * a * (o + 1)) + atan(x1 * a * (o + 1)));
  return s;
}

/* (df/dx0, df/dx1, df/da) at the inputs */
static void grad(const double *z, double *g) {
  double x0 = z[0], x1 = z[1], a = z[2];
  g[0] = g[1] = 0.0;
  g[2] = 1.0;
  for (int o = 0; o < 3; o++) {
    double k = o + 1, u0 = x0 * a * a * k, u1 = x1 * a * k;
    g[0] += 0.2 * a * a * k / (1 + u0 * u0);
    g[1] += 0.2 * a * k / (1 + u1 * u1);
    g[2] += 0.2 * (2 * x0 * a * k / (1 + u0 * u0) + x1 * k / (1 + u1 * u1));
  }
}

float __enzyme_autodiff_f(void *, ...);
float __enzyme_fwddiff_f(void *, ...);

int main(void) {
  const double pts[3][3] = {{0.3, -0.7, 0.9}, {-1.1, 0.4, 1.3}, {0.8, 0.9, -0.6}};
  for (int p = 0; p < 3; p++) {
    const double *z = pts[p];
    double g[3];
    grad(z, g);
    float x[NX] = {(float)z[0], (float)z[1]}, dx[NX] = {0, 0};
#ifdef NO_AD
    dx[0] = (float)g[0];
    dx[1] = (float)g[1];
    float da = (float)g[2];
#else
    float da = __enzyme_autodiff_f((void *)f, x, dx, (float)z[2]);
#endif
    check_at("reverse point %d", p);
    for (int j = 0; j < 3; j++) {
      double got = j < 2 ? dx[j] : da;
      check_close("vs analytic", got, g[j], TOL_AD_F);
      check_close("vs FD", got, fdn(f_d, z, 3, j), TOL_FD_F);
    }
    /* forward mode along (1, -0.5, 0.25) */
    const double v[3] = {1.0, -0.5, 0.25};
    float y[NX] = {(float)z[0], (float)z[1]}, dy[NX] = {(float)v[0], (float)v[1]};
#ifdef NO_AD
    float t = (float)(g[0] * v[0] + g[1] * v[1] + g[2] * v[2]);
#else
    float t = __enzyme_fwddiff_f((void *)f, y, dy, (float)z[2], (float)v[2]);
#endif
    check_at("forward point %d", p);
    check_close("vs analytic", t, g[0] * v[0] + g[1] * v[1] + g[2] * v[2], TOL_AD_F);
  }
  return check_report();
}
