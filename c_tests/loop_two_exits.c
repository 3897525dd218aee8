// loop_two_exits.c: a loop with two exits that both compare the counter
// with `!=`: an overflow guard (`i + 1 == 0`, never taken) and the real
// end (`i + 1 == n`). Each exit bounds the trip count only as the distance
// the counter must travel to reach its limit *in the direction it counts*
// (to 0 from 0 upwards is 2^64 steps, not 0): the per-iteration cache is
// sized from the least of them, n.
//
// Checked: every entry of the gradient (200) against a hand-written
// reverse sweep and against central differences. The step
// s' = s cos(0.1 x) + 0.1 sin(s x) multiplies d s by about 1 (0.56 over
// all 200 steps), so every entry is between 0.03 and 0.06: none is lost
// in the tolerances (with s cos x + sin(s x) they were all below 1e-45,
// and a zero gradient passed).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "enzyme.h"
#include "check.h"

__attribute__((noinline)) static void overflow(void) {
  puts("overflow");
  exit(3);
}

double two_exits(const double *x, unsigned long n) {
  double s = 1.0;
  unsigned long i = 0;
  for (;;) {
    if (i + 1 == 0)
      overflow();
    s = s * cos(0.1 * x[i]) + 0.1 * sin(s * x[i]);
    if (i + 1 == n)
      break;
    i++;
  }
  return s;
}

#define N 200
/* Central difference of two_exits(., N) in x[i]. */
static double fd_i(const double *x, int i) {
  static double p[N];
  for (int k = 0; k < N; k++)
    p[k] = x[k];
  double h = FD_REL * (1.0 + fabs(x[i]));
  p[i] = x[i] + h;
  double up = two_exits(p, N), step = p[i];
  p[i] = x[i] - h;
  step -= p[i];
  return (up - two_exits(p, N)) / step;
}

/* The gradient by a hand-written reverse sweep: the forward sweep keeps
 * every s_i (s_0 = 1, s_{i+1} = s_i cos(0.1 x_i) + 0.1 sin(s_i x_i)), the
 * reverse sweep carries sbar = d s_N / d s_{i+1} back through
 *   d s_{i+1} / d x_i = -0.1 s_i sin(0.1 x_i) + 0.1 s_i cos(s_i x_i),
 *   d s_{i+1} / d s_i = cos(0.1 x_i) + 0.1 x_i cos(s_i x_i). */
static void reverse_sweep(const double *x, double *g) {
  static double s[N + 1];
  s[0] = 1.0;
  for (int i = 0; i < N; i++)
    s[i + 1] = s[i] * cos(0.1 * x[i]) + 0.1 * sin(s[i] * x[i]);
  double sbar = 1.0;
  for (int i = N - 1; i >= 0; i--) {
    double c = cos(s[i] * x[i]);
    g[i] = sbar * 0.1 * s[i] * (c - sin(0.1 * x[i]));
    sbar *= cos(0.1 * x[i]) + 0.1 * x[i] * c;
  }
}

void __enzyme_autodiff_v(void *, ...);

int main(void) {
  // 200 iterations: a cache sized for a handful would be overrun by far
  // (heap corruption that malloc's checks or the results catch).
  static double x[N], dx[N], want[N];
  for (int i = 0; i < N; i++)
    x[i] = 0.9 * sin(1.7 * i + 0.3);
#ifdef NO_AD
  reverse_sweep(x, dx);
#else
  __enzyme_autodiff_v((void *)two_exits, enzyme_dup, x, dx, enzyme_const, (unsigned long)N);
#endif
  // Every entry, against the reverse sweep and against central
  // differences (400 primal runs of 200 steps: cheap).
  reverse_sweep(x, want);
  double least = INFINITY;
  for (int i = 0; i < N; i++)
    least = fmin(least, fabs(want[i]));
  check_close("least |reference| >= 0.01 (no entry lost in the tolerances)",
              least >= 0.01, 1.0, 0.0);
  for (int i = 0; i < N; i++) {
    check_close_i("dx vs reverse sweep", i, dx[i], want[i], TOL_AD);
    check_close_i("dx vs FD", i, dx[i], fd_i(x, i), TOL_FD);
  }
  return check_report();
}
