/* call_untyped_helpers.c: helpers that move doubles through untyped
 * pointers (void * and a byte count, memcpy of a double * with no
 * access of its own that says what it holds). Inlined, the caller's
 * types tell what is copied; under --no-inline (the ::no-inline trials)
 * each helper is differentiated on its own, and the caller's type
 * analysis of the arguments seeds the helper's.
 *   v = (x0, 2 x1, 3 x2, 4 x3); swap v0 and v3; w = copy of v;
 *   f = 3 v0 + v3 v1 + sin(w2) w0 = 12 x3 + 2 x0 x1 + 4 x3 sin(3 x2)
 *   df/dx = (2 x1, 2 x0, 12 x3 cos(3 x2), 12 + 4 sin(3 x2))
 * Reverse and forward mode; checked against these derivatives and
 * central finite differences. */
#include <math.h>
#include <string.h>
#include "enzyme.h"
#include "check.h"

__attribute__((noinline)) static void swap_bytes(void *a, void *b, size_t n) {
  char t[64];
  memcpy(t, a, n);
  memcpy(a, b, n);
  memcpy(b, t, n);
}

__attribute__((noinline)) static void copy_doubles(double *d, const double *s, int n) {
  memcpy(d, s, n * sizeof(double));
}

double f(const double *x) {
  double v[4], w[4];
  for (int i = 0; i < 4; i++)
    v[i] = x[i] * (i + 1);
  swap_bytes(&v[0], &v[3], sizeof(double));
  copy_doubles(w, v, 4);
  return v[0] * 3 + v[3] * v[1] + sin(w[2]) * w[0];
}

int main(void) {
  const double pts[3][4] = {{0.3, -0.7, 1.1, 0.2}, {-1.2, 0.4, 0.9, -0.3}, {0.5, 1.5, -0.6, 0.8}};
  for (int p = 0; p < 3; p++) {
    const double *x = pts[p];
    double want[4] = {2 * x[1], 2 * x[0], 12 * x[3] * cos(3 * x[2]), 12 + 4 * sin(3 * x[2])};
    double d[4] = {0, 0, 0, 0};
    check_at("point %d", p);
#ifdef NO_AD
    memcpy(d, want, sizeof d);
#else
    __enzyme_autodiff((void *)f, x, d);
#endif
    for (int i = 0; i < 4; i++) {
      check_close("reverse vs analytic", d[i], want[i], TOL_AD);
      check_close("reverse vs FD", d[i], fdn(f, x, 4, i), TOL_FD);
      double t[4] = {0, 0, 0, 0}, tan;
      t[i] = 1;
#ifdef NO_AD
      tan = want[i];
#else
      tan = __enzyme_fwddiff((void *)f, x, t);
#endif
      check_close("forward vs analytic", tan, want[i], TOL_AD);
    }
  }
  return check_report();
}
