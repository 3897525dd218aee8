// Host driver for loop.cu on the CPU SIMT emulator: the per-thread loop
// with runtime trip counts of 1, 2, 10, 20, 1,000 and 100,000 steps. Each
// case checks the primal against the host's own loop, the gradient against
// the analytic derivatives (forward-mode tangents of the same recurrence,
// computed here in double) and against central finite differences of the
// primal kernel.
//
// Long runs would converge to the fixed points v = +-sqrt(k) and make the
// derivatives forget all but the last few hundred steps (a wrong cache
// entry early in the loop would not show): k is scaled by 20 / steps past
// 20 steps so that k t, with t = 0.1 steps, stays between 1 and 4, and
// every step matters. The 100,000-step case runs 64 threads (2 blocks of
// 32) and samples 2 elements of dx by finite differences: each launch is
// 6.4 million steps.
#include "check.h"
#include "emu.h"

void loop_primal(const double *x, const double *p, double *y, int n, int steps);
void loop_grad(const double *x, double *dx, const double *p, double *dp, double *y, double *dy,
               int n, int steps);

#define NMAX 200

struct loop_case {
  int steps, n, block;
  int fd_dx; // elements of dx checked by finite differences (at most)
};
static const struct loop_case cases[] = {
    {1, 200, 64, 24},    {2, 200, 64, 24},  {10, 200, 64, 24},
    {20, 200, 64, 24},   {1000, 200, 64, 8}, {100000, 64, 32, 2},
};

static struct loop_case cur;
static double x_0[NMAX], p_0[4], w[NMAX];
static double x[NMAX], p[4], y[NMAX], dx[NMAX], dp[4], dy[NMAX];
// The analytic derivatives of y[i] with respect to x[i] and p[i % 4].
static double dydx[NMAX], dydk[NMAX];

static void run_primal(void *a) {
  (void)a;
  loop_primal(x, p, y, cur.n, cur.steps);
}
static void run_grad(void *a) {
  (void)a;
  loop_grad(x, dx, p, dp, y, dy, cur.n, cur.steps);
}
static void launch(void (*fn)(void *)) {
  int grid = (cur.n + cur.block - 1) / cur.block;
  emu_launch(emu_dim3_of(grid, 1, 1), emu_dim3_of(cur.block, 1, 1), fn, NULL);
}

static void reset(void) {
  memcpy(x, x_0, sizeof x);
  memcpy(p, p_0, sizeof p);
  memset(y, 0, sizeof y);
}

static double loss(void) {
  reset();
  launch(run_primal);
  double l = 0;
  for (int i = 0; i < cur.n; i++)
    l += w[i] * y[i];
  return l;
}

static void run_case(const struct loop_case *c, uint64_t seed) {
  cur = *c;
  int n = c->n, steps = c->steps;
  double kscale = steps > 20 ? 20.0 / steps : 1.0;
  char what[64];
  uint64_t s = seed;
  for (int i = 0; i < n; i++) {
    x_0[i] = check_uniform(&s, -2, 2);
    w[i] = check_uniform(&s, -1, 1);
  }
  for (int j = 0; j < 4; j++)
    p_0[j] = kscale * check_uniform(&s, 0.5, 2);

  // The primal, and the tangents of the same recurrence:
  //   v' = v + 0.1 num / q, num = k v - v^3, q = 1 + v^2.
  double scale_dp[4] = {0, 0, 0, 0}, scale_loss = 0;
  loss();
  for (int i = 0; i < n; i++) {
    double v = x_0[i], k = p_0[i % 4], tx = 1, tk = 0;
    for (int t = 0; t < steps; t++) {
      double q = 1.0 + v * v, num = k * v - v * v * v;
      double fv = 1.0 + 0.1 * ((k - 3.0 * v * v) / q - num * 2.0 * v / (q * q));
      tk = fv * tk + 0.1 * v / q;
      tx = fv * tx;
      v = v + 0.1 * (k * v - v * v * v) / (1.0 + v * v);
    }
    dydx[i] = tx;
    dydk[i] = tk;
    scale_dp[i % 4] += fabs(w[i] * tk);
    scale_loss += fabs(w[i] * v);
    snprintf(what, sizeof what, "y (primal, %d steps)", steps);
    check_close(what, i, y[i], v, 1e-12, 1e-14);
  }

  reset();
  memset(dx, 0, sizeof dx);
  memset(dp, 0, sizeof dp);
  memcpy(dy, w, sizeof dy);
  launch(run_grad);

  // Reverse mode and the tangents differ by rounding only (about 1e-13
  // relative after 100,000 steps).
  for (int j = 0; j < 4; j++) {
    double want = 0;
    for (int i = j; i < n; i += 4)
      want += w[i] * dydk[i];
    snprintf(what, sizeof what, "dp (analytic, %d steps)", steps);
    check_close(what, j, dp[j], want, 1e-10, 1e-12 * scale_dp[j]);
  }
  for (int i = 0; i < n; i++) {
    snprintf(what, sizeof what, "dx (analytic, %d steps)", steps);
    check_close(what, i, dx[i], w[i] * dydx[i], 1e-10, 1e-15);
  }
  // Central differences, step h = 1e-6 relative: truncation about h^2 =
  // 1e-12 relative, and the rounding of the loss (a sum of n terms w y)
  // divided by the step, up to about 1e-16 sum |w y| / h: 1e-9 sum |w y|
  // leaves a factor of 10 for it. p's step is relative to its scale, not
  // to 1.
  for (int j = 0; j < 4; j++) {
    snprintf(what, sizeof what, "dp (fd, %d steps)", steps);
    check_close(what, j, dp[j], CHECK_FD(&p_0[j], 1e-6 * kscale, loss), 1e-6,
                1e-8 * scale_dp[j]);
  }
  for (int k = 0; k < check_sample_count(n, c->fd_dx); k++) {
    int i = check_sample(n, c->fd_dx, k);
    snprintf(what, sizeof what, "dx (fd, %d steps)", steps);
    check_close(what, i, dx[i], CHECK_FD(&x_0[i], 1e-6, loss), 1e-6, 1e-9 * scale_loss);
  }
}

int main(void) {
  for (unsigned c = 0; c < sizeof cases / sizeof cases[0]; c++)
    run_case(&cases[c], 4 + c);
  return check_report();
}
