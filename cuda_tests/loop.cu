// A per-thread loop whose values the reverse sweep needs: each thread
// integrates v' = (k v - v^3) / (1 + v^2) for `steps` explicit steps (a
// runtime trip count), with k = p[i % 4] shared by many threads. Reverse
// mode must cache v for every iteration (thread-private caches, indexed by
// the loop counter) or recompute it, and accumulate the adjoints of the
// shared p atomically. Threads past n return at once.
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
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  double vs[64]; // the cache (steps <= 64 in the tests)
  double v = x[i];
  double k = p[i % 4];
  for (int s = 0; s < steps; s++) {
    vs[s] = v;
    v = v + 0.1 * (k * v - v * v * v) / (1.0 + v * v);
  }
  y[i] = v;
  double dv = dy[i], dk = 0.0;
  dy[i] = 0.0;
  for (int s = steps - 1; s >= 0; s--) {
    double u = vs[s], q = 1.0 + u * u, num = k * u - u * u * u;
    // v' = u + 0.1 num / q
    double dnum = (k - 3.0 * u * u) / q, dq = -num / (q * q) * 2.0 * u;
    dk += dv * 0.1 * u / q;
    dv = dv * (1.0 + 0.1 * (dnum + dq));
  }
  dx[i] += dv;
  atomicAdd(&dp[i % 4], dk);
#endif
}
