/* rev_vector_width.c: vector reverse mode, __enzyme_autodiff with
 * `enzyme_width, N`: one forward sweep, N reverse sweeps with their own
 * shadows; each `dup` argument takes N shadows, each `out` argument's N
 * adjoints come back as an array, an active return is seeded with 1 in
 * every lane.
 *   jac(x[3], y[2]):  y0 = x0 x1 + sin x2, y1 = x0^2 exp(x1) - x2
 *     width 2, seeds dy = e0, e1: lane k gives row k of the Jacobian;
 *   mixed(x[2], y[1]) = x0 + x1^2, y0 = x0 x1 (the return active):
 *     width 3, dy0 = 0, 1, 2: lane k gives grad(ret) + k grad(y0);
 *   outs(a, b) = a^2 b + cos a (two `out` arguments), width 2: both lanes
 *     the gradient;
 *   looped(x[n], n, y[2]): a malloc'ed buffer t_i = x_i^2 (a shadow per
 *     lane), y0 = sum t_i x_i, y1 = sum t_i, an early return when n = 0:
 *     width 4, dy = (1,0), (0,1), (2,-1), (0,0);
 * checked against the analytic derivatives and central finite differences.
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "enzyme.h"
#include "check.h"

static void jac(const double *x, double *y) {
  y[0] = x[0] * x[1] + sin(x[2]);
  y[1] = x[0] * x[0] * exp(x[1]) - x[2];
}

static double mixed(const double *x, double *y) {
  y[0] = x[0] * x[1];
  return x[0] + x[1] * x[1];
}

static double outs(double a, double b) { return a * a * b + cos(a); }

static void looped(const double *x, int n, double *y) {
  if (n == 0) {
    y[0] = y[1] = 0;
    return;
  }
  double *t = (double *)malloc(n * sizeof(double));
  for (int i = 0; i < n; i++)
    t[i] = x[i] * x[i];
  double s0 = 0, s1 = 0;
  for (int i = 0; i < n; i++) {
    s0 += t[i] * x[i];
    s1 += t[i];
  }
  y[0] = s0;
  y[1] = s1;
  free(t);
}

typedef struct {
  double da[2], db[2];
} outs_w2;
outs_w2 __enzyme_autodiff_outs(void *, ...);

/* Scalar views for finite differences. */
static int fd_row, fd_n;
static double jac_v(const double *x) {
  double y[2];
  jac(x, y);
  return y[fd_row];
}
static double mixed_y_v(const double *x) {
  double y[1];
  mixed(x, y);
  return y[0];
}
static double mixed_r_v(const double *x) {
  double y[1];
  return mixed(x, y);
}
static double looped_v(const double *x) {
  double y[2];
  looped(x, fd_n, y);
  return y[fd_row];
}
static double outs_a(const double *v) { return outs(v[0], v[1]); }

