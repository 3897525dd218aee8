/* An OpenMP worksharing loop: each thread's chunk runs from the lower to
 * the upper bound the runtime wrote (for (i = lb; i <= ub; i++), an i64
 * variable compared as an i32), so its caches are allocated once before
 * the loop, not grown (explain.rs). */
double __enzyme_autodiff(void *, ...);
extern int enzyme_dup, enzyme_const;
#include <math.h>

double elementwise(const double *x, int n) {
  double s = 0.0;
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < n; i++)
    s += sin(x[i]) * exp(-0.25 * x[i] * x[i]);
  return s;
}

void grad(const double *x, double *dx, int n) {
  __enzyme_autodiff((void *)elementwise, enzyme_dup, x, dx, enzyme_const, n);
}
