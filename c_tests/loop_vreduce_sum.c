/* loop_vreduce_sum.c: sums that clang vectorises under fast math into
 * llvm.vector.reduce.fadd (from -O2; -O0/-O1 keep the scalar loops). The
 * reverse of the reduction hands its adjoint to every lane of the vector
 * and to the start value:
 *   sumsq(x, n)  = sum_i x_i^2                      d/dx_i = 2 x_i
 *   sumsqf(x, n) = 1.5 + sum_i x_i^2 (float)        d/dx_i = 2 x_i
 *   shift8(x)    = x_8 + x_0 + ... + x_7 + x_i^3 terms: the SLP vectoriser
 *                  makes reduce.fadd(start = x_8, <8 x double>) with an active
 *                  start:   d/dx_i = 1 + 3 x_i^2 (i < 8), d/dx_8 = 1
 * n = 1, 2, 7, 37, 100 (remainders after the vector loop). The shadows are
 * pre-filled: adjoints accumulate (+=).
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
// enz-cflags: -ffast-math -fno-finite-math-only
#include <math.h>
#include <stdlib.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

static double sumsq(double *x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += x[i] * x[i];
  return s;
}

static float sumsqf(float *x, int n) {
  float s = 1.5f;
  for (int i = 0; i < n; i++)
    s += x[i] * x[i];
  return s;
}

static double shift8(double *x) {
  return x[8] + (x[0] + x[0] * x[0] * x[0]) + (x[1] + x[1] * x[1] * x[1]) +
         (x[2] + x[2] * x[2] * x[2]) + (x[3] + x[3] * x[3] * x[3]) +
         (x[4] + x[4] * x[4] * x[4]) + (x[5] + x[5] * x[5] * x[5]) +
         (x[6] + x[6] * x[6] * x[6]) + (x[7] + x[7] * x[7] * x[7]);
}
static double shift8_n(double *x, int n) { (void)n; return shift8(x); }

#ifdef NO_AD
static void emul_sumsq(double *x, double *dx, int n) {
  for (int i = 0; i < n; i++)
    dx[i] += 2.0 * x[i];
}
static void emul_sumsqf(float *x, float *dx, int n) {
  for (int i = 0; i < n; i++)
    dx[i] += 2.0f * x[i];
}
static void emul_shift8(double *x, double *dx) {
  for (int i = 0; i < 8; i++)
    dx[i] += 1.0 + 3.0 * x[i] * x[i];
  dx[8] += 1.0;
}
#endif

#define NMAX 100

int main(void) {
  const int sizes[5] = {1, 2, 7, 37, 100};
  double x[NMAX], dx[NMAX], want[NMAX], fd[NMAX];
  float xf[NMAX], dxf[NMAX];
  for (int s = 0; s < 5; s++) {
    int n = sizes[s];
    for (int i = 0; i < n; i++) {
      x[i] = sin(0.7 * i + 0.3) + 0.05 * i;
      xf[i] = (float)x[i];
      dx[i] = 0.25 * i;
      dxf[i] = (float)(0.25 * i);
    }
    check_at("sumsq n=%d", n);
#ifdef NO_AD
    emul_sumsq(x, dx, n);
#else
    __enzyme_autodiff_v((void *)sumsq, x, dx, n);
#endif
    for (int i = 0; i < n; i++) {
      want[i] = 2.0 * x[i];
      fd[i] = fdpn(sumsq, x, n, i);
      dx[i] -= 0.25 * i;
    }
    check_close_arr("dx vs analytic", dx, want, n, TOL_AD);
    check_close_arr("dx vs FD", dx, fd, n, TOL_FD);

    check_at("sumsqf n=%d", n);
#ifdef NO_AD
    emul_sumsqf(xf, dxf, n);
#else
    __enzyme_autodiff_v((void *)sumsqf, xf, dxf, n);
#endif
    for (int i = 0; i < n; i++) {
      want[i] = 2.0 * xf[i];
      fd[i] = fdpnf(sumsqf, xf, n, i);
      dxf[i] -= (float)(0.25 * i);
    }
    check_close_arrf("dx vs analytic", dxf, want, n, TOL_AD_F);
    check_close_arrf("dx vs FD", dxf, fd, n, TOL_FD_F);
  }

  for (int p = 0; p < 2; p++) {
    double dx9[9];
    for (int i = 0; i < 9; i++) {
      x[i] = 0.8 * cos(1.1 * i + p) - 0.1;
      dx9[i] = 0.5;
    }
    check_at("shift8 point %d", p);
#ifdef NO_AD
    emul_shift8(x, dx9);
#else
    __enzyme_autodiff_v((void *)shift8, x, dx9);
#endif
    for (int i = 0; i < 9; i++) {
      want[i] = i < 8 ? 1.0 + 3.0 * x[i] * x[i] : 1.0;
      fd[i] = fdpn(shift8_n, x, 9, i);
      dx9[i] -= 0.5;
    }
    check_close_arr("dx vs analytic", dx9, want, 9, TOL_AD);
    check_close_arr("dx vs FD", dx9, fd, 9, TOL_FD);
  }
  return check_report();
}
