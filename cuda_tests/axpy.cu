// axpy with a scalar `a` that every thread reads: y[i] = a * x[i] + y[i].
// The adjoint of `a` is a sum over all threads of all blocks: every thread
// accumulates into d_a, so the accumulation must be atomic (or a block
// reduction followed by one atomic per block). The last block is partial
// (n is not a multiple of the block size): its extra threads return early.
// d_x[i] is updated by thread i alone: no atomic but for d_a's (one per
// thread in the hand-written gradient, at most as many in enz-rs's).
// enz-no-extra-atomics
#include "enz_cuda.h"

__device__ void axpy_body(const float *a, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a[0] * x[i] + y[i];
}

extern "C" __global__ void axpy_primal(const float *a, const float *x, float *y, int n) {
  axpy_body(a, x, y, n);
}

// Reverse mode: dy holds the seed (d loss / d y_out) on entry and
// d loss / d y_in on exit; da and dx are accumulated into; y is updated as
// by the primal.
extern "C" __global__ void axpy_grad(const float *a, float *da, const float *x, float *dx,
                                     float *y, float *dy, int n) {
#ifndef NO_AD
  __enzyme_autodiff((void *)axpy_body, enzyme_dup, a, da, enzyme_dup, x, dx, enzyme_dup, y, dy,
                    n);
#else
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float av = a[0], xv = x[i];
    y[i] = av * xv + y[i];
    float g = dy[i];
    dx[i] += av * g;
    atomicAdd(da, xv * g);
    // d y_in = d y_out: dy[i] keeps its value.
  }
#endif
}
