// Host driver for loop.cu on the CPU SIMT emulator.
#include "check.h"
#include "emu.h"

void loop_primal(const double *x, const double *p, double *y, int n, int steps);
void loop_grad(const double *x, double *dx, const double *p, double *dp, double *y, double *dy,
               int n, int steps);

#define N 200
#define BLOCK 64
#define GRID ((N + BLOCK - 1) / BLOCK)
#define STEPS 20

static double x_0[N], p_0[4], w[N];
static double x[N], p[4], y[N], dx[N], dp[4], dy[N];

struct args {
  const double *x, *p;
  double *dx, *dp, *y, *dy;
};
static void run_primal(void *a) {
  struct args *r = a;
  loop_primal(r->x, r->p, r->y, N, STEPS);
}
static void run_grad(void *a) {
  struct args *r = a;
  loop_grad(r->x, r->dx, r->p, r->dp, r->y, r->dy, N, STEPS);
}

static void reset(void) {
  memcpy(x, x_0, sizeof x);
  memcpy(p, p_0, sizeof p);
  memset(y, 0, sizeof y);
}

static double loss(void) {
  reset();
  struct args r = {x, p, 0, 0, y, 0};
  emu_launch(emu_dim3_of(GRID, 1, 1), emu_dim3_of(BLOCK, 1, 1), run_primal, &r);
  double l = 0;
  for (int i = 0; i < N; i++)
    l += w[i] * y[i];
  return l;
}

int main(void) {
  uint64_t s = 4;
  for (int i = 0; i < N; i++) {
    x_0[i] = check_uniform(&s, -2, 2);
    w[i] = check_uniform(&s, -1, 1);
  }
  for (int j = 0; j < 4; j++)
    p_0[j] = check_uniform(&s, 0.5, 2);
  loss();
  for (int i = 0; i < N; i++) {
    double v = x_0[i], k = p_0[i % 4];
    for (int t = 0; t < STEPS; t++)
      v = v + 0.1 * (k * v - v * v * v) / (1.0 + v * v);
    check_close("y (primal)", i, y[i], v, 1e-12, 1e-14);
  }

  reset();
  memset(dx, 0, sizeof dx);
  memset(dp, 0, sizeof dp);
  memcpy(dy, w, sizeof dy);
  struct args r = {x, p, dx, dp, y, dy};
  emu_launch(emu_dim3_of(GRID, 1, 1), emu_dim3_of(BLOCK, 1, 1), run_grad, &r);

  for (int j = 0; j < 4; j++)
    check_close("dp (fd)", j, dp[j], CHECK_FD(&p_0[j], 1e-6, loss), 1e-6, 1e-8);
  for (int k = 0; k < check_sample_count(N, 24); k++) {
    int i = check_sample(N, 24, k);
    check_close("dx (fd)", i, dx[i], CHECK_FD(&x_0[i], 1e-6, loss), 1e-6, 1e-8);
  }
  return check_report();
}
