// A grid-stride loop, the usual way to write a CUDA kernel for any n: each
// thread handles i, i + stride, i + 2 stride, ... with stride = gridDim.x *
// blockDim.x, a step known only at run time. Its caches (on the thread's
// stack) are sized from a trip bound computed before the loop, (n - i0) /
// stride rounded up; a scalar parameter every thread reads (a) has its
// adjoint summed over all threads and iterations.
//   y[i] = a * sin(x[i]) * exp(x[i]) + y[i]
// Reverse mode here (the cached values: sin, exp, and the loads);
// gridstride_mixed.cu is the same loop in mixed mode.
// enz-args: --mode-per-loop reverse --gpu-thread-cache 8192
// (about 92 bytes a thread per iteration: scripts/gpu-check.sh's timed run
// gives each thread 64 iterations, more than the default 2048 bytes hold,
// and the loop writes y, so it cannot be recomputed)
// enz-no-extra-atomics (dx[i] has one thread; da: one atomicAdd per
// iteration in the hand-written gradient)
#include "enz_cuda.h"

#ifndef GRIDSTRIDE
#define GRIDSTRIDE(name) gridstride_##name
#endif

__device__ void GRIDSTRIDE(body)(const float *a, const float *x, float *y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    y[i] = a[0] * sinf(x[i]) * expf(x[i]) + y[i];
}

extern "C" __global__ void GRIDSTRIDE(primal)(const float *a, const float *x, float *y, int n) {
  GRIDSTRIDE(body)(a, x, y, n);
}

// dy holds the seed (d loss / d y_out), and d loss / d y_in on exit; da and
// dx are accumulated into.
extern "C" __global__ void GRIDSTRIDE(grad)(const float *a, float *da, const float *x, float *dx,
                                            float *y, float *dy, int n) {
#ifndef NO_AD
  __enzyme_autodiff((void *)GRIDSTRIDE(body), enzyme_dup, a, da, enzyme_dup, x, dx, enzyme_dup, y,
                    dy, n);
#else
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    float av = a[0], xv = x[i], s = sinf(xv), e = expf(xv);
    y[i] = av * s * e + y[i];
    float g = dy[i];
    dx[i] += av * g * (cosf(xv) * e + s * e);
    atomicAdd(da, s * e * g);
  }
#endif
}
