// Block sum reduction through shared memory: every thread squares its
// element into a shared array, a tree reduction with __syncthreads after
// each level sums the block, thread 0 writes the block's sum and adds it
// atomically to a global total. Reverse mode must mirror every barrier (the
// adjoints flow back down the tree through shadow shared memory), give the
// shared array a zeroed shadow, and differentiate the atomicAdd (the
// adjoint of `total` is read by thread 0 of every block). The last block is
// partial: its extra threads still take part in the barriers.
#include "enz_cuda.h"

#define BS 128

__device__ void reduce_body(const float *x, float *block_sums, float *total, int n) {
  __shared__ float s[BS];
  int t = threadIdx.x;
  int i = blockIdx.x * BS + t;
  float v = i < n ? x[i] : 0.0f;
  s[t] = v * v;
  __syncthreads();
  for (int stride = BS / 2; stride > 0; stride >>= 1) {
    if (t < stride)
      s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) {
    block_sums[blockIdx.x] = s[0];
    atomicAdd(total, s[0]);
  }
}

extern "C" __global__ void reduce_primal(const float *x, float *block_sums, float *total, int n) {
  reduce_body(x, block_sums, total, n);
}

// d_block_sums and d_total hold the seeds; dx is accumulated into.
extern "C" __global__ void reduce_grad(const float *x, float *dx, float *block_sums,
                                       float *d_block_sums, float *total, float *d_total, int n) {
#ifndef NO_AD
  __enzyme_autodiff((void *)reduce_body, enzyme_dup, x, dx, enzyme_dup, block_sums, d_block_sums,
                    enzyme_dup, total, d_total, n);
#else
  // Hand-written: forward sweep, then d s[t] = d_block_sum + d_total for
  // every t (a sum's adjoint is broadcast), then d x = 2 x d s.
  __shared__ float s[BS];
  int t = threadIdx.x;
  int i = blockIdx.x * BS + t;
  float v = i < n ? x[i] : 0.0f;
  s[t] = v * v;
  __syncthreads();
  for (int stride = BS / 2; stride > 0; stride >>= 1) {
    if (t < stride)
      s[t] += s[t + stride];
    __syncthreads();
  }
  if (t == 0) {
    block_sums[blockIdx.x] = s[0];
    atomicAdd(total, s[0]);
  }
  float seed = d_block_sums[blockIdx.x] + d_total[0];
  __syncthreads(); // everyone has read the seed before it is consumed
  if (t == 0)
    d_block_sums[blockIdx.x] = 0.0f; // a stored location's shadow is consumed
  if (i < n)
    dx[i] += 2.0f * v * seed;
#endif
}
