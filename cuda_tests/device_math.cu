// The device math of enz_cuda.h (no libdevice on this toolchain), primal and
// derivative: each thread evaluates a dozen functions at its x (float and
// double versions), and the gradient kernel gets sum_k w_k f_k'(x). The
// derivatives flow through the range reductions and polynomials; the 2^k
// scale factors, built from integer bits, must stay inactive.
#include "enz_cuda.h"

#define K 12

template <typename T> __device__ void math_body(const T *x, T *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  T v = x[i]; // v > 0
  T *o = y + K * i;
  o[0] = sqrt(v);
  o[1] = exp(v - T(2));
  o[2] = log(v);
  o[3] = sin(T(3) * v);
  o[4] = cos(T(3) * v);
  o[5] = tanh(v - T(2));
  o[6] = pow(v, T(1.5));
  o[7] = fabs(v - T(2));
  o[8] = fmin(v, T(1)) + fmax(v, T(3));
  o[9] = fma(v, v, T(1));
  o[10] = T(1) / (T(1) + exp(-v)); // sigmoid
  o[11] = exp(T(-40) * v) + log(T(1e-20) * v); // tiny results, large logs
}

// The hand-written derivative: sum_k seed_k f_k'(v).
template <typename T> __device__ T math_deriv(T v, const T *s) {
  T e = exp(-v), sg = T(1) / (T(1) + e), th = tanh(v - T(2));
  return s[0] * T(0.5) / sqrt(v) + s[1] * exp(v - T(2)) + s[2] / v + s[3] * T(3) * cos(T(3) * v) -
         s[4] * T(3) * sin(T(3) * v) + s[5] * (T(1) - th * th) + s[6] * T(1.5) * sqrt(v) +
         s[7] * (v > T(2) ? T(1) : T(-1)) + s[8] * ((v < T(1) ? T(1) : T(0)) + (v > T(3) ? T(1) : T(0))) +
         s[9] * T(2) * v + s[10] * sg * (T(1) - sg) + s[11] * (T(-40) * exp(T(-40) * v) + T(1) / v);
}

__device__ void math_f_body(const float *x, float *y, int n) { math_body<float>(x, y, n); }
__device__ void math_d_body(const double *x, double *y, int n) { math_body<double>(x, y, n); }

extern "C" __global__ void math_f_primal(const float *x, float *y, int n) { math_f_body(x, y, n); }
extern "C" __global__ void math_d_primal(const double *x, double *y, int n) { math_d_body(x, y, n); }

// dy holds the seeds (consumed); dx is accumulated into.
extern "C" __global__ void math_f_grad(const float *x, float *dx, float *y, float *dy, int n) {
#ifndef NO_AD
  __enzyme_autodiff((void *)math_f_body, enzyme_dup, x, dx, enzyme_dup, y, dy, n);
#else
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  math_body<float>(x, y, n);
  if (i >= n)
    return;
  dx[i] += math_deriv<float>(x[i], dy + K * i);
  for (int k = 0; k < K; k++)
    dy[K * i + k] = 0.0f;
#endif
}
extern "C" __global__ void math_d_grad(const double *x, double *dx, double *y, double *dy, int n) {
#ifndef NO_AD
  __enzyme_autodiff((void *)math_d_body, enzyme_dup, x, dx, enzyme_dup, y, dy, n);
#else
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  math_body<double>(x, y, n);
  if (i >= n)
    return;
  dx[i] += math_deriv<double>(x[i], dy + K * i);
  for (int k = 0; k < K; k++)
    dy[K * i + k] = 0.0;
#endif
}
