/* Input of tests/explain.rs: one loop of each kind `--explain` tells
 * apart. Line numbers matter: the test looks for them. */
#include <math.h>
extern double __enzyme_autodiff(void *, ...);
extern double __enzyme_fwddiff(void *, ...);
extern int enzyme_dup, enzyme_const;

/* An elementwise chain: exp and log results are cached per iteration. */
void chain(const double *x, double *y, int n) {
  for (int i = 0; i < n; i++)
    y[i] = log(1.0 + exp(x[i]));
}

/* A sum of squares: nothing cached, x[i] is re-read. */
double sumsq(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += x[i] * x[i];
  return s;
}

/* A nest whose inner loop caches a running value; the inner trip count is
 * bounded before the nest (triangular). */
double nest(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < i; j++)
      s = sin(s + x[j] * x[i]);
  return s;
}

/* A loop whose trip count depends on the data: its caches grow. */
double until(const double *x, double eps) {
  double s = 1;
  int k = 0;
  while (s > eps)
    s = s * cos(x[k++ & 7]);
  return s;
}

void d_chain(const double *x, double *dx, double *y, double *dy, int n) {
  __enzyme_autodiff((void *)chain, enzyme_dup, x, dx, enzyme_dup, y, dy, enzyme_const, n);
}
void d_sumsq(const double *x, double *dx, int n) { __enzyme_autodiff((void *)sumsq, x, dx, n); }
void d_nest(const double *x, double *dx, int n) { __enzyme_autodiff((void *)nest, x, dx, n); }
void d_until(const double *x, double *dx, double eps) {
  __enzyme_autodiff((void *)until, x, dx, eps);
}
double t_sumsq(const double *x, const double *tx, int n) {
  return __enzyme_fwddiff((void *)sumsq, x, tx, n);
}
