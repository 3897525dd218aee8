/* loop_vreduce_masked.c: masked vector loads and stores
 * (llvm.masked.load/store), in reverse and forward mode. The shadow access
 * takes the primal's mask: lanes off the mask are neither read nor written.
 *   csum(x, c, n)      = sum_{c_i} x_i^2          dx_i = 2 x_i where c_i
 *   cscale(x, y, c, n): y_i = 3 x_i^2 where c_i   (y's shadow seeded w:
 *                      dx_i += 6 x_i w_i and w_i -> 0 where c_i; elsewhere
 *                      w_i stays and dx_i gets nothing)
 *     (conditional loops: vectorised with AVX masked accesses from -O2,
 *      hence -mavx; the reduction in csum is a reduce.fadd)
 *   bload(x)     = sum_k v_k^2, v = __builtin_masked_load({1,0,1,1}, x)
 *   bstore(x, y): __builtin_masked_store({0,1,1,0}, 2 x, y)  (every level)
 * n = 3, 9, 37; c_i = (i % 3 != 1). Forward mode: tangents of csum and
 * bload along random directions, and cscale's tangent in y's shadow.
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
// enz-cflags: -ffast-math -fno-finite-math-only -mavx
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);
void __enzyme_fwddiff_v(void *, ...);

typedef double v4d __attribute__((ext_vector_type(4)));
typedef _Bool v4b __attribute__((ext_vector_type(4)));

#define NMAX 40
static int g_c[NMAX]; /* the condition, shared with the FD wrappers */

static double csum(double *x, int *c, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    if (c[i])
      s += x[i] * x[i];
  return s;
}
static double csum_n(double *x, int n) { return csum(x, g_c, n); }

static void cscale(double *restrict x, double *restrict y, int *c, int n) {
  for (int i = 0; i < n; i++)
    if (c[i])
      y[i] = 3.0 * x[i] * x[i];
}

static double bload(double *x) {
  v4b m = {1, 0, 1, 1};
  v4d v = __builtin_masked_load(m, x, (v4d){0.0, 0.0, 0.0, 0.0});
  v = v * v;
  return v[0] + v[1] + v[2] + v[3];
}
static double bload_n(double *x, int n) { (void)n; return bload(x); }

static void bstore(double *x, double *y) {
  v4b m = {0, 1, 1, 0};
  v4d v;
  memcpy(&v, x, sizeof v);
  __builtin_masked_store(m, 2.0 * v, y);
}

#ifdef NO_AD
static void emul_csum(double *x, double *dx, int *c, int n) {
  for (int i = 0; i < n; i++)
    if (c[i])
      dx[i] += 2.0 * x[i];
}
static void emul_cscale(double *x, double *dx, double *y, double *dy, int *c,
                        int n) {
  for (int i = 0; i < n; i++)
    if (c[i]) {
      y[i] = 3.0 * x[i] * x[i];
      dx[i] += 6.0 * x[i] * dy[i];
      dy[i] = 0.0;
    }
}
static void emul_bload(double *x, double *dx) {
  for (int k = 0; k < 4; k++)
    if (k != 1)
      dx[k] += 2.0 * x[k];
}
static void emul_bstore(double *x, double *dx, double *y, double *dy) {
  for (int k = 1; k < 3; k++) {
    y[k] = 2.0 * x[k];
    dx[k] += 2.0 * dy[k];
    dy[k] = 0.0;
  }
}
static double fwd_csum(double *x, double *v, int *c, int n) {
  double t = 0.0;
  for (int i = 0; i < n; i++)
    if (c[i])
      t += 2.0 * x[i] * v[i];
  return t;
}
static void fwd_cscale(double *x, double *dx, double *y, double *dy, int *c,
                       int n) {
  for (int i = 0; i < n; i++)
    if (c[i]) {
      y[i] = 3.0 * x[i] * x[i];
      dy[i] = 6.0 * x[i] * dx[i];
    }
}
#endif

