// Host driver for axpy.cu on the CPU SIMT emulator: every entry of dx, dy
// and da against the analytic gradient; every entry of dx and dy against
// central differences of the primal kernel too, all entries at once (y_out[i]
// depends on x[i] and y_in[i] alone: one perturbed launch each way per
// input array, each y_out[i] differenced), and da and a sample of dx, dy
// against central differences of the loss.
#include "check.h"
#include "emu.h"

void axpy_primal(const float *a, const float *x, float *y, int n);
void axpy_grad(const float *a, float *da, const float *x, float *dx, float *y, float *dy, int n);

#define N 1000
#define BLOCK 128
#define GRID ((N + BLOCK - 1) / BLOCK)

static float a_in[1], x_in[N], y_in[N], w[N]; /* inputs and loss weights */
static float a[1], x[N], y[N];          /* working copies */
static float da[1], dx[N], dy[N];

struct args {
  const float *a, *x;
  float *y, *da, *dx, *dy;
};
static void run_primal(void *p) {
  struct args *r = p;
  axpy_primal(r->a, r->x, r->y, N);
}
static void run_grad(void *p) {
  struct args *r = p;
  axpy_grad(r->a, r->da, r->x, r->dx, r->y, r->dy, N);
}

static void reset(void) {
  memcpy(a, a_in, sizeof a);
  memcpy(x, x_in, sizeof x);
  memcpy(y, y_in, sizeof y);
}

/* loss = sum_i w_i * y_out_i, y_out from the primal kernel. */
static double loss(void) {
  reset();
  struct args r = {a, x, y, 0, 0, 0};
  emu_launch(emu_dim3_of(GRID, 1, 1), emu_dim3_of(BLOCK, 1, 1), run_primal, &r);
  double l = 0;
  for (int i = 0; i < N; i++)
    l += (double)w[i] * y[i];
  return l;
}

/* Central differences of every entry of p (x_in or y_in) at once:
 * fd[i] = w[i] * d y_out[i] / d p[i], step h * max(1, |p[i]|). */
static void fd_every(float *p, double h, double *fd) {
  static float saved[N], y_up[N];
  static double up[N], dn[N];
  memcpy(saved, p, sizeof saved);
  for (int i = 0; i < N; i++) {
    double step = h * (fabs((double)saved[i]) > 1 ? fabs((double)saved[i]) : 1);
    p[i] = (float)(saved[i] + step);
    up[i] = (double)p[i] - saved[i]; /* the step actually taken */
  }
  loss();
  memcpy(y_up, y, sizeof y_up);
  for (int i = 0; i < N; i++) {
    double step = h * (fabs((double)saved[i]) > 1 ? fabs((double)saved[i]) : 1);
    p[i] = (float)(saved[i] - step);
    dn[i] = (double)saved[i] - p[i];
  }
  loss();
  for (int i = 0; i < N; i++)
    fd[i] = (double)w[i] * ((double)y_up[i] - y[i]) / (up[i] + dn[i]);
  memcpy(p, saved, sizeof saved);
}

int main(void) {
  uint64_t s = 1;
  a_in[0] = (float)check_uniform(&s, 0.5, 1.5);
  for (int i = 0; i < N; i++) {
    x_in[i] = (float)check_uniform(&s, -1, 1);
    y_in[i] = (float)check_uniform(&s, -1, 1);
    w[i] = (float)check_uniform(&s, -1, 1);
  }
  double l0 = loss();
  float y_primal[N];
  memcpy(y_primal, y, sizeof y);

  reset();
  da[0] = 0;
  memset(dx, 0, sizeof dx);
  memcpy(dy, w, sizeof dy);
  struct args r = {a, x, y, da, dx, dy};
  emu_launch(emu_dim3_of(GRID, 1, 1), emu_dim3_of(BLOCK, 1, 1), run_grad, &r);

  // The gradient kernel also runs the primal.
  for (int i = 0; i < N; i++)
    check_close("y after grad", i, y[i], y_primal[i], 1e-6, 1e-6);
  // Analytic: da = sum w_i x_i, dx_i = a w_i, dy_in_i = w_i.
  double da_exact = 0;
  for (int i = 0; i < N; i++)
    da_exact += (double)w[i] * x_in[i];
  check_close("da (analytic)", 0, da[0], da_exact, 1e-4, 1e-4);
  for (int i = 0; i < N; i++) {
    check_close("dx (analytic)", i, dx[i], (double)a_in[0] * w[i], 1e-5, 1e-6);
    check_close("dy (analytic)", i, dy[i], w[i], 1e-6, 1e-7);
  }
  // Finite differences of the primal on the emulator.
  check_close("da (fd)", 0, da[0], CHECK_FD(&a_in[0], 1e-2, loss), 1e-2, 1e-2);
  for (int k = 0; k < check_sample_count(N, 40); k++) {
    int i = check_sample(N, 40, k);
    check_close("dx (fd)", i, dx[i], CHECK_FD(&x_in[i], 1e-2, loss), 2e-2, 2e-3);
    check_close("dy (fd)", i, dy[i], CHECK_FD(&y_in[i], 1e-2, loss), 2e-2, 2e-3);
  }
  static double fd[N];
  fd_every(x_in, 1e-2, fd);
  for (int i = 0; i < N; i++)
    check_close("dx (fd, every entry)", i, dx[i], fd[i], 2e-2, 2e-3);
  fd_every(y_in, 1e-2, fd);
  for (int i = 0; i < N; i++)
    check_close("dy (fd, every entry)", i, dy[i], fd[i], 2e-2, 2e-3);
  (void)l0;
  return check_report();
}
