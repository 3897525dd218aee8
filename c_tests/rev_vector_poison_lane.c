/* rev_vector_poison_lane.c: vector code whose unused lanes are undefined.
 * `__builtin_shufflevector(v, v, 1, -1)` leaves lane 1 poison (as the SLP
 * vectoriser's `shufflevector %v, poison, <1, poison>` does); the product's
 * lane 1 is never used, so its adjoint lane is zero, but 0 * poison is
 * poison: the undefined lane must not reach an adjoint. Also an
 * insertelement into an undefined vector and a constant vector with an
 * undefined lane. Fuzzer find: NaN at -O2. */
#include "enzyme.h"
#include "check.h"
#include <math.h>

typedef double v2d __attribute__((vector_size(16)));

/* x0 * x1 + sin(x1) * x0; the products are stored as whole vectors into
 * scratch memory whose second lanes are never read. */
__attribute__((noinline)) static double f(const double *x) {
  v2d scratch[2];
  v2d v = {x[0], x[1]};
  v2d s = __builtin_shufflevector(v, v, 1, -1);
  scratch[0] = v * s;
  v2d w;
  w[0] = sin(x[1]);
  scratch[1] = w * __builtin_shufflevector(v, v, 0, -1);
  volatile int k = 0;
  return scratch[k][0] + scratch[k + 1][0];
}

static void df(const double *x, double *g) {
  g[0] = x[1] + sin(x[1]);
  g[1] = x[0] + cos(x[1]) * x[0];
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
