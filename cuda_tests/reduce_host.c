// Host driver for reduce.cu on the CPU SIMT emulator: every entry of dx
// against the analytic gradient, a sample (24) against central differences
// of the loss (every entry would be 1,000 launches of 128 threads meeting
// at 8 barriers, about 20 ms each here); d_block_sums consumed (zero on
// exit: the block sums are overwritten) and d_total kept (total += ...).
#include "check.h"
#include "emu.h"

void reduce_primal(const float *x, float *block_sums, float *total, int n);
void reduce_grad(const float *x, float *dx, float *block_sums, float *d_block_sums, float *total,
                 float *d_total, int n);

#define N 500
#define BLOCK 128 /* BS in reduce.cu */
#define GRID ((N + BLOCK - 1) / BLOCK)

static float x_in[N], w_b[GRID], w_t;
static float x[N], sums[GRID], total[1];
static float dx[N], d_sums[GRID], d_total[1];

struct args {
  const float *x;
  float *dx, *sums, *d_sums, *total, *d_total;
};
static void run_primal(void *p) {
  struct args *r = p;
  reduce_primal(r->x, r->sums, r->total, N);
}
static void run_grad(void *p) {
  struct args *r = p;
  reduce_grad(r->x, r->dx, r->sums, r->d_sums, r->total, r->d_total, N);
}

static void reset(void) {
  memcpy(x, x_in, sizeof x);
  memset(sums, 0, sizeof sums);
  total[0] = 0;
}

/* loss = sum_b w_b * block_sum_b + w_t * total */
static double loss(void) {
  reset();
  struct args r = {x, 0, sums, 0, total, 0};
  emu_launch(emu_dim3_of(GRID, 1, 1), emu_dim3_of(BLOCK, 1, 1), run_primal, &r);
  double l = (double)w_t * total[0];
  for (int b = 0; b < GRID; b++)
    l += (double)w_b[b] * sums[b];
  return l;
}

int main(void) {
  uint64_t s = 2;
  for (int i = 0; i < N; i++)
    x_in[i] = (float)check_uniform(&s, -1, 1);
  for (int b = 0; b < GRID; b++)
    w_b[b] = (float)check_uniform(&s, -1, 1);
  w_t = 0.5f;

  loss();
  double want_total = 0;
  for (int b = 0; b < GRID; b++) {
    double bs = 0;
    for (int i = b * BLOCK; i < N && i < (b + 1) * BLOCK; i++)
      bs += (double)x_in[i] * x_in[i];
    check_close("block sum (primal)", b, sums[b], bs, 1e-5, 1e-6);
    want_total += bs;
  }
  check_close("total (primal)", 0, total[0], want_total, 1e-5, 1e-5);

  reset();
  memset(dx, 0, sizeof dx);
  memcpy(d_sums, w_b, sizeof d_sums);
  d_total[0] = w_t;
  struct args r = {x, dx, sums, d_sums, total, d_total};
  emu_launch(emu_dim3_of(GRID, 1, 1), emu_dim3_of(BLOCK, 1, 1), run_grad, &r);

  check_close("total after grad", 0, total[0], want_total, 1e-5, 1e-5);
  for (int i = 0; i < N; i++)
    check_close("dx (analytic)", i, dx[i], 2.0 * x_in[i] * (w_b[i / BLOCK] + w_t), 1e-5, 1e-6);
  for (int b = 0; b < GRID; b++)
    check_close("d_block_sums after grad (consumed)", b, d_sums[b], 0, 0, 0);
  check_close("d_total after grad (kept)", 0, d_total[0], w_t, 0, 0);
  for (int k = 0; k < check_sample_count(N, 24); k++) {
    int i = check_sample(N, 24, k);
    check_close("dx (fd)", i, dx[i], CHECK_FD(&x_in[i], 1e-2, loss), 2e-2, 3e-3);
  }
  return check_report();
}
