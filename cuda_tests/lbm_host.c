// Host driver for lbm.cu on the CPU SIMT emulator: every entry of d_fin
// (300) and d_omega against a hand-written adjoint of the step (computed
// here, cell by cell) and against central differences of the primal
// kernel (601 launches of 100 threads; cut down under ThreadSanitizer,
// check.h's check_max).
#include "check.h"
#include "emu.h"

void lbm_primal(const double *fin, double *fout, const double *omega, int n);
void lbm_grad(const double *fin, double *d_fin, double *fout, double *d_fout, const double *omega,
              double *d_omega, int n);

#define N 100
#define BLOCK 32
#define GRID ((N + BLOCK - 1) / BLOCK)

static double fin_0[3 * N], omega_0[1], w[3 * N];
static double fin[3 * N], fout[3 * N], omega[1], d_fin[3 * N], d_fout[3 * N], d_omega[1];

struct args {
  const double *fin, *omega;
  double *d_fin, *fout, *d_fout, *d_omega;
};
static void run_primal(void *a) {
  struct args *r = a;
  lbm_primal(r->fin, r->fout, r->omega, N);
}
static void run_grad(void *a) {
  struct args *r = a;
  lbm_grad(r->fin, r->d_fin, r->fout, r->d_fout, r->omega, r->d_omega, N);
}

static void reset(void) {
  memcpy(fin, fin_0, sizeof fin);
  omega[0] = omega_0[0];
  memset(fout, 0, sizeof fout);
}

static double loss(void) {
  reset();
  struct args r = {fin, omega, 0, fout, 0, 0};
  emu_launch(emu_dim3_of(GRID, 1, 1), emu_dim3_of(BLOCK, 1, 1), run_primal, &r);
  double l = 0;
  for (int i = 0; i < 3 * N; i++)
    l += w[i] * fout[i];
  return l;
}

/* The adjoint of one cell's stream-and-collide step, written by hand:
 * adds d loss / d fin into g and d loss / d omega into *gw, for the seed
 * d[q] = w[q * N + i]. */
static void cell_adjoint(int i, double *g, double *gw) {
  int im = i == 0 ? N - 1 : i - 1, ip = i == N - 1 ? 0 : i + 1;
  int at[3] = {i, N + im, 2 * N + ip}; /* where g0, g1, g2 come from */
  double g0 = fin_0[at[0]], g1 = fin_0[at[1]], g2 = fin_0[at[2]], om = omega_0[0];
  double rho = g0 + g1 + g2, u = (g1 - g2) / rho, usq = 1.5 * u * u;
  double e[3] = {(2.0 / 3.0) * rho * (1.0 - usq),
                 (1.0 / 6.0) * rho * (1.0 + 3.0 * u + 4.5 * u * u - usq),
                 (1.0 / 6.0) * rho * (1.0 - 3.0 * u + 4.5 * u * u - usq)};
  /* d e_q / d rho (at fixed u) and d e_q / d u (at fixed rho) */
  double er[3] = {e[0] / rho, e[1] / rho, e[2] / rho};
  double eu[3] = {(2.0 / 3.0) * rho * (-3.0 * u), (1.0 / 6.0) * rho * (3.0 + 6.0 * u),
                  (1.0 / 6.0) * rho * (-3.0 + 6.0 * u)};
  double gv[3] = {g0, g1, g2}, rbar = 0, ubar = 0;
  for (int q = 0; q < 3; q++) {
    double d = w[q * N + i]; /* fout_q = g_q - om (g_q - e_q) */
    *gw += d * (e[q] - gv[q]);
    g[at[q]] += (1.0 - om) * d;
    rbar += om * d * er[q];
    ubar += om * d * eu[q];
  }
  /* u = (g1 - g2) / rho, rho = g0 + g1 + g2 */
  rbar -= ubar * u / rho;
  g[at[0]] += rbar;
  g[at[1]] += rbar + ubar / rho;
  g[at[2]] += rbar - ubar / rho;
}

int main(void) {
  uint64_t s = 5;
  for (int i = 0; i < N; i++) { /* a density bump travelling right */
    double rho = 1.0 + 0.2 * check_uniform(&s, -1, 1), u = 0.1 * check_uniform(&s, -1, 1);
    fin_0[i] = rho * (2.0 / 3.0) * (1 - 1.5 * u * u);
    fin_0[N + i] = rho / 6.0 * (1 + 3 * u + 3 * u * u);
    fin_0[2 * N + i] = rho / 6.0 * (1 - 3 * u + 3 * u * u);
  }
  for (int i = 0; i < 3 * N; i++)
    w[i] = check_uniform(&s, -1, 1);
  omega_0[0] = 1.3;
  loss();
  double mass_in = 0, mass_out = 0;
  for (int i = 0; i < 3 * N; i++) {
    mass_in += fin_0[i];
    mass_out += fout[i];
  }
  check_close("mass is conserved (primal)", 0, mass_out, mass_in, 1e-12, 0);

  reset();
  memset(d_fin, 0, sizeof d_fin);
  memcpy(d_fout, w, sizeof d_fout);
  d_omega[0] = 0;
  struct args r = {fin, omega, d_fin, fout, d_fout, d_omega};
  emu_launch(emu_dim3_of(GRID, 1, 1), emu_dim3_of(BLOCK, 1, 1), run_grad, &r);

  static double want[3 * N];
  double want_omega = 0;
  for (int i = 0; i < N; i++)
    cell_adjoint(i, want, &want_omega);
  check_close("d_omega (hand-written adjoint)", 0, d_omega[0], want_omega, 1e-12, 1e-13);
  check_close("d_omega (fd)", 0, d_omega[0], CHECK_FD(&omega_0[0], 1e-6, loss), 1e-6, 1e-8);
  for (int i = 0; i < 3 * N; i++)
    check_close("d_fin (hand-written adjoint)", i, d_fin[i], want[i], 1e-12, 1e-13);
  for (int k = 0; k < check_sample_count(3 * N, 3 * N); k++) {
    int i = check_sample(3 * N, 3 * N, k);
    check_close("d_fin (fd)", i, d_fin[i], CHECK_FD(&fin_0[i], 1e-6, loss), 1e-6, 1e-8);
  }
  return check_report();
}
