/* loop_masked_bounds.c: inner loop bounds that clang turns into masks of
 * the outer index (found by an AddressSanitizer sweep: enz-rs sized the
 * caches of these nests, allocated before the nest, from a bound of 2^31,
 * and the allocation failed):
 *   f(x, n) = prod_{i<n} prod_{j < (i & ~3)} sin(x[j % 16])
 *     d/dx_k = f c_k cos(x_k) / sin(x_k), c_k = times x_k is a factor
 *   g(y, n): y <- 0.5 y + tanh(y), repeated i times for each i < n (a
 *     small triangular body that clang -O2 unrolls by 4: the unrolled
 *     loop's trip count is i & 0x7ffffffc)
 *     dy_out/dy_in = prod over the steps of (0.5 + 1 - tanh^2(y))
 *   h(y, n, m): y <- 0.5 y + tanh(y) for j = 0, 2, 4, ... < n, m times
 *     (unrolled by 4 at -O2: the unrolled loop's limit, computed before
 *     the nest, is garbage when n <= 0 and a guard skips the loop)
 * n = 0, 1, 5, 9, 17 (h: also n = -1 and m = 0); checked against the
 * analytic derivatives and central differences.
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

__attribute__((noinline)) static double f(const double *x, int n) {
  double s = 1.0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < (i & ~3); j++)
      s = s * sin(x[(unsigned)j % 16]);
  return s;
}

static void f_grad(const double *x, int n, double *g) {
  int c[16] = {0};
  for (int i = 0; i < n; i++)
    for (int j = 0; j < (i & ~3); j++)
      c[j % 16]++;
  double s = f(x, n);
  for (int k = 0; k < 16; k++)
    g[k] = s * c[k] * cos(x[k]) / sin(x[k]);
}

__attribute__((noinline)) static void g(double *y, int n) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < i; j++)
      y[0] = 0.5 * y[0] + tanh(y[0]);
}

static double g_grad(double y, int n) {
  double d = 1.0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < i; j++) {
      double t = tanh(y);
      d *= 1.5 - t * t;
      y = 0.5 * y + t;
    }
  return d;
}

__attribute__((noinline)) static void h(double *y, int n, int m) {
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j += 2)
      y[0] = 0.5 * y[0] + tanh(y[0]);
}

static double h_grad(double y, int n, int m) {
  double d = 1.0;
  for (int i = 0; i < m; i++)
    for (int j = 0; j < n; j += 2) {
      double t = tanh(y);
      d *= 1.5 - t * t;
      y = 0.5 * y + t;
    }
  return d;
}

static int g_n, g_m;
static double h_y(double y) {
  h(&y, g_n, g_m);
  return y;
}
static double f_x(double *x, int n) {
  (void)n;
  return f(x, g_n);
}
static double g_y(double y) {
  g(&y, g_n);
  return y;
}

int main(void) {
  const int ns[5] = {0, 1, 5, 9, 17};
  for (int t = 0; t < 5; t++) {
    int n = ns[t];
    double x[16], dx[16] = {0}, want[16], fd[16];
    for (int k = 0; k < 16; k++)
      x[k] = 1.0 + 0.03 * k;
    f_grad(x, n, want);
    check_at("f n=%d", n);
#ifdef NO_AD
    for (int k = 0; k < 16; k++)
      dx[k] = want[k];
#else
    __enzyme_autodiff_v((void *)f, enzyme_dup, x, dx, n);
#endif
    check_close_arr("dx vs analytic", dx, want, 16, TOL_AD);
    g_n = n;
    for (int k = 0; k < 16; k++)
      fd[k] = fdpn(f_x, x, 16, k);
    check_close_arr("dx vs FD", dx, fd, 16, TOL_FD);

    double y = 0.7, dy = 1.0;
    check_at("g n=%d", n);
#ifdef NO_AD
    dy = g_grad(y, n);
#else
    __enzyme_autodiff_v((void *)g, enzyme_dup, &y, &dy, n);
#endif
    check_close("dy vs analytic", dy, g_grad(0.7, n), TOL_AD);
    check_close("dy vs FD", dy, fd1(g_y, 0.7), TOL_FD);
  }
  const int hm[6][2] = {{0, 1}, {-1, 1}, {2, 0}, {1, 2}, {5, 3}, {9, 2}};
  for (int t = 0; t < 6; t++) {
    int n = hm[t][0], m = hm[t][1];
    double y = 0.7, dy = 1.0;
    check_at("h n=%d m=%d", n, m);
#ifdef NO_AD
    dy = h_grad(y, n, m);
#else
    __enzyme_autodiff_v((void *)h, enzyme_dup, &y, &dy, n, m);
#endif
    check_close("dy vs analytic", dy, h_grad(0.7, n, m), TOL_AD);
    g_n = n, g_m = m;
    check_close("dy vs FD", dy, fd1(h_y, 0.7), TOL_FD);
  }
  return check_report();
}
