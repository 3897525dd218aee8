// A per-thread loop whose values the reverse sweep needs: each thread
// integrates v' = (k v - v^3) / (1 + v^2) for `steps` explicit steps (a
// runtime trip count: loop_host.c runs 1 to 100,000), with k = p[i % 4]
// shared by many threads. Reverse mode must cache v for every iteration
// (thread-private caches, indexed by the loop counter) or recompute it,
// and accumulate the adjoints of the shared p atomically. Threads past n
// return at once.
#include "enz_cuda.h"

__device__ void loop_body(const double *x, const double *p, double *y, int n, int steps) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  double v = x[i];
  double k = p[i % 4];
  for (int s = 0; s < steps; s++)
    v = v + 0.1 * (k * v - v * v * v) / (1.0 + v * v);
  y[i] = v;
}

extern "C" __global__ void loop_primal(const double *x, const double *p, double *y, int n,
                                       int steps) {
  loop_body(x, p, y, n, steps);
}

// dy holds the seed (consumed); dx and dp are accumulated into.
extern "C" __global__ void loop_grad(const double *x, double *dx, const double *p, double *dp,
                                     double *y, double *dy, int n, int steps) {
#ifndef NO_AD
  __enzyme_autodiff((void *)loop_body, enzyme_dup, x, dx, enzyme_dup, p, dp, enzyme_dup, y, dy, n,
                    steps);
#else
  // Forward mode (tangents of v with respect to x[i] and k), which needs
  // no cache for any number of steps.
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  double v = x[i], k = p[i % 4], tx = 1.0, tk = 0.0;
  for (int s = 0; s < steps; s++) {
    double q = 1.0 + v * v, num = k * v - v * v * v;
    // v' = v + 0.1 num / q
    double fv = 1.0 + 0.1 * ((k - 3.0 * v * v) / q - num * 2.0 * v / (q * q));
    tk = fv * tk + 0.1 * v / q;
    tx = fv * tx;
    v = v + 0.1 * (k * v - v * v * v) / (1.0 + v * v);
  }
  y[i] = v;
  double g = dy[i];
  dy[i] = 0.0;
  dx[i] += g * tx;
  atomicAdd(&dp[i % 4], g * tk);
#endif
}
