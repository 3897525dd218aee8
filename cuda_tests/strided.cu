// gridstride.cu's update written with a counter instead of a grid-stride
// index: thread gid handles the elements gid + k * stride, stride =
// gridDim.x * blockDim.x, for k = 0 .. ceil(n / stride) - 1 (the
// `x[gid + k * stride]` form). The index modulo the grid's size is gid, so
// dx[i] and dy[i] have one thread each: plain updates, no atomic; only the
// scalar a every thread reads needs one (block-reduced).
//   y[i] = a * sin(x[i]) * exp(x[i]) + y[i]
// enz-no-extra-atomics
#include "enz_cuda.h"

__device__ void strided_body(const float *a, const float *x, float *y, int n) {
  int stride = gridDim.x * blockDim.x;
  int gid = blockIdx.x * blockDim.x + threadIdx.x;
  int per = (n + stride - 1) / stride;
  for (int k = 0; k < per; k++) {
    int i = gid + k * stride;
    if (i < n)
      y[i] = a[0] * sinf(x[i]) * expf(x[i]) + y[i];
  }
}

extern "C" __global__ void strided_primal(const float *a, const float *x, float *y, int n) {
  strided_body(a, x, y, n);
}

extern "C" __global__ void strided_grad(const float *a, float *da, const float *x, float *dx,
                                        float *y, float *dy, int n) {
#ifndef NO_AD
  __enzyme_autodiff((void *)strided_body, enzyme_dup, a, da, enzyme_dup, x, dx, enzyme_dup, y, dy,
                    n);
#else
  int stride = gridDim.x * blockDim.x;
  int gid = blockIdx.x * blockDim.x + threadIdx.x;
  int per = (n + stride - 1) / stride;
  for (int k = 0; k < per; k++) {
    int i = gid + k * stride;
    if (i < n) {
      float av = a[0], xv = x[i], s = sinf(xv), e = expf(xv);
      y[i] = av * s * e + y[i];
      float g = dy[i];
      dx[i] += av * g * (cosf(xv) * e + s * e);
      atomicAdd(da, s * e * g);
    }
  }
#endif
}
