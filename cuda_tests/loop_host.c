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
// every step matters.
//
// Every entry of dx and dp is checked against the analytic derivatives and
// against finite differences. dp and a sample of dx (24 entries up to 20
// steps, 8 at 1,000, 2 at 100,000: two launches each, and the 100,000-step
// case runs 64 threads, 2 blocks of 32, 6.4 million steps a launch) by
// central differences of the loss; every entry of dx by differences of its
// own output, y[i] depending on x[i] alone (thread i reads x[i] and p
// only): two launches with every x[i] moved at once, by +h_i and by -h_i.
// Under ThreadSanitizer (check.h's check_max) the loss is differenced in a
// few entries.
#include "check.h"
#include "emu.h"

void loop_primal(const double *x, const double *p, double *y, int n, int steps);
void loop_grad(const double *x, double *dx, const double *p, double *dp, double *y, double *dy,
               int n, int steps);

#define NMAX 200

struct loop_case {
  int steps, n, block;
  int fd_dx; // elements of dx checked by differences of the loss (at most)
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

/* Every entry of dx by central differences of its own output: y[i]
 * depends on x[i] (and p) alone, so one launch with every x[i] moved by
 * +h_i and one with -h_i give d y[i] / d x[i] for all i. The error: the
 * truncation, about h^2 = 1e-12 relative, and the rounding of y[i]
 * (growing with the steps) divided by the step; the tolerance, 1e-6
 * relative plus 1e-9 |w[i]| (1 + |y[i]|), is 9 times the largest error
 * (at 1,000 and at 100,000 steps). */
static void fd_every_output(int steps) {
  static double up[NMAX], down[NMAX], y_up[NMAX], step[NMAX];
  char what[64];
  int n = cur.n;
  for (int i = 0; i < n; i++) {
    double h = 1e-6 * (fabs(x_0[i]) > 1 ? fabs(x_0[i]) : 1);
    up[i] = x_0[i] + h;
    down[i] = x_0[i] - h;
    step[i] = up[i] - down[i];
  }
  reset();
  memcpy(x, up, sizeof up);
  launch(run_primal);
  memcpy(y_up, y, sizeof y_up);
  reset();
  memcpy(x, down, sizeof down);
  launch(run_primal);
  for (int i = 0; i < n; i++) {
    double want = w[i] * (y_up[i] - y[i]) / step[i];
    snprintf(what, sizeof what, "dx (fd of y[i], %d steps)", steps);
    check_close(what, i, dx[i], want, 1e-6, 1e-9 * fabs(w[i]) * (1 + fabs(y[i])));
  }
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
  fd_every_output(steps);
}

int main(void) {
  for (unsigned c = 0; c < sizeof cases / sizeof cases[0]; c++)
    run_case(&cases[c], 4 + c);
  return check_report();
}
