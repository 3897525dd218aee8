// One lattice-Boltzmann step, D1Q3 with BGK collision, periodic domain:
// populations f_q (q = 0 rest, 1 moving right, 2 moving left) stored as
// f[q * n + i]; each cell pulls f_1 from its left neighbour and f_2 from its
// right one (streaming), computes density and velocity, the equilibrium
// f_q^eq = w_q rho (1 + 3 c_q u + 4.5 c_q^2 u^2 - 1.5 u^2), and relaxes
// towards it with rate omega (a scalar every thread reads: its adjoint is
// a sum over all cells). Threads past n return at once.
#include "enz_cuda.h"

__device__ void lbm_body(const double *fin, double *fout, const double *omega, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  int im = i == 0 ? n - 1 : i - 1;
  int ip = i == n - 1 ? 0 : i + 1;
  double g0 = fin[i], g1 = fin[n + im], g2 = fin[2 * n + ip];
  double rho = g0 + g1 + g2;
  double u = (g1 - g2) / rho;
  double usq = 1.5 * u * u;
  double e0 = (2.0 / 3.0) * rho * (1.0 - usq);
  double e1 = (1.0 / 6.0) * rho * (1.0 + 3.0 * u + 4.5 * u * u - usq);
  double e2 = (1.0 / 6.0) * rho * (1.0 - 3.0 * u + 4.5 * u * u - usq);
  double w = omega[0];
  fout[i] = g0 - w * (g0 - e0);
  fout[n + i] = g1 - w * (g1 - e1);
  fout[2 * n + i] = g2 - w * (g2 - e2);
}

extern "C" __global__ void lbm_primal(const double *fin, double *fout, const double *omega, int n) {
  lbm_body(fin, fout, omega, n);
}

// d_fout holds the seed (consumed); d_fin and d_omega are accumulated into.
extern "C" __global__ void lbm_grad(const double *fin, double *d_fin, double *fout, double *d_fout,
                                    const double *omega, double *d_omega, int n) {
#ifndef NO_AD
  __enzyme_autodiff((void *)lbm_body, enzyme_dup, fin, d_fin, enzyme_dup, fout, d_fout, enzyme_dup,
                    omega, d_omega, n);
#else
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n)
    return;
  int im = i == 0 ? n - 1 : i - 1;
  int ip = i == n - 1 ? 0 : i + 1;
  double g[3] = {fin[i], fin[n + im], fin[2 * n + ip]};
  double rho = g[0] + g[1] + g[2];
  double u = (g[1] - g[2]) / rho;
  double usq = 1.5 * u * u;
  double e[3] = {(2.0 / 3.0) * rho * (1.0 - usq),
                 (1.0 / 6.0) * rho * (1.0 + 3.0 * u + 4.5 * u * u - usq),
                 (1.0 / 6.0) * rho * (1.0 - 3.0 * u + 4.5 * u * u - usq)};
  double w = omega[0];
  double d[3];
  for (int q = 0; q < 3; q++) {
    fout[q * n + i] = g[q] - w * (g[q] - e[q]);
    d[q] = d_fout[q * n + i];
    d_fout[q * n + i] = 0.0;
  }
  double dw = 0.0, dg[3], drho = 0.0, du = 0.0;
  // d e_q / d rho and d e_q / d u
  double er[3] = {(2.0 / 3.0) * (1.0 - usq), (1.0 / 6.0) * (1.0 + 3.0 * u + 3.0 * u * u),
                  (1.0 / 6.0) * (1.0 - 3.0 * u + 3.0 * u * u)};
  double eu[3] = {-2.0 * rho * u, 0.5 * rho + rho * u, -0.5 * rho + rho * u};
  for (int q = 0; q < 3; q++) {
    dw += d[q] * (e[q] - g[q]);
    dg[q] = (1.0 - w) * d[q];
    drho += w * d[q] * er[q];
    du += w * d[q] * eu[q];
  }
  dg[1] += du / rho;
  dg[2] -= du / rho;
  drho -= du * u / rho;
  for (int q = 0; q < 3; q++)
    dg[q] += drho;
  d_fin[i] += dg[0];      // each fin element is read by exactly one cell
  d_fin[n + im] += dg[1];
  d_fin[2 * n + ip] += dg[2];
  atomicAdd(d_omega, dw);
#endif
}
