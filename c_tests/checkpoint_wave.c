/* checkpoint_wave.c: a checkpointed time loop (enz-rs --cache-budget 1)
 * whose state is three arrays rotated every step (double buffering: the
 * header phis cycle through the three pointers) and whose trip count
 * depends on the data: a nonlinear wave equation, leapfrog,
 *   next_i = 2 cur_i - prev_i + c (cur_{i-1} - 2 cur_i + cur_{i+1})
 *            - d sin(cur_i)            (interior cells; ends never written)
 *   (prev, cur, next) <- (cur, next, prev)
 * until the middle cell exceeds a threshold or T steps have run;
 *   f(a, b, c) = sum_i w_i cur_i^2   (a: prev, b: cur, c: scratch).
 * The thresholds are chosen so that the crossing step is well inside a
 * step (finite differences do not change it). Checked against a
 * hand-written reverse sweep (the same buffer rotation, backwards) and
 * central differences, for T = 1, 7 and 400 steps, and for a threshold
 * (0.5) the middle cell crosses at step 11 (0.437 before, 0.522 after).
 * Build with -DNO_AD for the hand-written sweep. */
// enz-args: --cache-budget 1
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

#define N 1500
#define C2 0.15
#define D 0.3

__attribute__((noinline)) static double f(double *a, double *b, double *c, int n, int T,
                                          double thr) {
  double *prev = a, *cur = b, *next = c;
  int t = 0;
  do {
    for (int i = 1; i < n - 1; i++)
      next[i] = 2.0 * cur[i] - prev[i] + C2 * (cur[i - 1] - 2.0 * cur[i] + cur[i + 1]) -
                D * sin(cur[i]);
    double *old = prev;
    prev = cur;
    cur = next;
    next = old;
    t++;
  } while (t < T && cur[n / 2] < thr);
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += (1.0 + 0.002 * i) * cur[i] * cur[i];
  return s;
}

/* Reverse mode by hand: the same rotation forwards (keeping each step's
 * cur), then backwards. Returns the steps taken. */
static int f_grad(const double *a0, const double *b0, const double *c0, int n, int T,
                  double thr, double *ga, double *gb, double *gc) {
  double *buf[3], *adj[3];
  for (int k = 0; k < 3; k++) {
    buf[k] = malloc(sizeof(double) * n);
    adj[k] = calloc((size_t)n, sizeof(double));
  }
  memcpy(buf[0], a0, sizeof(double) * n);
  memcpy(buf[1], b0, sizeof(double) * n);
  memcpy(buf[2], c0, sizeof(double) * n);
  double *hist = malloc(sizeof(double) * (size_t)n * (size_t)(T + 1));
  int p = 0, c = 1, x = 2, t = 0;
  do {
    memcpy(hist + (size_t)t * n, buf[c], sizeof(double) * n);
    for (int i = 1; i < n - 1; i++)
      buf[x][i] = 2.0 * buf[c][i] - buf[p][i] +
                  C2 * (buf[c][i - 1] - 2.0 * buf[c][i] + buf[c][i + 1]) - D * sin(buf[c][i]);
    int old = p;
    p = c, c = x, x = old;
    t++;
  } while (t < T && buf[c][n / 2] < thr);
  int steps = t;
  for (int i = 0; i < n; i++)
    adj[c][i] = 2.0 * (1.0 + 0.002 * i) * buf[c][i];
  for (t = steps - 1; t >= 0; t--) {
    /* undo the rotation: at step t, (p, c, x) were (x', p', c') */
    int old = x;
    x = c, c = p, p = old;
    const double *cur = hist + (size_t)t * n;
    for (int i = 1; i < n - 1; i++) {
      double g = adj[x][i];
      adj[x][i] = 0.0;
      adj[c][i] += (2.0 - 2.0 * C2 - D * cos(cur[i])) * g;
      adj[c][i - 1] += C2 * g;
      adj[c][i + 1] += C2 * g;
      adj[p][i] -= g;
    }
  }
  memcpy(ga, adj[0], sizeof(double) * n);
  memcpy(gb, adj[1], sizeof(double) * n);
  memcpy(gc, adj[2], sizeof(double) * n);
  for (int k = 0; k < 3; k++)
    free(buf[k]), free(adj[k]);
  free(hist);
  return steps;
}

static int g_T;
static double g_thr;
static double fa[N], fb[N], fc[N];
static double f_of(const double *a, const double *b, const double *c) {
  memcpy(fa, a, sizeof fa), memcpy(fb, b, sizeof fb), memcpy(fc, c, sizeof fc);
  return f(fa, fb, fc, N, g_T, g_thr);
}

int main(void) {
  static double a0[N], b0[N], c0[N], a[N], b[N], c[N], da[N], db[N], dc[N];
  static double wa[N], wb[N], wc[N], x[3][N];
  const int Ts[4] = {1, 7, 400, 400};
  const double thrs[4] = {10.0, 10.0, 10.0, 0.5};
  for (int k = 0; k < 4; k++) {
    int T = Ts[k];
    double thr = thrs[k];
    for (int i = 0; i < N; i++) {
      a0[i] = 0.5 * exp(-0.0001 * (i - N / 2) * (i - N / 2));
      b0[i] = a0[i] * 1.01 + 0.002;
      c0[i] = 0.0;
      a[i] = a0[i], b[i] = b0[i], c[i] = c0[i];
      da[i] = db[i] = dc[i] = 0.0;
    }
    int steps = f_grad(a0, b0, c0, N, T, thr, wa, wb, wc);
    check_at("T=%d thr=%g (%d steps)", T, thr, steps);
#ifdef NO_AD
    memcpy(da, wa, sizeof da), memcpy(db, wb, sizeof db), memcpy(dc, wc, sizeof dc);
#else
    __enzyme_autodiff_v((void *)f, enzyme_dup, a, da, enzyme_dup, b, db, enzyme_dup, c, dc,
                        enzyme_const, N, enzyme_const, T, enzyme_const, thr);
#endif
    check_close_arr("da vs hand-written reverse", da, wa, N, TOL_AD);
    check_close_arr("db vs hand-written reverse", db, wb, N, TOL_AD);
    check_close_arr("dc vs hand-written reverse", dc, wc, N, TOL_AD);
    g_T = T, g_thr = thr;
    for (int i = 1; i < N; i += 211) {
      for (int which = 0; which < 2; which++) {
        memcpy(x[0], a0, sizeof a0), memcpy(x[1], b0, sizeof b0), memcpy(x[2], c0, sizeof c0);
        double *v = x[which];
        double h = FD_REL * (1.0 + fabs(v[i])), keep = v[i];
        v[i] = keep + h;
        double hi = f_of(x[0], x[1], x[2]);
        v[i] = keep - h;
        double lo = f_of(x[0], x[1], x[2]);
        double got = which == 0 ? da[i] : db[i];
        check_close(which == 0 ? "da vs FD" : "db vs FD", got, (hi - lo) / (2.0 * h), TOL_FD);
      }
    }
  }
  return check_report();
}
