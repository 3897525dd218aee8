/* mem_lifetime_reread.c: a local array whose lifetime ends before the
 * reverse sweep reads it. t[] is filled in a loop, t[0] is overwritten with
 * sin(x[1]), and the sum t[(i+1)%2] * t[i] reads both slots again. clang
 * brackets t with llvm.lifetime.start/end; the reverse sweep must not
 * re-read t after the primal's lifetime.end (the post-optimisation may
 * treat such memory as dead). Fuzzer find: -0.2891 expected, 0.0332 got. */
#include "enzyme.h"
#include "check.h"
#include <math.h>

__attribute__((noinline)) static double f(const double *x) {
  double t[2];
  for (int i = 0; i < 2; i++)
    t[i] = x[i] * x[0] + 0.5 * x[1];
  t[0] = sin(x[1]);
  double s = 0.0;
  for (int i = 0; i < 2; i++)
    s += t[(i + 1) % 2] * t[i];
  return s;
}

/* s = 2 * sin(x1) * (x1 * x0 + 0.5 * x1) */
static void df(const double *x, double *g) {
  double a = sin(x[1]), b = x[1] * x[0] + 0.5 * x[1];
  g[0] = 2.0 * a * x[1];
  g[1] = 2.0 * cos(x[1]) * b + 2.0 * a * (x[0] + 0.5);
}

int main(void) {
  const double pts[3][2] = {{0.7, -1.3}, {-0.4, 0.9}, {1.5, 2.2}};
  for (int p = 0; p < 3; p++) {
    double x[2] = {pts[p][0], pts[p][1]}, dx[2] = {0.0, 0.0}, g[2];
    check_at("x=(%g,%g)", x[0], x[1]);
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx);
    df(x, g);
    for (int i = 0; i < 2; i++) {
      check_close("d/dx_i vs analytic", dx[i], g[i], TOL_AD);
      check_close("d/dx_i vs FD", dx[i], fdn(f, x, 2, i), TOL_FD);
    }
  }
  return check_report();
}
