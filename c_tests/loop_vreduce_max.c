/* loop_vreduce_max.c: maxima and minima that become
 * llvm.vector.reduce.fmax / fmin / fmaximum / fminimum. The whole adjoint
 * goes to the lane (element) holding the extremum:
 *   amax(x, n)  = max_i fmax-loop over x_i^3    d/dx_k = 3 x_k^2 at argmax
 *   aminf(x, n) = min_i fminf-loop (float)      d/dx_k = 1 at argmin
 *     (vectorised from -O2 under fast math: vector maxnum/minnum phis, then
 *     reduce.fmax / reduce.fmin)
 *   vmax8(x)  = x_8 * __builtin_reduce_maximum(<8 x double> x_0..7)
 *               d/dx_argmax = x_8, d/dx_8 = max      (every level, -O0 too)
 *   vmin3f(x) = __builtin_reduce_min(<3 x float> x_0..2)^2
 *               d/dx_argmin = 2 min
 * Elements are distinct (no ties), n = 1, 3, 8, 37, 100.
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
// enz-cflags: -ffast-math -fno-finite-math-only
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

typedef double v8d __attribute__((ext_vector_type(8)));
typedef float v3f __attribute__((ext_vector_type(3)));

static double amax(double *x, int n) {
  double m = x[0] * x[0] * x[0];
  for (int i = 1; i < n; i++)
    m = fmax(m, x[i] * x[i] * x[i]);
  return m;
}

static float aminf(float *x, int n) {
  float m = x[0];
  for (int i = 1; i < n; i++)
    m = fminf(m, x[i]);
  return m;
}

static double vmax8(double *x) {
  v8d v;
  memcpy(&v, x, sizeof v);
  return x[8] * __builtin_reduce_maximum(v);
}
static double vmax8_n(double *x, int n) { (void)n; return vmax8(x); }

static float vmin3f(float *x) {
  v3f v = {x[0], x[1], x[2]};
  float m = __builtin_reduce_min(v);
  return m * m;
}
static float vmin3f_n(float *x, int n) { (void)n; return vmin3f(x); }

static int argmax(const double *x, int n) {
  int k = 0;
  for (int i = 1; i < n; i++)
    if (x[i] > x[k])
      k = i;
  return k;
}
static int argminf(const float *x, int n) {
  int k = 0;
  for (int i = 1; i < n; i++)
    if (x[i] < x[k])
      k = i;
  return k;
}

#ifdef NO_AD
static void emul_amax(double *x, double *dx, int n) {
  int k = argmax(x, n);
  dx[k] += 3.0 * x[k] * x[k];
}
static void emul_aminf(float *x, float *dx, int n) { dx[argminf(x, n)] += 1.0f; }
static void emul_vmax8(double *x, double *dx) {
  int k = argmax(x, 8);
  dx[k] += x[8];
  dx[8] += x[k];
}
static void emul_vmin3f(float *x, float *dx) {
  int k = argminf(x, 3);
  dx[k] += 2.0f * x[k];
}
#endif

#define NMAX 100

int main(void) {
  const int sizes[5] = {1, 3, 8, 37, 100};
  double x[NMAX], dx[NMAX], want[NMAX], fd[NMAX];
  float xf[NMAX], dxf[NMAX];
  for (int p = 0; p < 2; p++)
    for (int s = 0; s < 5; s++) {
      int n = sizes[s];
      for (int i = 0; i < n; i++) {
        /* distinct values, well apart: 0.01 * i breaks every tie */
        x[i] = sin(1.7 * i + p) + 0.01 * i;
        xf[i] = (float)x[i];
        dx[i] = 0.0;
        dxf[i] = 0.0f;
      }
      check_at("amax p=%d n=%d", p, n);
#ifdef NO_AD
      emul_amax(x, dx, n);
#else
      __enzyme_autodiff_v((void *)amax, x, dx, n);
#endif
      int k = argmax(x, n);
      for (int i = 0; i < n; i++) {
        want[i] = i == k ? 3.0 * x[k] * x[k] : 0.0;
        fd[i] = fdpn(amax, x, n, i);
      }
      check_close_arr("dx vs analytic", dx, want, n, TOL_AD);
      check_close_arr("dx vs FD", dx, fd, n, TOL_FD);

      check_at("aminf p=%d n=%d", p, n);
#ifdef NO_AD
      emul_aminf(xf, dxf, n);
#else
      __enzyme_autodiff_v((void *)aminf, xf, dxf, n);
#endif
      k = argminf(xf, n);
      for (int i = 0; i < n; i++) {
        want[i] = i == k ? 1.0 : 0.0;
        fd[i] = fdpnf(aminf, xf, n, i);
      }
      check_close_arrf("dx vs analytic", dxf, want, n, TOL_AD_F);
      check_close_arrf("dx vs FD", dxf, fd, n, TOL_FD_F);
    }

  for (int p = 0; p < 3; p++) {
    double d9[9] = {0};
    float d3[3] = {0};
    for (int i = 0; i < 9; i++) {
      x[i] = cos(2.3 * i + 0.9 * p) + 0.02 * i;
      xf[i] = (float)x[i];
    }
    check_at("vmax8 p=%d", p);
#ifdef NO_AD
    emul_vmax8(x, d9);
#else
    __enzyme_autodiff_v((void *)vmax8, x, d9);
#endif
    int k = argmax(x, 8);
    for (int i = 0; i < 9; i++) {
      want[i] = i == k ? x[8] : i == 8 ? x[k] : 0.0;
      fd[i] = fdpn(vmax8_n, x, 9, i);
    }
    check_close_arr("dx vs analytic", d9, want, 9, TOL_AD);
    check_close_arr("dx vs FD", d9, fd, 9, TOL_FD);

    check_at("vmin3f p=%d", p);
#ifdef NO_AD
    emul_vmin3f(xf, d3);
#else
    __enzyme_autodiff_v((void *)vmin3f, xf, d3);
#endif
    k = argminf(xf, 3);
    for (int i = 0; i < 3; i++) {
      want[i] = i == k ? 2.0 * xf[k] : 0.0;
      fd[i] = fdpnf(vmin3f_n, xf, 3, i);
    }
    check_close_arrf("dx vs analytic", d3, want, 3, TOL_AD_F);
    check_close_arrf("dx vs FD", d3, fd, 3, TOL_FD_F);
  }
  return check_report();
}
