/* mem_allocation_like_ptr_last.c: `__enzyme_allocation_like` with a
 * deallocator that takes the pointer last (Enzyme's "0,-1" spelling):
 *     void *__enzyme_allocation_like_pool[4] = {(void *)pool_alloc,
 *         (void *)1, (void *)"0,-1", (void *)pool_free};
 * pool_alloc(tag, bytes) allocates `bytes` (argument 1) behind a header
 * holding the tag, so libc free on its blocks would crash; pool_free(tag,
 * p) checks the tag and frees. enz-rs calls the deallocator through a
 * thunk taking the pointer first.
 *   f(x) = sum_k sin(t_k),  t = pool_alloc'd copy of x_k^2
 *   df/dx_k = 2 x_k cos(x_k^2)
 * Checked against the analytic derivative and central finite differences;
 * allocations and frees must balance, in the primal and the derivative. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "enzyme.h"
#include "check.h"

static long allocations, frees, bad_tags;

__attribute__((noinline)) void *pool_alloc(int tag, size_t bytes) {
  long *h = (long *)malloc(bytes + 16);
  h[0] = tag;
  allocations++;
  return h + 2;
}

__attribute__((noinline)) void pool_free(int tag, void *p) {
  long *h = (long *)p - 2;
  if (h[0] != tag)
    bad_tags++;
  frees++;
  free(h);
}

void *__enzyme_allocation_like_pool[4] = {(void *)pool_alloc, (void *)1, (void *)"0,-1",
                                          (void *)pool_free};

double f(const double *x, int n) {
  double *t = (double *)pool_alloc(3, n * sizeof(double));
  for (int k = 0; k < n; k++)
    t[k] = x[k] * x[k];
  double s = 0;
  for (int k = 0; k < n; k++)
    s += sin(t[k]);
  pool_free(3, t);
  return s;
}

#define N 4
static double f_v(const double *x) { return f(x, N); }

int main(void) {
  double x[N] = {0.3, -0.8, 1.1, 0.05}, dx[N] = {0};
#ifdef NO_AD
  for (int k = 0; k < N; k++)
    dx[k] = 2 * x[k] * cos(x[k] * x[k]);
#else
  __enzyme_autodiff((void *)f, x, dx, enzyme_const, N);
#endif
  for (int k = 0; k < N; k++) {
    check_at("k=%d", k);
    check_close("vs analytic", dx[k], 2 * x[k] * cos(x[k] * x[k]), TOL_AD);
    check_close("vs FD", dx[k], fdn(f_v, x, N, k), TOL_FD);
  }
  check_at("pool");
  check_close("allocations balance frees", (double)(allocations - frees), 0.0, 0);
  check_close("every free has its allocation's tag", (double)bad_tags, 0.0, 0);
  return check_report();
}
