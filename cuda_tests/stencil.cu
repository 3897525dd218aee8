// A 1D stencil (radius 2, periodic) through a shared-memory tile with a
// halo: each thread loads its element into the tile, the first R threads
// also load the halo on both sides, a barrier, then every thread combines
// its neighbours from the tile, nonlinearly. In reverse mode several
// threads' adjoints land on the same shadow tile element (so they must be
// atomic, or ordered), the barrier must be mirrored between those
// accumulations and the halo/element loads' adjoints, and the halo adjoints
// of neighbouring blocks land on the same d_in elements.
#include "enz_cuda.h"

#define BS 64
#define R 2

__device__ void stencil_body(const double *in, double *out, int n) {
  __shared__ double tile[BS + 2 * R];
  int t = threadIdx.x;
  int g = blockIdx.x * BS + t; // n is a multiple of BS
  tile[t + R] = in[g];
  if (t < R) {
    tile[t] = in[(g - R + n) % n];
    tile[t + BS + R] = in[(g + BS) % n];
  }
  __syncthreads();
  const double *c = &tile[t + R];
  double lin = 0.5 * c[0] + 0.2 * (c[-1] + c[1]) + 0.05 * (c[-2] + c[2]);
  out[g] = lin + 0.25 * c[0] * c[1] - 0.1 * c[-2] * c[-1] * c[2];
}

extern "C" __global__ void stencil_primal(const double *in, double *out, int n) {
  stencil_body(in, out, n);
}

// d_out holds the seed (it is consumed: zero on exit); d_in is accumulated
// into.
extern "C" __global__ void stencil_grad(const double *in, double *d_in, double *out, double *d_out,
                                        int n) {
#ifndef NO_AD
  __enzyme_autodiff((void *)stencil_body, enzyme_dup, in, d_in, enzyme_dup, out, d_out, n);
#else
  __shared__ double tile[BS + 2 * R];
  __shared__ double d_tile[BS + 2 * R];
  int t = threadIdx.x;
  int g = blockIdx.x * BS + t;
  // zero the shadow tile, forward sweep
  d_tile[t + R] = 0.0;
  if (t < R) {
    d_tile[t] = 0.0;
    d_tile[t + BS + R] = 0.0;
  }
  tile[t + R] = in[g];
  if (t < R) {
    tile[t] = in[(g - R + n) % n];
    tile[t + BS + R] = in[(g + BS) % n];
  }
  __syncthreads();
  const double *c = &tile[t + R];
  double lin = 0.5 * c[0] + 0.2 * (c[-1] + c[1]) + 0.05 * (c[-2] + c[2]);
  out[g] = lin + 0.25 * c[0] * c[1] - 0.1 * c[-2] * c[-1] * c[2];
  // reverse sweep
  double d = d_out[g];
  d_out[g] = 0.0;
  double *dc = &d_tile[t + R];
  atomicAdd(&dc[0], d * (0.5 + 0.25 * c[1]));
  atomicAdd(&dc[1], d * (0.2 + 0.25 * c[0]));
  atomicAdd(&dc[-1], d * (0.2 - 0.1 * c[-2] * c[2]));
  atomicAdd(&dc[-2], d * (0.05 - 0.1 * c[-1] * c[2]));
  atomicAdd(&dc[2], d * (0.05 - 0.1 * c[-2] * c[-1]));
  __syncthreads();
  atomicAdd(&d_in[g], d_tile[t + R]);
  if (t < R) {
    atomicAdd(&d_in[(g - R + n) % n], d_tile[t]);
    atomicAdd(&d_in[(g + BS) % n], d_tile[t + BS + R]);
  }
#endif
}
