// An XSBench-like macroscopic cross-section lookup: each thread takes a
// particle energy E and a material, and for each nuclide of the material
// binary-searches the nuclide's energy grid, interpolates its microscopic
// cross section linearly, and accumulates concentration * micro. The
// indices are data-dependent (a search loop with a data-dependent trip
// count), and many threads read the same table entries, so in reverse mode
// the adjoints of the cross-section table and of the concentrations
// collide across threads and blocks: they must be accumulated atomically.
// Energy grids, energies and materials are inactive (enzyme_const).
#include "enz_cuda.h"

#define NGRID 32 // grid points per nuclide
#define NPM 4    // nuclides per material

__device__ void xs_body(const double *egrid, const double *xs, const int *mat_nuc,
                        const double *conc, const double *energy, const int *mat, double *out,
                        int nlookups) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= nlookups)
    return;
  double e = energy[i];
  int m = mat[i];
  double macro = 0.0;
  for (int k = 0; k < NPM; k++) {
    int nuc = mat_nuc[m * NPM + k];
    const double *eg = egrid + nuc * NGRID;
    int lo = 0, hi = NGRID - 1;
    while (hi - lo > 1) {
      int mid = (lo + hi) / 2;
      if (eg[mid] > e)
        hi = mid;
      else
        lo = mid;
    }
    double t = (e - eg[lo]) / (eg[lo + 1] - eg[lo]);
    const double *x = xs + nuc * NGRID;
    double micro = x[lo] + t * (x[lo + 1] - x[lo]);
    macro += conc[m * NPM + k] * micro;
  }
  out[i] = macro;
}

extern "C" __global__ void xs_primal(const double *egrid, const double *xs, const int *mat_nuc,
                                     const double *conc, const double *energy, const int *mat,
                                     double *out, int nlookups) {
  xs_body(egrid, xs, mat_nuc, conc, energy, mat, out, nlookups);
}

// d_out holds the seed (consumed); d_xs and d_conc are accumulated into.
extern "C" __global__ void xs_grad(const double *egrid, const double *xs, double *d_xs,
                                   const int *mat_nuc, const double *conc, double *d_conc,
                                   const double *energy, const int *mat, double *out,
                                   double *d_out, int nlookups) {
#ifndef NO_AD
  __enzyme_autodiff((void *)xs_body, enzyme_const, egrid, enzyme_dup, xs, d_xs, enzyme_const,
                    mat_nuc, enzyme_dup, conc, d_conc, enzyme_const, energy, enzyme_const, mat,
                    enzyme_dup, out, d_out, nlookups);
#else
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= nlookups)
    return;
  double e = energy[i];
  int m = mat[i];
  double macro = 0.0;
  double d = d_out[i];
  for (int k = 0; k < NPM; k++) {
    int nuc = mat_nuc[m * NPM + k];
    const double *eg = egrid + nuc * NGRID;
    int lo = 0, hi = NGRID - 1;
    while (hi - lo > 1) {
      int mid = (lo + hi) / 2;
      if (eg[mid] > e)
        hi = mid;
      else
        lo = mid;
    }
    double t = (e - eg[lo]) / (eg[lo + 1] - eg[lo]);
    const double *x = xs + nuc * NGRID;
    double micro = x[lo] + t * (x[lo + 1] - x[lo]);
    double cm = conc[m * NPM + k];
    macro += cm * micro;
    atomicAdd(&d_conc[m * NPM + k], d * micro);
    atomicAdd(&d_xs[nuc * NGRID + lo], d * cm * (1.0 - t));
    atomicAdd(&d_xs[nuc * NGRID + lo + 1], d * cm * t);
  }
  out[i] = macro;
  d_out[i] = 0.0;
#endif
}
