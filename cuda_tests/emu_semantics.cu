// Not a derivative test: checks the CPU SIMT emulator itself (and the
// retargeting of ids, barriers and atomics) with the same flow as the other
// kernels. 3D grids and blocks, early exit before a barrier, barrier
// reductions, shared memory per block, atomics.
#include "enz_cuda.h"

extern "C" __global__ void ids(int *out) {
  int t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  int b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  int nt = blockDim.x * blockDim.y * blockDim.z;
  int g = b * nt + t;
  out[4 * g + 0] = t;
  out[4 * g + 1] = b;
  out[4 * g + 2] = nt * gridDim.x * gridDim.y * gridDim.z;
  out[4 * g + 3] = warpSize;
}

// Threads with tid >= live return at once; the others meet at barriers
// (exited threads count as arrived, as on the hardware). A shared array
// reverses each block's values; thread 0 of each block also reports the
// barrier reductions.
extern "C" __global__ void exits_and_barriers(const int *in, int *out, int *red, int live) {
  __shared__ int s[256];
  int t = threadIdx.x;
  if (t >= live)
    return;
  int g = blockIdx.x * blockDim.x + t;
  s[t] = in[g];
  __syncthreads();
  int v = s[live - 1 - t];
  __syncthreads();
  s[t] = v * 2;
  __syncthreads();
  out[g] = s[t] + 1;
  int c = __syncthreads_count(v % 3 == 0);
  int a = __syncthreads_and(v >= 0);
  int o = __syncthreads_or(v == 7);
  if (t == 0) {
    red[3 * blockIdx.x + 0] = c;
    red[3 * blockIdx.x + 1] = a;
    red[3 * blockIdx.x + 2] = o;
  }
}

extern "C" __global__ void atomics(float *fsum, double *dsum, int *isum, unsigned *hist) {
  int t = threadIdx.x;
  atomicAdd(fsum, 1.0f);
  atomicAdd(dsum, 0.5);
  atomicAdd(isum, t);
  __threadfence();
  atomicAdd(&hist[t % 8], 1u);
}
