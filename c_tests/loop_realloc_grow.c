/* loop_realloc_grow.c: a push_back loop into a buffer that starts with
 * capacity 1 and doubles it with realloc when full (reallocs at sizes 1, 2,
 * 4, 8, 16, 32, ...), then a second loop reads the buffer back, including
 * entries written before the last realloc moved them:
 *   b_i = x_i^2 + sin(x_i)
 *   f(x, n) = sum_i w_i b_i + 0.1 sum_i b_i b_(n-1-i),   w_i = 1 + 0.01 i
 *   df/dx_i = (2 x_i + cos x_i) (w_i + 0.2 b_(n-1-i))
 * The shadow buffer must follow every realloc (old contents kept) and be
 * freed with it. n = 1, 37 and 64 (64: the last push fills the buffer
 * exactly, no realloc after it).
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include <stdlib.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

static double f(double *x, int n) {
  int cap = 1, len = 0;
  double *buf = (double *)malloc(sizeof(double));
  for (int i = 0; i < n; i++) {
    if (len == cap) {
      cap *= 2;
      buf = (double *)realloc(buf, (size_t)cap * sizeof(double));
    }
    buf[len++] = x[i] * x[i] + sin(x[i]);
  }
  double s = 0.0;
  for (int i = 0; i < len; i++)
    s += (1.0 + 0.01 * i) * buf[i] + 0.1 * buf[i] * buf[len - 1 - i];
  free(buf);
  return s;
}

static void grad(const double *x, int n, double *g) {
  for (int i = 0; i < n; i++) {
    double xj = x[n - 1 - i], bj = xj * xj + sin(xj);
    g[i] = (2.0 * x[i] + cos(x[i])) * (1.0 + 0.01 * i + 0.2 * bj);
  }
}

#ifdef NO_AD
static void emul(double *x, double *dx, int n) {
  double g[64];
  grad(x, n, g);
  for (int i = 0; i < n; i++)
    dx[i] += g[i];
}
#endif

int main(void) {
  const int ns[3] = {1, 37, 64};
  for (int t = 0; t < 3; t++) {
    int n = ns[t];
    double x[64], dx[64] = {0}, g[64], fd[64];
    for (int i = 0; i < n; i++)
      x[i] = 0.9 * sin(1.1 * i + 0.5) + 0.1;
    grad(x, n, g);
    check_at("f n=%d", n);
#ifdef NO_AD
    emul(x, dx, n);
#else
    __enzyme_autodiff_v((void *)f, enzyme_dup, x, dx, n);
#endif
    check_close_arr("dx vs analytic", dx, g, n, TOL_AD);
    for (int i = 0; i < n; i++)
      fd[i] = fdpn(f, x, n, i);
    check_close_arr("dx vs FD", dx, fd, n, TOL_FD);
  }
  return check_report();
}
