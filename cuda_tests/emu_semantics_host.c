// Host driver for emu_semantics.cu: the emulator's semantics.
#include "check.h"
#include "emu.h"

void ids(int *out);
void exits_and_barriers(const int *in, int *out, int *red, int live);
void atomics(float *fsum, double *dsum, int *isum, unsigned *hist);

static int buf[4 * 4096];
static void run_ids(void *p) { ids(p); }

static int in[4 * 128], out[4 * 128], red[3 * 4];
static int live;
static void run_exits(void *p) {
  (void)p;
  exits_and_barriers(in, out, red, live);
}

static float fsum;
static double dsum;
static int isum;
static unsigned hist[8];
static void run_atomics(void *p) {
  (void)p;
  atomics(&fsum, &dsum, &isum, hist);
}

int main(void) {
  /* 3D ids: grid (3,2,2), block (4,3,2) */
  emu_dim3 grid = emu_dim3_of(3, 2, 2), block = emu_dim3_of(4, 3, 2);
  int nt = 24, nb = 12;
  emu_launch(grid, block, run_ids, buf);
  for (int g = 0; g < nt * nb; g++) {
    check_close("linear thread id", g, buf[4 * g + 0], g % nt, 0, 0);
    check_close("linear block id", g, buf[4 * g + 1], g / nt, 0, 0);
    check_close("total threads", g, buf[4 * g + 2], nt * nb, 0, 0);
    check_close("warpSize", g, buf[4 * g + 3], 32, 0, 0);
  }

  /* early exits: 4 blocks of 128, 100 live threads per block */
  for (int i = 0; i < 4 * 128; i++)
    in[i] = (i * 7) % 23;
  live = 100;
  memset(out, 0, sizeof out);
  emu_launch(emu_dim3_of(4, 1, 1), emu_dim3_of(128, 1, 1), run_exits, NULL);
  for (int b = 0; b < 4; b++) {
    int c = 0, a = 1, o = 0;
    for (int t = 0; t < 128; t++) {
      int g = b * 128 + t;
      int want = t < live ? 2 * in[b * 128 + live - 1 - t] + 1 : 0;
      check_close("reversed through shared memory", g, out[g], want, 0, 0);
      if (t < live) {
        int v = in[b * 128 + live - 1 - t];
        c += v % 3 == 0;
        a = a && v >= 0;
        o = o || v == 7;
      }
    }
    check_close("__syncthreads_count", b, red[3 * b], c, 0, 0);
    check_close("__syncthreads_and", b, red[3 * b + 1], a, 0, 0);
    check_close("__syncthreads_or", b, red[3 * b + 2], o, 0, 0);
  }

  /* atomics from 5 blocks of 256 threads, twice (the pool is reused) */
  for (int rep = 0; rep < 2; rep++)
    emu_launch(emu_dim3_of(5, 1, 1), emu_dim3_of(256, 1, 1), run_atomics, NULL);
  check_close("atomicAdd float", 0, fsum, 2 * 5 * 256, 0, 0);
  check_close("atomicAdd double", 0, dsum, 2 * 5 * 256 * 0.5, 0, 0);
  check_close("atomicAdd int", 0, isum, 2 * 5 * (255 * 256 / 2), 0, 0);
  for (int k = 0; k < 8; k++)
    check_close("atomicAdd unsigned", k, hist[k], 2 * 5 * 32, 0, 0);
  return check_report();
}
