// rev_output_pointer.c: a function that ends by writing its result
// through an output pointer, `*out = s`, which the compiler cannot tell
// from its input. The store is made at the end of the reverse sweep
// (analysis/deferred_stores.rs), so the loads of x need not be cached
// for fear of it; the gradient must be right both when `out` is separate
// and when it points into x itself (then the reverse sweep must see x as
// it was before the store, and x[k] ends up holding s).
//
// Checked: every entry of dx against the analytic gradient and central
// differences, for out separate and for out = &x[K]; x[K] and *out after
// the call hold the primal result.
#include <math.h>
#include <stdio.h>
#include "enzyme.h"
#include "check.h"

#define N 12
#define K 5

/* s = sum_t sum_i x[i] * x[(i + t) % N] * w_t, t < 3, then *out = s. */
void energy(double *x, double *out, int n) {
  double s = 0;
  for (int t = 0; t < 3; t++)
    for (int i = 0; i < n; i++)
      s += x[i] * x[(i + t) % n] * (1.0 + 0.5 * t);
  *out = s;
}

static double value(const double *x) {
  double c[N], out;
  for (int i = 0; i < N; i++)
    c[i] = x[i];
  energy(c, &out, N);
  return out;
}

/* d s / d x_j = sum_t w_t (x[(j + t) % N] + x[(j - t + N) % N]). */
static double grad(const double *x, int j) {
  double g = 0;
  for (int t = 0; t < 3; t++)
    g += (1.0 + 0.5 * t) * (x[(j + t) % N] + x[(j - t + N) % N]);
  return g;
}

static double fd(const double *x, int j) {
  double p[N];
  for (int i = 0; i < N; i++)
    p[i] = x[i];
  double h = FD_REL * (1.0 + fabs(x[j]));
  p[j] = x[j] + h;
  double up = value(p), step = p[j];
  p[j] = x[j] - h;
  step -= p[j];
  return (up - value(p)) / step;
}

void __enzyme_autodiff_v(void *, ...);

int main(void) {
  double x0[N];
  for (int i = 0; i < N; i++)
    x0[i] = 0.7 * sin(1.1 * i + 0.4);
  double s0 = value(x0);
  /* out separate from x */
  {
    double x[N], dx[N] = {0}, out = 0, dout = 1.0;
    for (int i = 0; i < N; i++)
      x[i] = x0[i];
#ifdef NO_AD
    for (int j = 0; j < N; j++)
      dx[j] = grad(x0, j);
    energy(x, &out, N);
#else
    __enzyme_autodiff_v((void *)energy, enzyme_dup, x, dx, enzyme_dup, &out, &dout,
                        enzyme_const, N);
#endif
    check_close("separate: out", out, s0, TOL_AD);
    for (int j = 0; j < N; j++) {
      check_close_i("separate: dx vs analytic", j, dx[j], grad(x0, j), TOL_AD);
      check_close_i("separate: dx vs FD", j, dx[j], fd(x0, j), TOL_FD);
    }
  }
  /* out = &x[K]: the store overwrites an input after every read of it */
  {
    double x[N], dx[N] = {0};
    for (int i = 0; i < N; i++)
      x[i] = x0[i];
    dx[K] = 1.0; /* the seed of *out, which is x[K] */
#ifdef NO_AD
    double seed = dx[K];
    dx[K] = 0;
    for (int j = 0; j < N; j++)
      dx[j] += seed * grad(x0, j);
    energy(x, &x[K], N);
#else
    __enzyme_autodiff_v((void *)energy, enzyme_dup, x, dx, enzyme_dup, &x[K], &dx[K],
                        enzyme_const, N);
#endif
    check_close("aliased: x[K] holds s", x[K], s0, TOL_AD);
    for (int j = 0; j < N; j++) {
      if (j != K)
        check_close_i("aliased: x unchanged", j, x[j], x0[j], 0.0);
      check_close_i("aliased: dx vs analytic", j, dx[j], grad(x0, j), TOL_AD);
      check_close_i("aliased: dx vs FD", j, dx[j], fd(x0, j), TOL_FD);
    }
  }
  return check_report();
}
