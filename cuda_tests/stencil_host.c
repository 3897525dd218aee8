// Host driver for stencil.cu on the CPU SIMT emulator: every entry of d_in
// against the analytic gradient and against central differences of the
// primal kernel (out[i] reads in[i-2..i+2] alone: the entries j with the
// same j mod 8 are perturbed at once, no output reading two of them, 2
// launches per colour, each out[i] differenced); a sample against central
// differences of the loss; d_out consumed (zero on exit: out is
// overwritten).
#include "check.h"
#include "emu.h"

void stencil_primal(const double *in, double *out, int n);
void stencil_grad(const double *in, double *d_in, double *out, double *d_out, int n);

#define BLOCK 64 /* BS in stencil.cu */
#define GRID 4
#define N (BLOCK * GRID)

static double in_0[N], w[N];
static double in[N], out[N], d_in[N], d_out[N];

struct args {
  const double *in;
  double *d_in, *out, *d_out;
};
static void run_primal(void *p) {
  struct args *r = p;
  stencil_primal(r->in, r->out, N);
}
static void run_grad(void *p) {
  struct args *r = p;
  stencil_grad(r->in, r->d_in, r->out, r->d_out, N);
}

static double loss(void) {
  memcpy(in, in_0, sizeof in);
  struct args r = {in, 0, out, 0};
  emu_launch(emu_dim3_of(GRID, 1, 1), emu_dim3_of(BLOCK, 1, 1), run_primal, &r);
  double l = 0;
  for (int i = 0; i < N; i++)
    l += w[i] * out[i];
  return l;
}

static double at(const double *a, int i) { return a[((i % N) + N) % N]; }

/* Central differences of every entry of in_0, COLORS colours, 2 launches
 * each: fd[j] = sum over the outputs i reading in[j] of w[i] d out[i] / d
 * in[j]. */
#define COLORS 8 /* > 2 R + 1, divides N */
static void fd_every(double h, double *fd) {
  static double saved[N], out_up[N], up[N], dn[N];
  memcpy(saved, in_0, sizeof saved);
  for (int c = 0; c < COLORS; c++) {
    for (int j = c; j < N; j += COLORS) {
      double step = h * (fabs(saved[j]) > 1 ? fabs(saved[j]) : 1);
      in_0[j] = saved[j] + step;
      up[j] = in_0[j] - saved[j]; /* the step actually taken */
    }
    loss();
    memcpy(out_up, out, sizeof out_up);
    for (int j = c; j < N; j += COLORS) {
      double step = h * (fabs(saved[j]) > 1 ? fabs(saved[j]) : 1);
      in_0[j] = saved[j] - step;
      dn[j] = saved[j] - in_0[j];
    }
    loss();
    for (int j = c; j < N; j += COLORS) {
      in_0[j] = saved[j];
      fd[j] = 0;
      for (int o = -2; o <= 2; o++) {
        int i = ((j + o) % N + N) % N;
        fd[j] += w[i] * (out_up[i] - out[i]) / (up[j] + dn[j]);
      }
    }
  }
}

int main(void) {
  uint64_t s = 3;
  for (int i = 0; i < N; i++) {
    in_0[i] = check_uniform(&s, -1, 1);
    w[i] = check_uniform(&s, -1, 1);
  }
  loss();
  for (int i = 0; i < N; i++) {
    double cm2 = at(in_0, i - 2), cm1 = at(in_0, i - 1), c0 = in_0[i], c1 = at(in_0, i + 1),
           c2 = at(in_0, i + 2);
    double want = 0.5 * c0 + 0.2 * (cm1 + c1) + 0.05 * (cm2 + c2) + 0.25 * c0 * c1 -
                  0.1 * cm2 * cm1 * c2;
    check_close("out (primal)", i, out[i], want, 1e-12, 1e-14);
  }
  double out_primal[N];
  memcpy(out_primal, out, sizeof out);

  memcpy(in, in_0, sizeof in);
  memset(out, 0, sizeof out);
  memset(d_in, 0, sizeof d_in);
  memcpy(d_out, w, sizeof d_out);
  struct args r = {in, d_in, out, d_out};
  emu_launch(emu_dim3_of(GRID, 1, 1), emu_dim3_of(BLOCK, 1, 1), run_grad, &r);

  for (int i = 0; i < N; i++)
    check_close("out after grad", i, out[i], out_primal[i], 1e-12, 1e-14);
  // Analytic: d_in[j] = sum over the 5 outputs i = j-2..j+2 reading j.
  for (int j = 0; j < N; j++) {
    double want = 0;
    for (int o = -2; o <= 2; o++) {
      int i = ((j - o) % N + N) % N; /* output i reads in[j] as its c[o] */
      double cm2 = at(in_0, i - 2), cm1 = at(in_0, i - 1), c0 = in_0[i], c1 = at(in_0, i + 1),
             c2 = at(in_0, i + 2);
      double p = o == 0    ? 0.5 + 0.25 * c1
                 : o == 1  ? 0.2 + 0.25 * c0
                 : o == -1 ? 0.2 - 0.1 * cm2 * c2
                 : o == -2 ? 0.05 - 0.1 * cm1 * c2
                           : 0.05 - 0.1 * cm2 * cm1;
      want += w[i] * p;
    }
    check_close("d_in (analytic)", j, d_in[j], want, 1e-10, 1e-12);
  }
  for (int i = 0; i < N; i++)
    check_close("d_out after grad (consumed)", i, d_out[i], 0, 0, 0);
  static double fd[N];
  fd_every(1e-6, fd);
  for (int j = 0; j < N; j++)
    check_close("d_in (fd, every entry)", j, d_in[j], fd[j], 1e-6, 1e-8);
  for (int k = 0; k < check_sample_count(N, 24); k++) {
    int j = check_sample(N, 24, k);
    check_close("d_in (fd)", j, d_in[j], CHECK_FD(&in_0[j], 1e-6, loss), 1e-6, 1e-8);
  }
  return check_report();
}
