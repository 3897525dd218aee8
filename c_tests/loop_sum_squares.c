/* loop_sum_squares.c: the simplest reduction loop over a dup array, with the
 * trip count n an inactive int argument (n = 0, 1, 10, 37, 100: the odd
 * sizes leave remainders after clang's unrolling / vectorisation):
 *   f(x, n) = sum_i x_i^2               df/dx_i = 2 x_i
 *   g(x, w, n) = sum_i w_i x_i^2        w enzyme_const: dg/dx_i = 2 w_i x_i
 * The shadow is pre-filled with non-zero values: adjoints are accumulated
 * (+=) into it, so after the call dx = dx_before + gradient. With n = 0 the
 * loop runs no iteration and the shadow must stay untouched.
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include <stdlib.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

static double f(double *x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += x[i] * x[i];
  return s;
}

static double g(double *x, double *w, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += w[i] * x[i] * x[i];
  return s;
}

static double *g_w; /* the weights, for the FD of g */
static double g_of_x(double *x, int n) { return g(x, g_w, n); }

#ifdef NO_AD
static void emul_f(double *x, double *dx, int n) {
  for (int i = 0; i < n; i++)
    dx[i] += 2.0 * x[i];
}
static void emul_g(double *x, double *dx, double *w, int n) {
  for (int i = 0; i < n; i++)
    dx[i] += 2.0 * w[i] * x[i];
}
#endif

#define NMAX 100

int main(void) {
  const int sizes[5] = {0, 1, 10, 37, 100};
  double x[NMAX], dx[NMAX + 1], w[NMAX], want[NMAX + 1], fd[NMAX];
  for (int i = 0; i < NMAX; i++) {
    x[i] = sin(0.7 * i + 0.3) * (1.0 + 0.01 * i);
    w[i] = 0.5 + cos(1.3 * i) * 0.4;
  }
  g_w = w;
  for (int t = 0; t < 5; t++) {
    int n = sizes[t];
    /* f: shadow starts at 0.25 * i, one extra guard slot past the end */
    for (int i = 0; i <= n; i++)
      dx[i] = want[i] = 0.25 * i;
    for (int i = 0; i < n; i++)
      want[i] += 2.0 * x[i];
    check_at("f n=%d", n);
#ifdef NO_AD
    emul_f(x, dx, n);
#else
    __enzyme_autodiff_v((void *)f, enzyme_dup, x, dx, n);
#endif
    check_close_arr("dx vs analytic (accumulated)", dx, want, n + 1, TOL_AD);
    for (int i = 0; i < n; i++)
      fd[i] = 0.25 * i + fdpn(f, x, n, i);
    check_close_arr("dx vs FD", dx, fd, n, TOL_FD);

    /* g: w is enzyme_const, shadow starts at 0 */
    for (int i = 0; i <= n; i++)
      dx[i] = want[i] = 0.0;
    for (int i = 0; i < n; i++)
      want[i] = 2.0 * w[i] * x[i];
    check_at("g n=%d", n);
#ifdef NO_AD
    emul_g(x, dx, w, n);
#else
    __enzyme_autodiff_v((void *)g, enzyme_dup, x, dx, enzyme_const, w, enzyme_const, n);
#endif
    check_close_arr("dx vs analytic", dx, want, n + 1, TOL_AD);
    for (int i = 0; i < n; i++)
      fd[i] = fdpn(g_of_x, x, n, i);
    check_close_arr("dx vs FD", dx, fd, n, TOL_FD);
  }
  return check_report();
}
