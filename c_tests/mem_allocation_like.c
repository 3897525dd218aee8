/* mem_allocation_like.c: `__enzyme_allocation_like`, the plain-C
 * registration of a user allocator and its deallocator:
 *     void *__enzyme_allocation_like_x[4] = {(void *)my_alloc, (void *)0,
 *                                            (void *)"-1,1", (void *)my_free};
 * my_alloc(bytes, tag) allocates `bytes` (argument 0); my_free(p, tag) frees
 * it, called with the pointer (-1) and my_alloc's argument 1. The blocks
 * carry a header, so libc free on them would crash: the shadows of my_alloc
 * blocks are made with my_alloc (zeroed) and freed with my_free, and the
 * allocator counts calls (allocations and frees must balance, the tag must
 * match).
 *   f(x) = sum_k sin(t_k),  t = my_alloc'd copy of x_k^2   (x: 4 doubles)
 *   df/dx_k = 2 x_k cos(x_k^2)
 * Reverse, forward and split mode, against the analytic derivative and central
 * differences. Build with -DNO_AD to replace the AD calls by the analytic
 * derivative. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "enzyme.h"
#include "check.h"

static long allocations, frees;

/* a block with a 16-byte header {tag, bytes} in front */
__attribute__((noinline)) void *my_alloc(size_t bytes, int tag) {
  long *h = (long *)malloc(bytes + 16);
  h[0] = tag;
  h[1] = (long)bytes;
  allocations++;
  return h + 2;
}
__attribute__((noinline)) void my_free(void *p, int tag) {
  long *h = (long *)p - 2;
  if (h[0] != tag) {
    printf("FAIL: my_free of a block with tag %ld, expected %d\n", h[0], tag);
    abort();
  }
  frees++;
  free(h);
}
void *__enzyme_allocation_like_pool[4] = {(void *)my_alloc, (void *)0,
                                          (void *)"-1,1", (void *)my_free};

#define N 4
__attribute__((noinline)) double f(const double *x, int n) {
  double *t = (double *)my_alloc(n * sizeof(double), 7);
  for (int k = 0; k < n; k++)
    t[k] = x[k] * x[k];
  double s = 0.0;
  for (int k = 0; k < n; k++)
    s += sin(t[k]);
  my_free(t, 7);
  return s;
}
static double f_v(const double *x) { return f(x, N); }

int main(void) {
  const double pts[2][N] = {{0.3, -0.8, 1.1, 0.5}, {-1.2, 0.7, 0.2, 1.4}};
  for (int i = 0; i < 2; i++) {
    double x[N], dx[N] = {0}, tx[N] = {0}, sx[N] = {0};
    for (int k = 0; k < N; k++)
      x[k] = pts[i][k];
    long a0 = allocations, f0 = frees;
#ifdef NO_AD
    for (int k = 0; k < N; k++)
      dx[k] = 2.0 * x[k] * cos(x[k] * x[k]);
    double t = 2.0 * x[2] * cos(x[2] * x[2]);
    for (int k = 0; k < N; k++)
      sx[k] = 0.5 * dx[k];
    for (int r = 0; r < 6; r++)
      my_free(my_alloc(8, 7), 7);
#else
    __enzyme_autodiff((void *)f, x, dx, enzyme_const, N);
    tx[2] = 1.0;
    double t = __enzyme_fwddiff((void *)f, x, tx, enzyme_const, N);
    /* split mode: the shadow lives from the forward to the reverse call */
    void *tape = __enzyme_augmentfwd((void *)f, x, sx, enzyme_const, N);
    __enzyme_reverse((void *)f, x, sx, enzyme_const, N, 0.5, tape);
#endif
    /* each of the three derivatives: the primal block and its shadow */
    long ad_allocs = allocations - a0, ad_frees = frees - f0;
    check_at("point %d", i);
    for (int k = 0; k < N; k++) {
      check_close("dx[k]", dx[k], 2.0 * x[k] * cos(x[k] * x[k]), TOL_AD);
      check_close("dx[k] vs FD", dx[k], fdn(f_v, x, N, k), TOL_FD);
      check_close("split, dret 0.5", sx[k], x[k] * cos(x[k] * x[k]), TOL_AD);
    }
    check_close("forward d/dx2", t, 2.0 * x[2] * cos(x[2] * x[2]), TOL_AD);
    check_close("my_alloc calls in the derivatives", (double)ad_allocs, 6.0,
                0.0);
    check_close("my_free calls in the derivatives", (double)ad_frees, 6.0,
                0.0);
  }
  check_close("allocations balance frees", (double)(allocations - frees), 0.0,
              0.0);
  return check_report();
}
