// The HM-LSTM cell update (Chung et al.; the benchmark of Revels et al.,
// "Dynamic automatic differentiation of GPU broadcast kernels"), elementwise
// over a rows x cols matrix with a data-dependent branch per element:
//
//   c = sigma(f) * c_prev + sigma(i) * tanh(g)   if z_prev = 0, z_below = 1 (UPDATE)
//   c = c_prev                                   if z_prev = 0, z_below = 0 (COPY)
//   c = sigma(i) * tanh(g)                       if z_prev = 1              (FLUSH)
//
// The boundary states z_prev, z_below are per-column vectors broadcast over
// the rows, and inactive (enzyme_const). Uses the device expf/tanhf of
// enz_cuda.h, so it also differentiates their range reductions.
// Each thread alone updates its element's adjoints: the gradient needs no
// atomic (the hand-written one has none).
// enz-no-extra-atomics
#include "enz_cuda.h"

static __device__ float sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }

__device__ void hmlstm_body(const float *c_prev, const float *f, const float *ig, const float *g,
                            const float *z_prev, const float *z_below, float *c, int rows,
                            int cols) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= rows * cols)
    return;
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

extern "C" __global__ void hmlstm_primal(const float *c_prev, const float *f, const float *ig,
                                         const float *g, const float *z_prev,
                                         const float *z_below, float *c, int rows, int cols) {
  hmlstm_body(c_prev, f, ig, g, z_prev, z_below, c, rows, cols);
}

// d_c holds the seed (consumed); the other shadows are accumulated into.
extern "C" __global__ void hmlstm_grad(const float *c_prev, float *d_c_prev, const float *f,
                                       float *d_f, const float *ig, float *d_ig, const float *g,
                                       float *d_g, const float *z_prev, const float *z_below,
                                       float *c, float *d_c, int rows, int cols) {
#ifndef NO_AD
  __enzyme_autodiff((void *)hmlstm_body, enzyme_dup, c_prev, d_c_prev, enzyme_dup, f, d_f,
                    enzyme_dup, ig, d_ig, enzyme_dup, g, d_g, enzyme_const, z_prev, enzyme_const,
                    z_below, enzyme_dup, c, d_c, rows, cols);
#else
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= rows * cols)
    return;
  int col = idx % cols;
  float zp = z_prev[col], zb = z_below[col];
  float d = d_c[idx];
  if (zp == 0.0f && zb == 0.0f) {
    c[idx] = c_prev[idx];
    d_c[idx] = 0.0f;
    d_c_prev[idx] += d;
    return;
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
  d_c[idx] = 0.0f;
  d_ig[idx] += d * tg * si * (1.0f - si);
  d_g[idx] += d * si * (1.0f - tg * tg);
#endif
}
