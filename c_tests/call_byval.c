/* call_byval.c: a noinline callee taking a large struct (5 doubles, 40
 * bytes) by value: the C ABI passes it as a `byval` pointer to a copy. The
 * callee has external linkage so clang keeps its byval signature. The
 * struct is built from active inputs in the caller.
 *   use(b, k) = b0 b1 k + sin b2 + b3 b4
 *   f(x) = use({x0, x1^2, x2, x0 + x1, exp x2}, x1)
 *        = x0 x1^3 + sin x2 + (x0 + x1) exp x2
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

typedef struct {
  double p[5];
} Big;

__attribute__((noinline)) double call_byval_use(Big b, double k) {
  return b.p[0] * b.p[1] * k + sin(b.p[2]) + b.p[3] * b.p[4];
}
static double f(double *x) {
  Big b;
  b.p[0] = x[0];
  b.p[1] = x[1] * x[1];
  b.p[2] = x[2];
  b.p[3] = x[0] + x[1];
  b.p[4] = exp(x[2]);
  return call_byval_use(b, x[1]);
}
static void grad(const double *x, double *g) {
  double a = x[0], b = x[1], c = x[2], e = exp(c);
  g[0] = b * b * b + e;
  g[1] = 3.0 * a * b * b + e;
  g[2] = cos(c) + (a + b) * e;
}

#ifdef NO_AD
static void emul(double *x, double *dx) {
  double g[3];
  grad(x, g);
  for (int k = 0; k < 3; k++)
    dx[k] += g[k];
}
#endif

int main(void) {
  const double pts[2][3] = {{0.9, -1.4, 0.3}, {-0.6, 0.8, -1.1}};
  for (int p = 0; p < 2; p++) {
    double x[3], dx[3] = {0}, g[3];
    for (int k = 0; k < 3; k++)
      x[k] = pts[p][k];
    grad(x, g);
    check_at("f point %d", p);
#ifdef NO_AD
    emul(x, dx);
#else
    __enzyme_autodiff_v((void *)f, enzyme_dup, x, dx);
#endif
    for (int k = 0; k < 3; k++) {
      check_close_i("dx vs analytic", k, dx[k], g[k], TOL_AD);
      check_close_i("dx vs FD", k, dx[k], fdp(f, pts[p], 3, k), TOL_FD);
    }
  }
  return check_report();
}
