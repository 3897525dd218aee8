// thread_local_scratch.c: a kernel that writes its partial results into a
// thread-local scratch buffer and copies them out (as the matrixmultiply
// crate behind ndarray's `dot` does for a partial output block through its
// thread-local MASK_BUF, reached through `llvm.threadlocal.address`). The
// scratch holds derivatives between the kernel and the copy, so it needs a
// shadow: a thread-local shadow global, reached the same way. Before, the
// address had no shadow and the gradient was refused ("cannot build a
// shadow for this pointer"). The kernel runs twice, on overlapping inputs,
// so the second run overwrites what the first left in the scratch.
//
// Checked: every entry of dx against the analytic gradient and against
// central differences.
#include <math.h>
#include <stdio.h>
#include "enzyme.h"
#include "check.h"

#define N 5

static _Thread_local double scratch[8];

__attribute__((noinline)) static void block(const double *x, int n, double *out) {
  for (int i = 0; i < n; i++)
    scratch[i] = x[i] * x[i] + sin(x[i]);
  for (int i = 0; i < n; i++)
    out[i] = scratch[i] * (i + 1);
}

double f(const double *x) {
  double a[N], b[N], s = 0;
  block(x, N, a);
  block(x + 1, N - 1, b);
  for (int i = 0; i < N; i++)
    s += a[i] * a[i];
  for (int i = 0; i < N - 1; i++)
    s += 0.5 * b[i];
  return s;
}

/* d/dx[k]: a[i] = w_i (x_i^2 + sin x_i), w_i = i + 1, contributes
 * 2 a[k] w_k (2 x_k + cos x_k); b[i] = w_i g(x_{i+1}) contributes
 * 0.5 w_{k-1} g'(x_k) for k >= 1. */
static double analytic(const double *x, int k) {
  double g = 2 * x[k] + cos(x[k]);
  double a = (k + 1) * (x[k] * x[k] + sin(x[k]));
  double d = 2 * a * (k + 1) * g;
  if (k >= 1)
    d += 0.5 * k * g;
  return d;
}

static double f_v(const double *v) { return f(v); }

int main(void) {
  double x[N] = {0.3, -0.7, 1.1, 0.45, -0.2}, dx[N] = {0};
#ifdef NO_AD
  for (int k = 0; k < N; k++)
    dx[k] = analytic(x, k);
#else
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx);
#endif
  for (int k = 0; k < N; k++) {
    check_close_i("dx vs analytic", k, dx[k], analytic(x, k), TOL_AD);
    check_close_i("dx vs FD", k, dx[k], fdn(f_v, x, N, k), TOL_FD);
  }
  return check_report();
}
