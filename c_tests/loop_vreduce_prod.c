/* loop_vreduce_prod.c: products that clang vectorises under fast math into
 * llvm.vector.reduce.fmul (from -O2). The adjoint of lane k is the product
 * of the other lanes, computed without dividing, so zeros are exact:
 *   prod(x, n)   = prod_i x_i                d/dx_k = prod_{j != k} x_j
 *   prodf(x, n)  = 0.5 prod_i x_i (float)    d/dx_k = 0.5 prod_{j != k} x_j
 *   scale8(x)    = x_8 x_0 x_1 ... x_7 (SLP: <8 x double> product)
 * n = 1, 4, 13, 37; each array also with one element exactly 0 (then only
 * that element has a non-zero derivative) and with two zeros (all zero).
 * Values stay near 1 so products neither overflow nor underflow.
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
// enz-cflags: -ffast-math -fno-finite-math-only
#include <math.h>
#include <stdlib.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

static double prod(double *x, int n) {
  double p = 1.0;
  for (int i = 0; i < n; i++)
    p *= x[i];
  return p;
}

static float prodf(float *x, int n) {
  float p = 0.5f;
  for (int i = 0; i < n; i++)
    p *= x[i];
  return p;
}

static double scale8(double *x) {
  return x[8] * x[0] * x[1] * x[2] * x[3] * x[4] * x[5] * x[6] * x[7];
}
static double scale8_n(double *x, int n) { (void)n; return scale8(x); }

/* prod_{j != k} x_j, in double */
static double others(const double *x, int n, int k) {
  double p = 1.0;
  for (int j = 0; j < n; j++)
    if (j != k)
      p *= x[j];
  return p;
}

#ifdef NO_AD
static void emul_prod(double *x, double *dx, int n) {
  for (int k = 0; k < n; k++)
    dx[k] += others(x, n, k);
}
static void emul_prodf(float *x, float *dx, int n) {
  for (int k = 0; k < n; k++) {
    float p = 0.5f;
    for (int j = 0; j < n; j++)
      if (j != k)
        p *= x[j];
    dx[k] += p;
  }
}
#endif

#define NMAX 40

int main(void) {
  const int sizes[4] = {1, 4, 13, 37};
  double x[NMAX], dx[NMAX], want[NMAX], fd[NMAX], xd[NMAX];
  float xf[NMAX], dxf[NMAX];
  for (int zeros = 0; zeros < 3; zeros++)
    for (int s = 0; s < 4; s++) {
      int n = sizes[s];
      for (int i = 0; i < n; i++) {
        x[i] = 1.0 + 0.3 * sin(1.3 * i + zeros);
        dx[i] = 0.0;
        dxf[i] = 0.0f;
      }
      if (zeros >= 1)
        x[n / 2] = 0.0;
      if (zeros == 2 && n > 1)
        x[n - 1] = 0.0;
      for (int i = 0; i < n; i++)
        xf[i] = (float)x[i];

      check_at("prod zeros=%d n=%d", zeros, n);
#ifdef NO_AD
      emul_prod(x, dx, n);
#else
      __enzyme_autodiff_v((void *)prod, x, dx, n);
#endif
      for (int i = 0; i < n; i++) {
        want[i] = others(x, n, i);
        fd[i] = fdpn(prod, x, n, i);
      }
      check_close_arr("dx vs analytic", dx, want, n, TOL_AD);
      check_close_arr("dx vs FD", dx, fd, n, TOL_FD);

      check_at("prodf zeros=%d n=%d", zeros, n);
#ifdef NO_AD
      emul_prodf(xf, dxf, n);
#else
      __enzyme_autodiff_v((void *)prodf, xf, dxf, n);
#endif
      for (int i = 0; i < n; i++)
        xd[i] = xf[i];
      for (int i = 0; i < n; i++) {
        want[i] = 0.5 * others(xd, n, i);
        fd[i] = fdpnf(prodf, xf, n, i);
      }
      check_close_arrf("dx vs analytic", dxf, want, n, TOL_AD_F);
      check_close_arrf("dx vs FD", dxf, fd, n, TOL_FD_F);
    }

  for (int zeros = 0; zeros < 2; zeros++) {
    double d9[9] = {0};
    for (int i = 0; i < 9; i++)
      x[i] = 1.0 - 0.25 * cos(0.9 * i);
    if (zeros)
      x[3] = 0.0;
    check_at("scale8 zeros=%d", zeros);
#ifdef NO_AD
    emul_prod(x, d9, 9);
#else
    __enzyme_autodiff_v((void *)scale8, x, d9);
#endif
    for (int i = 0; i < 9; i++) {
      want[i] = others(x, 9, i);
      fd[i] = fdpn(scale8_n, x, 9, i);
    }
    check_close_arr("dx vs analytic", d9, want, 9, TOL_AD);
    check_close_arr("dx vs FD", d9, fd, 9, TOL_FD);
  }
  return check_report();
}
