// loop_two_exits.c: a loop with two exits that both compare the counter
// with `!=`: an overflow guard (`i + 1 == 0`, never taken) and the real
// end (`i + 1 == n`). Each exit bounds the trip count only as the distance
// the counter must travel to reach its limit *in the direction it counts*
// (to 0 from 0 upwards is 2^64 steps, not 0): the per-iteration cache is
// sized from the least of them, n.
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
    s = s * cos(x[i]) + sin(s * x[i]);
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

void __enzyme_autodiff_v(void *, ...);

int main(void) {
  // 200 iterations: a cache sized for a handful would be overrun by far
  // (heap corruption that malloc's checks or the results catch).
  static double x[N], dx[N];
  for (int i = 0; i < N; i++)
    x[i] = 0.9 * sin(1.7 * i + 0.3);
#ifdef NO_AD
  for (int i = 0; i < N; i++) dx[i] = fd_i(x, i);
#else
  __enzyme_autodiff_v((void *)two_exits, enzyme_dup, x, dx, enzyme_const, (unsigned long)N);
#endif
  for (int i = N - 8; i < N; i++)
    check_close_i("dx vs FD", i, dx[i], fd_i(x, i), TOL_FD);
  return check_report();
}
