/* loop_early_return.c: `return` statements inside loops (the loop has an
 * exit block that is a function exit, besides the normal exit).
 *   prod(x, n): p = prod_(j<=i) x_j; at the first x_i < 0 return
 *     2 p + x_i^2; if none, return p = prod_j x_j. With K the first negative
 *     index: d/dx_j = 2 p_K / x_j (j <= K) + 2 x_K [j = K], 0 after K;
 *     without: p / x_j. n = 30; K = 17, K = 0, none.
 *   scan(a, lim, m, k): s += a_q^2 (j + 1) over q = i k + j, row by row; as
 *     soon as s > lim, return 0.5 s + a_q from inside the inner loop; else
 *     return s. lim is enzyme_const. d/da_q = (j + 1) a_q (q <= Q) + [q = Q]
 *     if it returns at Q, else 2 (j + 1) a_q. 6 x 8; lim = 20 (returns at
 *     q = 12), 45 (q = 23, the inner loop's last iteration), 100 (never).
 *     Every partial sum stays >= 1.8 away from lim.
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

static double prod(double *x, int n) {
  double p = 1.0;
  for (int i = 0; i < n; i++) {
    p *= x[i];
    if (x[i] < 0.0)
      return 2.0 * p + x[i] * x[i];
  }
  return p;
}

static double scan(double *a, double lim, int m, int k) {
  double s = 0.0;
  for (int i = 0; i < m; i++)
    for (int j = 0; j < k; j++) {
      s += a[i * k + j] * a[i * k + j] * (j + 1);
      if (s > lim)
        return 0.5 * s + a[i * k + j];
    }
  return s;
}

#define N 30
#define M 6
#define K 8

/* returns the index of the return inside the loop, -1 if none */
static int prod_grad(const double *x, int n, double *g) {
  double p = 1.0;
  int kk = -1;
  for (int i = 0; i < n; i++) {
    p *= x[i];
    if (x[i] < 0.0) {
      kk = i;
      break;
    }
  }
  for (int j = 0; j < n; j++)
    g[j] = kk < 0 ? p / x[j] : j <= kk ? 2.0 * p / x[j] : 0.0;
  if (kk >= 0)
    g[kk] += 2.0 * x[kk];
  return kk;
}

static int scan_grad(const double *a, double lim, int m, int k, double *g) {
  double s = 0.0;
  int qq = -1;
  for (int q = 0; q < m * k && qq < 0; q++) {
    s += a[q] * a[q] * (q % k + 1);
    if (s > lim)
      qq = q;
  }
  for (int q = 0; q < m * k; q++)
    g[q] = qq < 0 ? 2.0 * (q % k + 1) * a[q] : q <= qq ? (q % k + 1) * a[q] : 0.0;
  if (qq >= 0)
    g[qq] += 1.0;
  return qq;
}

static double g_lim;
static double scan_a(double *a, int n) {
  (void)n;
  return scan(a, g_lim, M, K);
}

#ifdef NO_AD
static void emul_prod(double *x, double *dx, int n) {
  double g[N];
  prod_grad(x, n, g);
  for (int i = 0; i < n; i++)
    dx[i] += g[i];
}
static void emul_scan(double *a, double *da, double lim, int m, int k) {
  double g[M * K];
  scan_grad(a, lim, m, k, g);
  for (int i = 0; i < m * k; i++)
    da[i] += g[i];
}
#endif

int main(void) {
  const int neg[3] = {17, 0, -1};
  for (int p = 0; p < 3; p++) {
    double x[N], dx[N] = {0}, g[N], fd[N];
    for (int i = 0; i < N; i++)
      x[i] = 1.0 + 0.2 * sin(1.9 * i + p);
    if (neg[p] >= 0)
      for (int i = neg[p]; i < N; i += 5)
        x[i] = -x[i];
    check_at("prod negative at %d", neg[p]);
    check_close("return index", prod_grad(x, N, g), neg[p], 0.0);
#ifdef NO_AD
    emul_prod(x, dx, N);
#else
    __enzyme_autodiff_v((void *)prod, enzyme_dup, x, dx, N);
#endif
    check_close_arr("dx vs analytic", dx, g, N, TOL_AD);
    for (int i = 0; i < N; i++)
      fd[i] = fdpn(prod, x, N, i);
    check_close_arr("dx vs FD", dx, fd, N, TOL_FD);
  }

  const double lims[3] = {20.0, 45.0, 100.0};
  const int ret_at[3] = {12, 23, -1};
  for (int p = 0; p < 3; p++) {
    double a[M * K], da[M * K] = {0}, g[M * K], fd[M * K], lim = lims[p];
    for (int q = 0; q < M * K; q++)
      a[q] = 0.6 + 0.4 * sin(1.7 * q + 0.2);
    g_lim = lim;
    check_at("scan lim=%g", lim);
    check_close("return index", scan_grad(a, lim, M, K, g), ret_at[p], 0.0);
#ifdef NO_AD
    emul_scan(a, da, lim, M, K);
#else
    __enzyme_autodiff_v((void *)scan, enzyme_dup, a, da, enzyme_const, lim, M, K);
#endif
    check_close_arr("da vs analytic", da, g, M * K, TOL_AD);
    for (int q = 0; q < M * K; q++)
      fd[q] = fdpn(scan_a, a, M * K, q);
    check_close_arr("da vs FD", da, fd, M * K, TOL_FD);
  }
  return check_report();
}
