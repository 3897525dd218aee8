/* loop_break.c: a loop with a data-dependent break (two exits: the latch
 * and the break), n = 24:
 *   for (i < n) { ret += v_i^2; if (ret > 30) break; ret *= 1.1; }
 * If the break is taken at K: ret = sum_{i<=K} v_i^2 1.1^(K-i), so
 *   dret/dv_i = 2 v_i 1.1^(K-i) (i <= K), 0 after K;
 * if not: ret = sum_i v_i^2 1.1^(n-i), dret/dv_i = 2 v_i 1.1^(n-i).
 * Three points: the break taken mid-way (K = 10), at the last iteration
 * (K = 23), and never. Every partial sum stays >= 0.5 away from 30.
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

static double f(double *v, int n) {
  double ret = 0.0;
  for (int i = 0; i < n; i++) {
    ret += v[i] * v[i];
    if (ret > 30.0)
      break;
    ret *= 1.1;
  }
  return ret;
}

/* the analytic gradient; returns the break index (-1: no break) */
static int grad(const double *v, int n, double *g) {
  double ret = 0.0;
  int k = -1, last;
  for (int i = 0; i < n; i++) {
    ret += v[i] * v[i];
    if (ret > 30.0) {
      k = i;
      break;
    }
    ret *= 1.1;
  }
  last = k < 0 ? n - 1 : k;
  for (int i = 0; i < n; i++)
    g[i] = i <= last ? 2.0 * v[i] * pow(1.1, (k < 0 ? n : k) - i) : 0.0;
  return k;
}

#ifdef NO_AD
static void emul(double *v, double *dv, int n) {
  double g[64];
  grad(v, n, g);
  for (int i = 0; i < n; i++)
    dv[i] += g[i];
}
#endif

#define N 24

int main(void) {
  const double amp[3] = {1.2, 0.55, 0.45};
  const int want_k[3] = {10, 23, -1};
  for (int p = 0; p < 3; p++) {
    double v[N], dv[N] = {0}, g[N], fd[N];
    for (int i = 0; i < N; i++)
      v[i] = amp[p] * (1.0 + 0.5 * sin(1.3 * i + 0.4));
    check_at("f amp=%g", amp[p]);
    int k = grad(v, N, g);
    /* the test itself: the break happens where this point is meant to test */
    check_close("break index", k, want_k[p], 0.0);
#ifdef NO_AD
    emul(v, dv, N);
#else
    __enzyme_autodiff_v((void *)f, enzyme_dup, v, dv, N);
#endif
    check_close_arr("dv vs analytic", dv, g, N, TOL_AD);
    for (int i = 0; i < N; i++)
      fd[i] = fdpn(f, v, N, i);
    check_close_arr("dv vs FD", dv, fd, N, TOL_FD);
  }
  return check_report();
}