int main(void) {
  const int sizes[3] = {3, 9, 37};
  double x[NMAX], dx[NMAX], y[NMAX], dy[NMAX], w[NMAX], want[NMAX],
      want_dy[NMAX], fd[NMAX], v[NMAX];
  check_seed(7);
  for (int s = 0; s < 3; s++) {
    int n = sizes[s];
    for (int i = 0; i < n; i++) {
      x[i] = 0.8 * sin(1.1 * i + 0.3) + 0.1;
      g_c[i] = i % 3 != 1;
      dx[i] = 0.0;
    }
    check_at("csum n=%d", n);
#ifdef NO_AD
    emul_csum(x, dx, g_c, n);
#else
    __enzyme_autodiff_v((void *)csum, x, dx, enzyme_const, g_c, n);
#endif
    for (int i = 0; i < n; i++) {
      want[i] = g_c[i] ? 2.0 * x[i] : 0.0;
      fd[i] = fdpn(csum_n, x, n, i);
    }
    check_close_arr("dx vs analytic", dx, want, n, TOL_AD);
    check_close_arr("dx vs FD", dx, fd, n, TOL_FD);

    check_at("cscale n=%d", n);
    for (int i = 0; i < n; i++) {
      dx[i] = 0.0;
      y[i] = -5.0;
      w[i] = dy[i] = 0.5 + 0.1 * i;
    }
#ifdef NO_AD
    emul_cscale(x, dx, y, dy, g_c, n);
#else
    __enzyme_autodiff_v((void *)cscale, x, dx, y, dy, enzyme_const, g_c, n);
#endif
    for (int i = 0; i < n; i++) {
      want[i] = g_c[i] ? 6.0 * x[i] * w[i] : 0.0;
      want_dy[i] = g_c[i] ? 0.0 : w[i];
      v[i] = g_c[i] ? 3.0 * x[i] * x[i] : -5.0;
    }
    check_close_arr("dx vs analytic", dx, want, n, TOL_AD);
    check_close_arr("dy after (zero under the mask)", dy, want_dy, n, TOL_AD);
    check_close_arr("y (primal)", y, v, n, TOL_AD);

    check_at("fwd csum n=%d", n);
    check_rand_dir(v, n);
#ifdef NO_AD
    double t = fwd_csum(x, v, g_c, n);
#else
    double t = __enzyme_fwddiff((void *)csum, x, v, enzyme_const, g_c, n);
#endif
    double tw = 0.0;
    for (int i = 0; i < n; i++)
      tw += g_c[i] ? 2.0 * x[i] * v[i] : 0.0;
    check_close("tangent vs analytic", t, tw, TOL_AD);
    check_close("tangent vs FD", t, fddirn(csum_n, x, v, n), TOL_FD);

    check_at("fwd cscale n=%d", n);
    for (int i = 0; i < n; i++)
      dy[i] = 9.0; /* left alone off the mask */
#ifdef NO_AD
    fwd_cscale(x, v, y, dy, g_c, n);
#else
    __enzyme_fwddiff_v((void *)cscale, x, v, y, dy, enzyme_const, g_c, n);
#endif
    for (int i = 0; i < n; i++)
      want[i] = g_c[i] ? 6.0 * x[i] * v[i] : 9.0;
    check_close_arr("dy vs analytic", dy, want, n, TOL_AD);
  }

  for (int p = 0; p < 2; p++) {
    double d4[4] = {0}, y4[4] = {-1, -1, -1, -1}, dy4[4] = {1.5, 2.5, 3.5, 4.5};
    for (int k = 0; k < 4; k++)
      x[k] = 0.7 * cos(1.3 * k + p) - 0.2;
    check_at("bload p=%d", p);
#ifdef NO_AD
    emul_bload(x, d4);
#else
    __enzyme_autodiff_v((void *)bload, x, d4);
#endif
    for (int k = 0; k < 4; k++) {
      want[k] = k != 1 ? 2.0 * x[k] : 0.0;
      fd[k] = fdpn(bload_n, x, 4, k);
    }
    check_close_arr("dx vs analytic", d4, want, 4, TOL_AD);
    check_close_arr("dx vs FD", d4, fd, 4, TOL_FD);

    check_at("fwd bload p=%d", p);
    check_rand_dir(v, 4);
#ifdef NO_AD
    double t = 0.0;
    for (int k = 0; k < 4; k++)
      t += k != 1 ? 2.0 * x[k] * v[k] : 0.0;
#else
    double t = __enzyme_fwddiff((void *)bload, x, v);
#endif
    check_close("tangent vs analytic", t,
                2.0 * (x[0] * v[0] + x[2] * v[2] + x[3] * v[3]), TOL_AD);
    check_close("tangent vs FD", t, fddirn(bload_n, x, v, 4), TOL_FD);

    check_at("bstore p=%d", p);
    for (int k = 0; k < 4; k++)
      d4[k] = 0.0;
#ifdef NO_AD
    emul_bstore(x, d4, y4, dy4);
#else
    __enzyme_autodiff_v((void *)bstore, x, d4, y4, dy4);
#endif
    const double wdx[4] = {0.0, 5.0, 7.0, 0.0}, wdy[4] = {1.5, 0.0, 0.0, 4.5},
                 wy[4] = {-1.0, 2.0 * x[1], 2.0 * x[2], -1.0};
    check_close_arr("dx vs analytic", d4, wdx, 4, TOL_AD);
    check_close_arr("dy after", dy4, wdy, 4, TOL_AD);
    check_close_arr("y (primal)", y4, wy, 4, TOL_AD);
  }
  return check_report();
}
