// The HM-LSTM cell update of hmlstm.cu with a loop in each thread: thread
// t updates the contiguous chunk of elements t * per .. t * per + per - 1
// of the rows x cols matrix (fewer threads than elements; the driver runs
// 96 threads over 384 elements). Differentiated in mixed mode (enz-rs
// --mode-per-loop mixed; the plugin route: ENZ_RS_MODE_PER_LOOP): the loop
// is elementwise, so each iteration's partials (1 output by 4 inputs) are
// computed by vector forward mode in the forward sweep, and the reverse
// sweep multiplies the seed into them; the data-dependent branch (UPDATE,
// COPY, FLUSH: every combination of z_prev, z_below) runs in forward mode.
// The loop's per-iteration cache, on the thread's stack, shrinks from about
// 320 bytes (reverse mode) to 28 (4 partials: loads of the same element in
// two branches share a lane, and bookkeeping).
//
//   c = sigma(f) * c_prev + sigma(i) * tanh(g)   if z_prev = 0, z_below = 1 (UPDATE)
//   c = c_prev                                   if z_prev = 0, z_below = 0 (COPY)
//   c = sigma(i) * tanh(g)                       if z_prev = 1              (FLUSH)
// enz-args: --mode-per-loop mixed --gpu-thread-cache 8192
// enz-no-extra-atomics (thread t owns elements t * per .. t * per + per - 1)
// (scripts/gpu-check.sh's timed run gives each thread 128 elements, about
// 3.5 KB of partials; the loop writes c, so it cannot be recomputed)
#include "enz_cuda.h"

// hmlstm_chunk_reverse.cu includes this file under another prefix.
#ifndef HMLSTM_CHUNK
#define HMLSTM_CHUNK(name) hmlstm_chunk_##name
#endif

static __device__ float sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }

__device__ void HMLSTM_CHUNK(body)(const float *c_prev, const float *f, const float *ig,
                                   const float *g, const float *z_prev, const float *z_below,
                                   float *c, int rows, int cols) {
  int per = (rows * cols + gridDim.x * blockDim.x - 1) / (gridDim.x * blockDim.x);
  int first = (blockIdx.x * blockDim.x + threadIdx.x) * per;
  for (int k = 0; k < per; k++) {
    int idx = first + k;
    if (idx >= rows * cols)
      break;
    int col = idx % cols;
    float zp = z_prev[col], zb = z_below[col];
    float out;
    if (zp == 0.0f) {
      if (zb == 1.0f)
        out = sigmoid(f[idx]) * c_prev[idx] + sigmoid(ig[idx]) * tanhf(g[idx]); // UPDATE
      else
        out = c_prev[idx]; // COPY
    } else {
      out = sigmoid(ig[idx]) * tanhf(g[idx]); // FLUSH
    }
    c[idx] = out;
  }
}

extern "C" __global__ void HMLSTM_CHUNK(primal)(const float *c_prev, const float *f,
                                                const float *ig, const float *g,
                                                const float *z_prev, const float *z_below,
                                                float *c, int rows, int cols) {
  HMLSTM_CHUNK(body)(c_prev, f, ig, g, z_prev, z_below, c, rows, cols);
}

// d_c holds the seed (consumed); the other shadows are accumulated into.
extern "C" __global__ void HMLSTM_CHUNK(grad)(const float *c_prev, float *d_c_prev,
                                              const float *f, float *d_f, const float *ig,
                                              float *d_ig, const float *g, float *d_g,
                                              const float *z_prev, const float *z_below, float *c,
                                              float *d_c, int rows, int cols) {
#ifndef NO_AD
  __enzyme_autodiff((void *)HMLSTM_CHUNK(body), enzyme_dup, c_prev, d_c_prev, enzyme_dup, f, d_f,
                    enzyme_dup, ig, d_ig, enzyme_dup, g, d_g, enzyme_const, z_prev, enzyme_const,
                    z_below, enzyme_dup, c, d_c, rows, cols);
#else
  int per = (rows * cols + gridDim.x * blockDim.x - 1) / (gridDim.x * blockDim.x);
  int first = (blockIdx.x * blockDim.x + threadIdx.x) * per;
  for (int k = 0; k < per && first + k < rows * cols; k++) {
    int idx = first + k;
    int col = idx % cols;
    float zp = z_prev[col], zb = z_below[col];
    float d = d_c[idx];
    d_c[idx] = 0.0f;
    if (zp == 0.0f && zb == 0.0f) {
      c[idx] = c_prev[idx];
      d_c_prev[idx] += d;
      continue;
    }
    float si = sigmoid(ig[idx]), tg = tanhf(g[idx]);
    float out = si * tg;
    if (zp == 0.0f) {
      float sf = sigmoid(f[idx]);
      out += sf * c_prev[idx];
      d_f[idx] += d * c_prev[idx] * sf * (1.0f - sf);
      d_c_prev[idx] += d * sf;
    }
    c[idx] = out;
    d_ig[idx] += d * tg * si * (1.0f - si);
    d_g[idx] += d * si * (1.0f - tg * tg);
  }
#endif
}
