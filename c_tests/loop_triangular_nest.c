/* loop_triangular_nest.c: loop nests whose inner bounds follow outer
 * indices in every direction, three deep, with a value cached in the
 * innermost loop (sin of a product), so that the caches of the inner
 * loops are sized from the outer loops' bounds before the nest starts:
 *   f(a, n) = sum_{i<n} sum_{i<j<n} sum_{k<=j} a_i sin(a_j a_k)
 *           + sum_{i<n} sum_{j=i..0, descending} a_j^2 cos(a_i a_j)
 *   d/da via each term's partials (analytic) and central differences.
 * n = 9, 1 and 0 (empty nests).
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

#define N 9

__attribute__((noinline)) static double f(const double *a, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++)
      for (int k = 0; k <= j; k++)
        s += a[i] * sin(a[j] * a[k]);
  for (int i = 0; i < n; i++)
    for (int j = i; j >= 0; j--)
      s += a[j] * a[j] * cos(a[i] * a[j]);
  return s;
}

static void f_grad(const double *a, int n, double *g) {
  for (int i = 0; i < n; i++)
    g[i] = 0.0;
  for (int i = 0; i < n; i++)
    for (int j = i + 1; j < n; j++)
      for (int k = 0; k <= j; k++) {
        double p = a[j] * a[k], c = cos(p);
        g[i] += sin(p);
        g[j] += a[i] * c * a[k];
        g[k] += a[i] * c * a[j];
      }
  for (int i = 0; i < n; i++)
    for (int j = i; j >= 0; j--) {
      double p = a[i] * a[j], c = cos(p), sn = sin(p);
      g[j] += 2.0 * a[j] * c - a[j] * a[j] * sn * a[i];
      g[i] += -a[j] * a[j] * sn * a[j];
    }
}

static int g_n;
static double f_a(double *a, int n) {
  (void)n;
  return f(a, g_n);
}

int main(void) {
  static double a[N], da[N], g[N], fd[N];
  const int ns[3] = {N, 1, 0};
  for (int t = 0; t < 3; t++) {
    int n = ns[t];
    for (int i = 0; i < N; i++) {
      a[i] = 0.3 * sin(1.7 * i + 0.2) + 0.4;
      da[i] = 0.0;
    }
    f_grad(a, n, g);
    check_at("triangular nest n=%d", n);
#ifdef NO_AD
    for (int i = 0; i < n; i++)
      da[i] += g[i];
#else
    __enzyme_autodiff_v((void *)f, enzyme_dup, a, da, n);
#endif
    check_close_arr("da vs analytic", da, g, n, TOL_AD);
    g_n = n;
    for (int i = 0; i < n; i++)
      fd[i] = fdpn(f_a, a, n, i);
    check_close_arr("da vs FD", da, fd, n, TOL_FD);
  }
  return check_report();
}
