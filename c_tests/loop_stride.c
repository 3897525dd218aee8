/* loop_stride.c: loops whose step is a run-time value (a stride argument,
 * as in a CUDA grid-stride loop or a strided view): their caches are
 * sized from a trip bound computed before the loop, (limit - start) /
 * stride rounded up; these fixtures check that bound at its edges.
 *   f(x, n, start, stride) = sum_{i = start, start + stride, ... < n} sin(x_i) x_i^2
 *   g(x, n, start, stride) = sum_{i = start; i <= n; i += stride} exp(x_i) / (1 + x_i^2)
 *                            (unsigned i, an inclusive limit)
 *   h: a 2-D nest, rows strided by a run-time value, columns by 1:
 *      sum_{r = r0, r0 + rs, ... < R} sum_{c < C} x_{rC+c} cos(x_{rC+c})
 * Each gradient against the analytic one and central differences, for
 * strides 1, 2, 3, 7, 40 and 100 (more than n), starts 0, 1, 5 and past
 * the end (no iteration).
 * Build with -DNO_AD to use the analytic gradients. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

#define N 40
#define R 8
#define C 5

__attribute__((noinline)) static double f(const double *x, int n, int start, int stride) {
  double s = 0.0;
  for (int i = start; i < n; i += stride)
    s += sin(x[i]) * x[i] * x[i];
  return s;
}

__attribute__((noinline)) static double g(const double *x, unsigned n, unsigned start,
                                          unsigned stride) {
  double s = 0.0;
  for (unsigned i = start; i <= n; i += stride)
    s += exp(x[i]) / (1.0 + x[i] * x[i]);
  return s;
}

__attribute__((noinline)) static double h(const double *x, int r0, int rs) {
  double s = 0.0;
  for (int r = r0; r < R; r += rs)
    for (int c = 0; c < C; c++)
      s += x[r * C + c] * cos(x[r * C + c]);
  return s;
}

static int g_start, g_stride, g_which;
static double eval(const double *x) {
  switch (g_which) {
  case 0:
    return f(x, N, g_start, g_stride);
  case 1:
    return g(x, N - 1, (unsigned)g_start, (unsigned)g_stride);
  default:
    return h(x, g_start, g_stride);
  }
}

/* Central difference of eval in x[i]. */
static double fd_at(const double *x0, int i) {
  double x[N];
  for (int k = 0; k < N; k++)
    x[k] = x0[k];
  double h = FD_REL * (1.0 + fabs(x0[i]));
  x[i] = x0[i] + h;
  double up = eval(x), hp = x[i];
  x[i] = x0[i] - h;
  double dn = eval(x), hm = x[i];
  return (up - dn) / (hp - hm);
}

int main(void) {
  static const int strides[6] = {1, 2, 3, 7, 40, 100};
  static const int starts[4] = {0, 1, 5, 45};
  double x[N], dx[N], want[N];
  for (int i = 0; i < N; i++)
    x[i] = 0.9 * sin(0.7 * i + 0.3);
  for (int which = 0; which < 3; which++)
    for (int a = 0; a < 4; a++)
      for (int b = 0; b < 6; b++) {
        int start = starts[a], stride = strides[b];
        if (which == 2 && start > R)
          start = R + 1;
        g_start = start, g_stride = stride, g_which = which;
        check_at("%c start=%d stride=%d", "fgh"[which], start, stride);
        for (int i = 0; i < N; i++)
          dx[i] = 0.0, want[i] = 0.0;
        if (which == 0)
          for (int i = start; i < N; i += stride)
            want[i] = cos(x[i]) * x[i] * x[i] + 2.0 * sin(x[i]) * x[i];
        else if (which == 1)
          for (int i = start; i <= N - 1; i += stride) {
            double q = 1.0 + x[i] * x[i];
            want[i] = exp(x[i]) / q - exp(x[i]) * 2.0 * x[i] / (q * q);
          }
        else
          for (int r = start; r < R; r += stride)
            for (int c = 0; c < C; c++) {
              double v = x[r * C + c];
              want[r * C + c] = cos(v) - v * sin(v);
            }
#ifdef NO_AD
        for (int i = 0; i < N; i++)
          dx[i] = want[i];
#else
        if (which == 0)
          __enzyme_autodiff_v((void *)f, enzyme_dup, x, dx, enzyme_const, N, enzyme_const, start,
                              enzyme_const, stride);
        else if (which == 1)
          __enzyme_autodiff_v((void *)g, enzyme_dup, x, dx, enzyme_const, (unsigned)(N - 1),
                              enzyme_const, (unsigned)start, enzyme_const, (unsigned)stride);
        else
          __enzyme_autodiff_v((void *)h, enzyme_dup, x, dx, enzyme_const, start, enzyme_const,
                              stride);
#endif
        for (int i = 0; i < N; i++) {
          check_close("dx vs analytic", dx[i], want[i], TOL_AD);
          if (i % 3 == 0 || want[i] != 0.0)
            check_close("dx vs FD", dx[i], fd_at(x, i), TOL_FD);
        }
      }
  return check_report();
}
