// Inputs of ir_checks.rs `gpu_*`: three kernels whose reverse sweeps need
// the three ways of accumulating an adjoint into shadow memory on a GPU.
// Launch any of them with n threads or more; the extra threads of the last
// block do nothing.
#include "enz_cuda.h"

// Thread-private: thread i touches only x[i] and y[i], so dx[i] and dy[i]
// are each updated by one thread only, with plain loads and stores.
__device__ void square_body(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = x[i] * x[i] + y[i];
}

extern "C" __global__ void square_grad(const float *x, float *dx, float *y, float *dy, int n) {
  __enzyme_autodiff((void *)square_body, enzyme_dup, x, dx, enzyme_dup, y, dy, n);
}

// Block-uniform: every thread reads the scalar a[0], so every thread adds
// to da[0]. Each thread sums its share into a register; the block reduces
// the sums through shared memory after a barrier and one thread issues one
// atomic per block.
__device__ void scale_body(const float *a, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n)
    y[i] = a[0] * x[i];
}

extern "C" __global__ void scale_grad(const float *a, float *da, const float *x, float *y,
                                      float *dy, int n) {
  __enzyme_autodiff((void *)scale_body, enzyme_dup, a, da, enzyme_const, x, enzyme_dup, y, dy, n);
}

// Aliasing (XSBench-like lookup): thread i reads tab[idx[i]], a
// data-dependent entry that many threads may share, so dtab must be
// updated with atomics.
__device__ void lookup_body(const double *tab, const int *idx, const double *w, double *out,
                            int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    double t = tab[idx[i]];
    out[i] = w[i] * t * t;
  }
}

extern "C" __global__ void lookup_grad(const double *tab, double *dtab, const int *idx,
                                       const double *w, double *out, double *dout, int n) {
  __enzyme_autodiff((void *)lookup_body, enzyme_dup, tab, dtab, enzyme_const, idx, enzyme_const,
                    w, enzyme_dup, out, dout, n);
}
