/* loop_insertion_sort.c: insertion sort (a while loop with a data-dependent
 * trip count inside a for loop, shifting elements through memory), then a
 * weighted sum. With the sorting permutation a_j = x_(perm j):
 *   sorted_sum(x, w, n): sorts a malloc'd copy, returns sum_j w_j a_j;
 *     d/dx_i = w_(rank i)   (the weights, permuted back)
 *   sort_inplace(x, w, n): sorts the dup array x itself, returns
 *     sum_j w_j x_j^2 (after sorting); d/dx_i = 2 x_i w_(rank i), w.r.t. the
 *     values before the call; afterwards x is sorted.
 * w is enzyme_const. n = 30; inputs: scrambled, ascending (the inner loop
 * never runs), descending (it runs i times). Values >= 0.009 apart.
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

static void isort(double *a, int n) {
  for (int i = 1; i < n; i++) {
    double key = a[i];
    int j = i;
    while (j > 0 && a[j - 1] > key) {
      a[j] = a[j - 1];
      j--;
    }
    a[j] = key;
  }
}

static double sorted_sum(double *x, double *w, int n) {
  double *a = (double *)malloc((size_t)n * sizeof(double));
  for (int i = 0; i < n; i++)
    a[i] = x[i];
  isort(a, n);
  double s = 0.0;
  for (int j = 0; j < n; j++)
    s += w[j] * a[j];
  free(a);
  return s;
}

static double sort_inplace(double *x, double *w, int n) {
  isort(x, n);
  double s = 0.0;
  for (int j = 0; j < n; j++)
    s += w[j] * x[j] * x[j];
  return s;
}

static double *g_w;
static double sorted_sum_x(double *x, int n) { return sorted_sum(x, g_w, n); }
static double sort_inplace_x(double *x, int n) { return sort_inplace(x, g_w, n); }

/* rank[i] = position of x_i in sorted order (values distinct) */
static void ranks(const double *x, int n, int *rank) {
  for (int i = 0; i < n; i++) {
    rank[i] = 0;
    for (int k = 0; k < n; k++)
      rank[i] += x[k] < x[i];
  }
}

#define N 30

#ifdef NO_AD
static void emul_sorted_sum(double *x, double *dx, double *w, int n) {
  int r[N];
  ranks(x, n, r);
  for (int i = 0; i < n; i++)
    dx[i] += w[r[i]];
}
static void emul_sort_inplace(double *x, double *dx, double *w, int n) {
  int r[N];
  double g[N];
  ranks(x, n, r);
  for (int i = 0; i < n; i++)
    g[i] = 2.0 * x[i] * w[r[i]];
  isort(x, n);
  for (int i = 0; i < n; i++)
    dx[i] = g[i]; /* the sorted x's shadow was 0: nothing else flows back */
}
#endif

int main(void) {
  double w[N];
  for (int j = 0; j < N; j++)
    w[j] = 1.0 + 0.5 * cos(0.9 * j) + 0.02 * j;
  g_w = w;
  for (int p = 0; p < 3; p++) {
    double x0[N], x[N], dx[N], want[N], fd[N], xs[N];
    int r[N];
    for (int i = 0; i < N; i++)
      x0[i] = 3.0 * sin(2.3 * i + 0.7) + 0.05 * i;
    if (p > 0) {
      isort(x0, N); /* ascending */
      if (p == 2)
        for (int i = 0; i < N / 2; i++) { /* descending */
          double t = x0[i];
          x0[i] = x0[N - 1 - i];
          x0[N - 1 - i] = t;
        }
    }
    ranks(x0, N, r);

    memcpy(x, x0, sizeof x);
    memset(dx, 0, sizeof dx);
    for (int i = 0; i < N; i++)
      want[i] = w[r[i]];
    check_at("sorted_sum input %d", p);
#ifdef NO_AD
    emul_sorted_sum(x, dx, w, N);
#else
    __enzyme_autodiff_v((void *)sorted_sum, enzyme_dup, x, dx, enzyme_const, w, N);
#endif
    check_close_arr("dx vs analytic", dx, want, N, TOL_AD);
    for (int i = 0; i < N; i++)
      fd[i] = fdpn(sorted_sum_x, x0, N, i);
    check_close_arr("dx vs FD", dx, fd, N, TOL_FD);
    check_close_arr("x unchanged", x, x0, N, 0.0);

    memcpy(x, x0, sizeof x);
    memset(dx, 0, sizeof dx);
    for (int i = 0; i < N; i++)
      want[i] = 2.0 * x0[i] * w[r[i]];
    check_at("sort_inplace input %d", p);
#ifdef NO_AD
    emul_sort_inplace(x, dx, w, N);
#else
    __enzyme_autodiff_v((void *)sort_inplace, enzyme_dup, x, dx, enzyme_const, w, N);
#endif
    check_close_arr("dx vs analytic", dx, want, N, TOL_AD);
    for (int i = 0; i < N; i++)
      fd[i] = fdpn(sort_inplace_x, x0, N, i);
    check_close_arr("dx vs FD", dx, fd, N, TOL_FD);
    memcpy(xs, x0, sizeof xs);
    isort(xs, N);
    check_close_arr("x sorted", x, xs, N, 0.0);
  }
  return check_report();
}
