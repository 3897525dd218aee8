/* loop_invariant.c: loops whose bodies use loop-invariant values (which
 * clang hoists out of the loop at -O1 and up: the derivative must add up the
 * contributions of every iteration to the single hoisted value).
 *   inv_sin(a, x, n) = sum_i sin(x) a_i      x `out`, a dup
 *     dx = cos(x) sum_i a_i,  da_i = sin(x)
 *   inv_load(a, p, n) = sum_i cos(p_0) a_i^2 + p_1 a_i
 *     (p dup: loads of p_0 and p_1 are invariant, hoisted by LICM)
 *     dp_0 = -sin(p_0) sum_i a_i^2, dp_1 = sum_i a_i,
 *     da_i = 2 cos(p_0) a_i + p_1
 * n = 0 (no iteration: zero derivatives), 1, 50.
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

static double inv_sin(double *a, double x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += sin(x) * a[i];
  return s;
}

static double inv_load(double *a, double *p, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += cos(p[0]) * a[i] * a[i] + p[1] * a[i];
  return s;
}

#define N 50

static double *g_a, *g_p;
static int g_n;
static double inv_sin_x(double x) { return inv_sin(g_a, x, g_n); }
static double g_x;
static double inv_sin_a(double *a, int n) { return inv_sin(a, g_x, n); }
static double inv_load_a(double *a, int n) { return inv_load(a, g_p, n); }
static double inv_load_p(double *p, int n) {
  (void)n;
  return inv_load(g_a, p, g_n);
}

#ifdef NO_AD
static double emul_inv_sin(double *a, double *da, double x, int n) {
  double sa = 0.0;
  for (int i = 0; i < n; i++) {
    sa += a[i];
    da[i] += sin(x);
  }
  return cos(x) * sa;
}
static void emul_inv_load(double *a, double *da, double *p, double *dp, int n) {
  for (int i = 0; i < n; i++) {
    dp[0] += -sin(p[0]) * a[i] * a[i];
    dp[1] += a[i];
    da[i] += 2.0 * cos(p[0]) * a[i] + p[1];
  }
}
#endif

int main(void) {
  const int ns[3] = {0, 1, 50};
  for (int t = 0; t < 3; t++) {
    int n = ns[t];
    double a[N], da[N + 1], ga[N + 1], fa[N], x = 0.7, p[2] = {0.4, -1.3},
                                              dp[2] = {0, 0}, gp[2] = {0, 0},
                                              fp[2];
    double sa = 0.0, sa2 = 0.0;
    for (int i = 0; i < n; i++) {
      a[i] = cos(1.1 * i + 0.2) + 0.3;
      sa += a[i];
      sa2 += a[i] * a[i];
    }
    g_a = a;
    g_p = p;
    g_n = n;
    g_x = x;

    for (int i = 0; i <= n; i++)
      da[i] = ga[i] = 0.0;
    for (int i = 0; i < n; i++)
      ga[i] = sin(x);
    check_at("inv_sin n=%d", n);
#ifdef NO_AD
    double dx = emul_inv_sin(a, da, x, n);
#else
    double dx = __enzyme_autodiff((void *)inv_sin, enzyme_dup, a, da, x, n);
#endif
    check_close("dx vs analytic", dx, cos(x) * sa, TOL_AD);
    check_close("dx vs FD", dx, fd1(inv_sin_x, x), TOL_FD);
    check_close_arr("da vs analytic", da, ga, n + 1, TOL_AD);
    for (int i = 0; i < n; i++)
      fa[i] = fdpn(inv_sin_a, a, n, i);
    check_close_arr("da vs FD", da, fa, n, TOL_FD);

    for (int i = 0; i <= n; i++)
      da[i] = ga[i] = 0.0;
    for (int i = 0; i < n; i++)
      ga[i] = 2.0 * cos(p[0]) * a[i] + p[1];
    gp[0] = -sin(p[0]) * sa2;
    gp[1] = sa;
    check_at("inv_load n=%d", n);
#ifdef NO_AD
    emul_inv_load(a, da, p, dp, n);
#else
    __enzyme_autodiff_v((void *)inv_load, enzyme_dup, a, da, enzyme_dup, p, dp, n);
#endif
    check_close_arr("da vs analytic", da, ga, n + 1, TOL_AD);
    check_close_arr("dp vs analytic", dp, gp, 2, TOL_AD);
    for (int i = 0; i < n; i++)
      fa[i] = fdpn(inv_load_a, a, n, i);
    for (int k = 0; k < 2; k++)
      fp[k] = fdpn(inv_load_p, p, 2, k);
    check_close_arr("da vs FD", da, fa, n, TOL_FD);
    check_close_arr("dp vs FD", dp, fp, 2, TOL_FD);
  }
  return check_report();
}