int main(void) {
  /* jac, width 2 */
  double x[3] = {0.7, -0.4, 1.3}, y[2];
  double dx[2][3] = {{0}}, dy[2][2] = {{1, 0}, {0, 1}};
  double J[2][3] = {{x[1], x[0], cos(x[2])},
                    {2 * x[0] * exp(x[1]), x[0] * x[0] * exp(x[1]), -1}};
#ifdef NO_AD
  memcpy(dx, J, sizeof dx);
  jac(x, y);
#else
  __enzyme_autodiff((void *)jac, enzyme_width, 2, enzyme_dup, x, dx[0], dx[1],
                    enzyme_dup, y, dy[0], dy[1]);
#endif
  for (int k = 0; k < 2; k++)
    for (int j = 0; j < 3; j++) {
      check_at("jac lane %d x%d", k, j);
      fd_row = k;
      check_close("vs analytic", dx[k][j], J[k][j], TOL_AD);
      check_close("vs FD", dx[k][j], fdn(jac_v, x, 3, j), TOL_FD);
    }
  check_close("jac primal y0", y[0], x[0] * x[1] + sin(x[2]), TOL_AD);

  /* mixed, width 3, the return active in every lane */
  double xm[2] = {1.1, -0.6}, ym[1];
  double dxm[3][2] = {{0}}, dym[3][1] = {{0}, {1}, {2}};
#ifdef NO_AD
  for (int k = 0; k < 3; k++) {
    dxm[k][0] = 1 + k * xm[1];
    dxm[k][1] = 2 * xm[1] + k * xm[0];
  }
#else
  __enzyme_autodiff((void *)mixed, enzyme_width, 3, enzyme_dup, xm, dxm[0], dxm[1],
                    dxm[2], enzyme_dup, ym, dym[0], dym[1], dym[2]);
#endif
  for (int k = 0; k < 3; k++)
    for (int j = 0; j < 2; j++) {
      check_at("mixed lane %d x%d", k, j);
      double want = j == 0 ? 1 + k * xm[1] : 2 * xm[1] + k * xm[0];
      check_close("vs analytic", dxm[k][j], want, TOL_AD);
      check_close("vs FD", dxm[k][j],
                  fdn(mixed_r_v, xm, 2, j) + k * fdn(mixed_y_v, xm, 2, j), TOL_FD);
    }

  /* outs, width 2, `out` arguments */
  double ab[2] = {0.9, 1.7};
  double wa = 2 * ab[0] * ab[1] - sin(ab[0]), wb = ab[0] * ab[0];
#ifdef NO_AD
  outs_w2 g = {{wa, wa}, {wb, wb}};
#else
  outs_w2 g = __enzyme_autodiff_outs((void *)outs, enzyme_width, 2, ab[0], ab[1]);
#endif
  for (int k = 0; k < 2; k++) {
    check_at("outs lane %d", k);
    check_close("da vs analytic", g.da[k], wa, TOL_AD);
    check_close("db vs analytic", g.db[k], wb, TOL_AD);
    check_close("da vs FD", g.da[k], fdn(outs_a, ab, 2, 0), TOL_FD);
    check_close("db vs FD", g.db[k], fdn(outs_a, ab, 2, 1), TOL_FD);
  }

  /* looped, width 4, an allocation inside and an early return */
  for (int n = 0; n <= 5; n += 5) {
    double xl[5] = {0.3, -1.2, 0.8, 1.5, -0.4}, yl[2];
    const double seed[4][2] = {{1, 0}, {0, 1}, {2, -1}, {0, 0}};
    double dxl[4][5] = {{0}}, dyl[4][2];
    memcpy(dyl, seed, sizeof dyl); /* the derivative consumes (zeroes) them */
#ifdef NO_AD
    memset(dyl, 0, sizeof dyl);
    for (int k = 0; k < 4; k++)
      for (int i = 0; i < n; i++)
        dxl[k][i] = seed[k][0] * 3 * xl[i] * xl[i] + seed[k][1] * 2 * xl[i];
#else
    __enzyme_autodiff((void *)looped, enzyme_width, 4, enzyme_dup, xl, dxl[0], dxl[1],
                      dxl[2], dxl[3], enzyme_const, n, enzyme_dup, yl, dyl[0], dyl[1],
                      dyl[2], dyl[3]);
#endif
    fd_n = n;
    for (int k = 0; k < 4; k++)
      for (int i = 0; i < 5; i++) {
        check_at("looped n=%d lane %d x%d", n, k, i);
        double want = i < n ? seed[k][0] * 3 * xl[i] * xl[i] + seed[k][1] * 2 * xl[i] : 0;
        fd_row = 0;
        double fd = seed[k][0] * fdn(looped_v, xl, 5, i);
        fd_row = 1;
        fd += seed[k][1] * fdn(looped_v, xl, 5, i);
        check_close("vs analytic", dxl[k][i], want, TOL_AD);
        check_close("vs FD", dxl[k][i], fd, TOL_FD);
        check_close("the seed is consumed", dyl[k][i % 2], 0, TOL_AD);
      }
  }
  return check_report();
}
