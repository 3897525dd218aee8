/* loop_vreduce_gather.c: masked gathers and scatters (clang's
 * __builtin_masked_gather / __builtin_masked_scatter, what the vectoriser
 * makes of indexed accesses on targets that have them), in reverse and
 * forward mode, with repeated indices (two lanes on one element):
 *   gathered(x[6], idx, m) = sum over set lanes k of x[idx_k]^2 * c_k
 *     d/dx_j = sum over set lanes k with idx_k = j of 2 x_j c_k
 *   scattered(x[4], idx, m, y[6]): y[idx_k] = sin(x_k) for set lanes k
 *     (the last lane wins on a repeated index), y fully written first
 *     with 0.5 x_0 so unset elements still depend on x;
 *     with y's shadow seeded by w: d/dx_k = w[idx_k] cos(x_k) if lane k
 *     is set and no later set lane has the same index; d/dx_0 += 0.5 sum
 *     of w over the elements no set lane wrote.
 * Checked against the analytic derivatives and central finite differences.
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include <string.h>
#include "enzyme.h"
#include "check.h"

typedef double v4d __attribute__((ext_vector_type(4)));
/* 64-bit indices: clang 22 scales the indices of these builtins by the
 * size of the index type, so they must be as wide as a double. */
typedef long long v4i __attribute__((ext_vector_type(4)));
typedef _Bool v4b __attribute__((ext_vector_type(4)));

static const int IDX[4] = {1, 4, 1, 3};
static const int MASK[4] = {1, 1, 1, 0};
static const double C[4] = {0.5, -1.5, 2.0, 3.0};

static v4i idx_v(void) { return (v4i){IDX[0], IDX[1], IDX[2], IDX[3]}; }
static v4b mask_v(void) { return (v4b){MASK[0], MASK[1], MASK[2], MASK[3]}; }

static double gathered(const double *x) {
  v4d g = __builtin_masked_gather(mask_v(), idx_v(), x);
  v4d c = {C[0], C[1], C[2], C[3]};
  v4d t = g * g * c;
  double s = 0;
  for (int k = 0; k < 4; k++)
    s += MASK[k] ? t[k] : 0.0;
  return s;
}

static void scattered(const double *x, double *y) {
  for (int j = 0; j < 6; j++)
    y[j] = 0.5 * x[0];
  v4d v = {sin(x[0]), sin(x[1]), sin(x[2]), sin(x[3])};
  __builtin_masked_scatter(mask_v(), idx_v(), v, y);
}

static double scattered_dot(const double *x) {
  static const double w[6] = {0.3, -1.1, 0.7, 2.0, 1.3, -0.4};
  double y[6];
  scattered(x, y);
  double s = 0;
  for (int j = 0; j < 6; j++)
    s += w[j] * y[j];
  return s;
}

int main(void) {
  double x[6] = {0.4, -0.9, 1.3, 0.2, -1.7, 0.8};
  double dx[6] = {0};
  double want[6] = {0};
  for (int k = 0; k < 4; k++)
    if (MASK[k])
      want[IDX[k]] += 2 * x[IDX[k]] * C[k];
#ifdef NO_AD
  memcpy(dx, want, sizeof dx);
#else
  __enzyme_autodiff((void *)gathered, enzyme_dup, x, dx);
#endif
  for (int j = 0; j < 6; j++) {
    check_at("gather reverse j=%d", j);
    check_close("vs analytic", dx[j], want[j], TOL_AD);
    check_close("vs FD", dx[j], fdn(gathered, x, 6, j), TOL_FD);
  }
  for (int j = 0; j < 6; j++) {
    double t[6] = {0};
    t[j] = 1;
#ifdef NO_AD
    double tan = want[j];
#else
    double tan = __enzyme_fwddiff((void *)gathered, enzyme_dup, x, t);
#endif
    check_at("gather forward j=%d", j);
    check_close("vs analytic", tan, want[j], TOL_AD);
  }

  const double w[6] = {0.3, -1.1, 0.7, 2.0, 1.3, -0.4};
  double xs[4] = {0.6, -0.3, 1.1, 0.9}, y[6], dxs[4] = {0}, dy[6];
  memcpy(dy, w, sizeof dy);
  double ws[4] = {0};
  int written[6] = {0};
  for (int k = 3; k >= 0; k--)
    if (MASK[k] && !written[IDX[k]]) {
      ws[k] += w[IDX[k]] * cos(xs[k]);
      written[IDX[k]] = 1;
    }
  for (int j = 0; j < 6; j++)
    if (!written[j])
      ws[0] += 0.5 * w[j];
#ifdef NO_AD
  memcpy(dxs, ws, sizeof dxs);
  memset(dy, 0, sizeof dy);
#else
  __enzyme_autodiff((void *)scattered, enzyme_dup, xs, dxs, enzyme_dup, y, dy);
#endif
  for (int k = 0; k < 4; k++) {
    check_at("scatter reverse k=%d", k);
    check_close("vs analytic", dxs[k], ws[k], TOL_AD);
    check_close("vs FD", dxs[k], fdn(scattered_dot, xs, 4, k), TOL_FD);
  }
  for (int j = 0; j < 6; j++) {
    check_at("scatter reverse j=%d", j);
    check_close("the seed is consumed", dy[j], 0, TOL_AD);
  }
  for (int k = 0; k < 4; k++) {
    double t[4] = {0}, yy[6], ty[6] = {0};
    t[k] = 1;
#ifdef NO_AD
    double tan = ws[k];
#else
    __enzyme_fwddiff((void *)scattered, enzyme_dup, xs, t, enzyme_dup, yy, ty);
    double tan = 0;
    for (int j = 0; j < 6; j++)
      tan += w[j] * ty[j];
#endif
    check_at("scatter forward k=%d", k);
    check_close("w . dy vs analytic", tan, ws[k], TOL_AD);
  }
  return check_report();
}
