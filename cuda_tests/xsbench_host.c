// Host driver for xsbench.cu on the CPU SIMT emulator: every entry of d_xs
// and d_conc against a hand-written adjoint (the same search and
// interpolation on the host) and against central differences of the loss
// (the primal kernel, 2 launches an entry); d_out consumed (zero on exit:
// out is overwritten).
#include "check.h"
#include "emu.h"

void xs_primal(const double *egrid, const double *xs, const int *mat_nuc, const double *conc,
               const double *energy, const int *mat, double *out, int nlookups);
void xs_grad(const double *egrid, const double *xs, double *d_xs, const int *mat_nuc,
             const double *conc, double *d_conc, const double *energy, const int *mat,
             double *out, double *d_out, int nlookups);

#define NNUC 6
#define NGRID 32 /* as in xsbench.cu */
#define NPM 4
#define NMAT 3
#define NL 300 /* lookups */
#define BLOCK 64
#define GRID ((NL + BLOCK - 1) / BLOCK)

static double egrid[NNUC * NGRID], xs_0[NNUC * NGRID], conc_0[NMAT * NPM];
static double energy[NL], w[NL];
static int mat_nuc[NMAT * NPM], mat[NL];
static double xs[NNUC * NGRID], conc[NMAT * NPM], out[NL];
static double d_xs[NNUC * NGRID], d_conc[NMAT * NPM], d_out[NL];

static void run_primal(void *a) {
  (void)a;
  xs_primal(egrid, xs, mat_nuc, conc, energy, mat, out, NL);
}
static void run_grad(void *a) {
  (void)a;
  xs_grad(egrid, xs, d_xs, mat_nuc, conc, d_conc, energy, mat, out, d_out, NL);
}

static double loss(void) {
  memcpy(xs, xs_0, sizeof xs);
  memcpy(conc, conc_0, sizeof conc);
  emu_launch(emu_dim3_of(GRID, 1, 1), emu_dim3_of(BLOCK, 1, 1), run_primal, NULL);
  double l = 0;
  for (int i = 0; i < NL; i++)
    l += w[i] * out[i];
  return l;
}

/* The reference: same search and interpolation, on the host. */
static double lookup(int i, double *d_xs_ref, double *d_conc_ref) {
  double macro = 0;
  for (int k = 0; k < NPM; k++) {
    int nuc = mat_nuc[mat[i] * NPM + k];
    const double *eg = egrid + nuc * NGRID;
    int lo = 0;
    while (lo + 2 < NGRID && eg[lo + 1] <= energy[i])
      lo++;
    double t = (energy[i] - eg[lo]) / (eg[lo + 1] - eg[lo]);
    double micro = xs_0[nuc * NGRID + lo] * (1 - t) + xs_0[nuc * NGRID + lo + 1] * t;
    double cm = conc_0[mat[i] * NPM + k];
    macro += cm * micro;
    d_conc_ref[mat[i] * NPM + k] += w[i] * micro;
    d_xs_ref[nuc * NGRID + lo] += w[i] * cm * (1 - t);
    d_xs_ref[nuc * NGRID + lo + 1] += w[i] * cm * t;
  }
  return macro;
}

int main(void) {
  uint64_t s = 7;
  for (int n = 0; n < NNUC; n++) {
    double e = 0;
    for (int j = 0; j < NGRID; j++) {
      e += check_uniform(&s, 0.01, 0.06); /* sorted energies in (0, ~1.1) */
      egrid[n * NGRID + j] = e;
      xs_0[n * NGRID + j] = check_uniform(&s, 0.5, 5);
    }
  }
  for (int m = 0; m < NMAT; m++)
    for (int k = 0; k < NPM; k++) {
      mat_nuc[m * NPM + k] = (m + 2 * k) % NNUC;
      conc_0[m * NPM + k] = check_uniform(&s, 0.1, 1);
    }
  for (int i = 0; i < NL; i++) {
    /* inside every grid: between the largest first point and the smallest last one */
    energy[i] = check_uniform(&s, 0.07, 0.3);
    mat[i] = (int)check_uniform(&s, 0, NMAT);
    w[i] = check_uniform(&s, -1, 1);
  }
  loss();
  static double d_xs_ref[NNUC * NGRID], d_conc_ref[NMAT * NPM];
  for (int i = 0; i < NL; i++)
    check_close("out (primal)", i, out[i], lookup(i, d_xs_ref, d_conc_ref), 1e-12, 1e-14);

  memcpy(xs, xs_0, sizeof xs);
  memcpy(conc, conc_0, sizeof conc);
  memset(d_xs, 0, sizeof d_xs);
  memset(d_conc, 0, sizeof d_conc);
  memcpy(d_out, w, sizeof d_out);
  emu_launch(emu_dim3_of(GRID, 1, 1), emu_dim3_of(BLOCK, 1, 1), run_grad, NULL);

  for (int j = 0; j < NNUC * NGRID; j++)
    check_close("d_xs (analytic)", j, d_xs[j], d_xs_ref[j], 1e-10, 1e-12);
  for (int j = 0; j < NMAT * NPM; j++) {
    check_close("d_conc (analytic)", j, d_conc[j], d_conc_ref[j], 1e-10, 1e-12);
    check_close("d_conc (fd)", j, d_conc[j], CHECK_FD(&conc_0[j], 1e-6, loss), 1e-6, 1e-8);
  }
  for (int i = 0; i < NL; i++)
    check_close("d_out after grad (consumed)", i, d_out[i], 0, 0, 0);
  for (int k = 0; k < check_sample_count(NNUC * NGRID, NNUC * NGRID); k++) {
    int j = check_sample(NNUC * NGRID, NNUC * NGRID, k);
    check_close("d_xs (fd)", j, d_xs[j], CHECK_FD(&xs_0[j], 1e-6, loss), 1e-6, 1e-8);
  }
  return check_report();
}
