// Host driver for hmlstm.cu on the CPU SIMT emulator: every entry of the
// four gradients against the analytic derivatives and against central
// differences of the primal kernel, all entries of one input at once (c[i]
// depends on element i of the inputs alone: one perturbed launch each way
// per input, each c[i] differenced); a sample against central differences
// of the loss; d_c consumed (zero on exit: c is overwritten).
#include "check.h"
#include "emu.h"

void hmlstm_primal(const float *c_prev, const float *f, const float *ig, const float *g,
                   const float *z_prev, const float *z_below, float *c, int rows, int cols);
void hmlstm_grad(const float *c_prev, float *d_c_prev, const float *f, float *d_f, const float *ig,
                 float *d_ig, const float *g, float *d_g, const float *z_prev,
                 const float *z_below, float *c, float *d_c, int rows, int cols);

#define ROWS 16
#define COLS 24
#define N (ROWS * COLS)
/* hmlstm_grid_host.c sets a smaller grid */
#ifdef HMLSTM_BLOCK
#define BLOCK HMLSTM_BLOCK
#define GRID HMLSTM_GRID
#else
#define BLOCK 128
#define GRID ((N + BLOCK - 1) / BLOCK)
#endif

/* inputs 0..3: c_prev, f, i, g */
static float in_0[4][N], in[4][N], d_in[4][N], z_prev[COLS], z_below[COLS], w[N];
static float c[N], d_c[N];

static void run_primal(void *a) {
  (void)a;
  hmlstm_primal(in[0], in[1], in[2], in[3], z_prev, z_below, c, ROWS, COLS);
}
static void run_grad(void *a) {
  (void)a;
  hmlstm_grad(in[0], d_in[0], in[1], d_in[1], in[2], d_in[2], in[3], d_in[3], z_prev, z_below, c,
              d_c, ROWS, COLS);
}

static double loss(void) {
  memcpy(in, in_0, sizeof in);
  emu_launch(emu_dim3_of(GRID, 1, 1), emu_dim3_of(BLOCK, 1, 1), run_primal, NULL);
  double l = 0;
  for (int i = 0; i < N; i++)
    l += (double)w[i] * c[i];
  return l;
}

/* Central differences of every entry of input k at once:
 * fd[i] = w[i] * d c[i] / d in[k][i], step h * max(1, |in[k][i]|). */
static void fd_every(int k, double h, double *fd) {
  static float saved[N], c_up[N];
  static double up[N], dn[N];
  memcpy(saved, in_0[k], sizeof saved);
  for (int i = 0; i < N; i++) {
    double step = h * (fabs((double)saved[i]) > 1 ? fabs((double)saved[i]) : 1);
    in_0[k][i] = (float)(saved[i] + step);
    up[i] = (double)in_0[k][i] - saved[i]; /* the step actually taken */
  }
  loss();
  memcpy(c_up, c, sizeof c_up);
  for (int i = 0; i < N; i++) {
    double step = h * (fabs((double)saved[i]) > 1 ? fabs((double)saved[i]) : 1);
    in_0[k][i] = (float)(saved[i] - step);
    dn[i] = (double)saved[i] - in_0[k][i];
  }
  loss();
  for (int i = 0; i < N; i++)
    fd[i] = (double)w[i] * ((double)c_up[i] - c[i]) / (up[i] + dn[i]);
  memcpy(in_0[k], saved, sizeof saved);
}

static double sig(double x) { return 1 / (1 + exp(-x)); }

int main(void) {
  uint64_t s = 6;
  for (int i = 0; i < N; i++) {
    in_0[0][i] = (float)check_uniform(&s, -1, 1);
    for (int k = 1; k < 4; k++)
      in_0[k][i] = (float)check_uniform(&s, -3, 3);
    w[i] = (float)check_uniform(&s, -1, 1);
  }
  for (int j = 0; j < COLS; j++) { /* every (z_prev, z_below) combination */
    z_prev[j] = (float)(j % 4 == 3);
    z_below[j] = (float)(j % 2);
  }
  loss();
  static const char *names[4] = {"d_c_prev", "d_f", "d_i", "d_g"};
  double want[4][N];
  for (int i = 0; i < N; i++) {
    int col = i % COLS;
    double cp = in_0[0][i], f = in_0[1][i], ig = in_0[2][i], g = in_0[3][i], out;
    double sf = sig(f), si = sig(ig), tg = tanh(g), d = w[i];
    for (int k = 0; k < 4; k++)
      want[k][i] = 0;
    if (z_prev[col] == 0 && z_below[col] == 1) {
      out = sf * cp + si * tg;
      want[0][i] = d * sf;
      want[1][i] = d * cp * sf * (1 - sf);
    } else if (z_prev[col] == 0) {
      out = cp;
      want[0][i] = d;
    } else {
      out = si * tg;
    }
    if (!(z_prev[col] == 0 && z_below[col] == 0)) {
      want[2][i] = d * tg * si * (1 - si);
      want[3][i] = d * si * (1 - tg * tg);
    }
    check_close("c (primal)", i, c[i], out, 1e-5, 1e-6);
  }

  memcpy(in, in_0, sizeof in);
  memset(d_in, 0, sizeof d_in);
  memset(c, 0, sizeof c);
  memcpy(d_c, w, sizeof d_c);
  emu_launch(emu_dim3_of(GRID, 1, 1), emu_dim3_of(BLOCK, 1, 1), run_grad, NULL);

  for (int k = 0; k < 4; k++)
    for (int i = 0; i < N; i++)
      check_close(names[k], i, d_in[k][i], want[k][i], 1e-4, 1e-6);
  for (int i = 0; i < N; i++)
    check_close("d_c after grad (consumed)", i, d_c[i], 0, 0, 0);
  for (int k = 0; k < 4; k++) {
    static double fd[N];
    fd_every(k, 1e-2, fd);
    for (int i = 0; i < N; i++)
      check_close(names[k], i, d_in[k][i], fd[i], 2e-2, 2e-3);
  }
  for (int k = 0; k < 4; k++)
    for (int j = 0; j < check_sample_count(N, 12); j++) {
      int i = check_sample(N, 12, j);
      check_close(names[k], i, d_in[k][i], CHECK_FD(&in_0[k][i], 1e-2, loss), 2e-2, 2e-3);
    }
  return check_report();
}
