/* mem_norm2.c: Euclidean norm of a double[4] read through a dup pointer:
 * sqrt(x0^2 + x1^2 + x2^2 + x3^2); gradient x / |x| in the shadow.
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

static double norm2(double *x) {
  return sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2] + x[3] * x[3]);
}

#ifdef NO_AD
static void emul_norm2(double *x, double *dx) {
  double n = norm2(x);
  for (int k = 0; k < 4; k++)
    dx[k] += x[k] / n;
}
#endif

int main(void) {
  const double pts[2][4] = {{0.5, -1.25, 2.0, 3.5}, {-3.1, 0.2, 1.7, -0.6}};
  for (int p = 0; p < 2; p++) {
    double x[4], dx[4] = {0}, dx2[4] = {0};
    for (int k = 0; k < 4; k++)
      x[k] = pts[p][k];
    double n = sqrt(x[0] * x[0] + x[1] * x[1] + x[2] * x[2] + x[3] * x[3]);
    check_at("norm2 enzyme_dup point %d", p);
#ifdef NO_AD
    emul_norm2(x, dx);
#else
    __enzyme_autodiff_v((void *)norm2, enzyme_dup, x, dx);
#endif
    for (int k = 0; k < 4; k++) {
      check_close_i("dx vs analytic", k, dx[k], x[k] / n, TOL_AD);
      check_close_i("dx vs FD", k, dx[k], fdp(norm2, pts[p], 4, k), TOL_FD);
    }
    check_at("norm2 default dup point %d", p);
#ifdef NO_AD
    emul_norm2(x, dx2);
#else
    __enzyme_autodiff_v((void *)norm2, x, dx2);
#endif
    for (int k = 0; k < 4; k++)
      check_close_i("dx vs analytic", k, dx2[k], x[k] / n, TOL_AD);
  }
  return check_report();
}
