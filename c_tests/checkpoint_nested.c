/* checkpoint_nested.c: a checkpointed loop (enz-rs --cache-budget 1)
 * around a time loop: S sweeps, each T explicit steps of a nonlinear
 * diffusion over n cells (in place through a scratch row), then a
 * relaxation of the first cell towards the middle one:
 *   v_i = u_i + c (u_{i-1} - 2 u_i + u_{i+1}) + e tanh(u_i),  u_i <- v_i
 *   u_0 <- 0.9 u_0 + 0.1 u_{n/2}                  (once per sweep)
 *   f(u0) = sum_i w_i u_i^2
 * The outermost loop is the one checkpointed (its state: u, the scratch
 * row, the sweep counter); the time loop inside it is recorded per sweep.
 * Checked against a hand-written reverse sweep over the stored trajectory
 * and central differences, for (S, T) = (6, 9), (1, 1), (3, 0), (0, 4).
 * Build with -DNO_AD for the hand-written sweep. */
// enz-args: --cache-budget 1
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

#define N 3000
#define C 0.21
#define E 0.04

__attribute__((noinline)) static double f(double *u, double *tmp, int n, int S, int T) {
  for (int s = 0; s < S; s++) {
    for (int t = 0; t < T; t++) {
      for (int i = 1; i < n - 1; i++)
        tmp[i] = u[i] + C * (u[i - 1] - 2.0 * u[i] + u[i + 1]) + E * tanh(u[i]);
      for (int i = 1; i < n - 1; i++)
        u[i] = tmp[i];
    }
    u[0] = 0.9 * u[0] + 0.1 * u[n / 2];
  }
  double r = 0.0;
  for (int i = 0; i < n; i++)
    r += (1.0 + 0.0005 * i) * u[i] * u[i];
  return r;
}

/* Reverse mode by hand over the stored states (one per step). */
static void f_grad(const double *u0, int n, int S, int T, double *g) {
  size_t steps = (size_t)S * (size_t)T;
  double *hist = malloc(sizeof(double) * (size_t)n * (steps + 1));
  double *mid = malloc(sizeof(double) * (size_t)(S + 1));
  double *u = malloc(sizeof(double) * n), *h = malloc(sizeof(double) * n);
  memcpy(u, u0, sizeof(double) * n);
  size_t k = 0;
  for (int s = 0; s < S; s++) {
    for (int t = 0; t < T; t++, k++) {
      memcpy(hist + k * n, u, sizeof(double) * n);
      for (int i = 1; i < n - 1; i++)
        h[i] = u[i] + C * (u[i - 1] - 2.0 * u[i] + u[i + 1]) + E * tanh(u[i]);
      for (int i = 1; i < n - 1; i++)
        u[i] = h[i];
    }
    u[0] = 0.9 * u[0] + 0.1 * u[n / 2];
  }
  for (int i = 0; i < n; i++)
    g[i] = 2.0 * (1.0 + 0.0005 * i) * u[i];
  for (int s = S - 1; s >= 0; s--) {
    /* u_0 <- 0.9 u_0 + 0.1 u_mid */
    g[n / 2] += 0.1 * g[0];
    g[0] *= 0.9;
    for (int t = T - 1; t >= 0; t--) {
      k--;
      const double *x = hist + k * n;
      h[0] = g[0], h[n - 1] = g[n - 1];
      for (int i = 1; i < n - 1; i++)
        h[i] = 0.0;
      for (int i = 1; i < n - 1; i++) {
        double th = tanh(x[i]);
        h[i - 1] += C * g[i];
        h[i] += (1.0 - 2.0 * C + E * (1.0 - th * th)) * g[i];
        h[i + 1] += C * g[i];
      }
      memcpy(g, h, sizeof(double) * n);
    }
  }
  free(hist), free(mid), free(u), free(h);
}

static int g_S, g_T;
static double fu[N], ft[N];
static double f_of(const double *u0) {
  memcpy(fu, u0, sizeof fu);
  memset(ft, 0, sizeof ft);
  return f(fu, ft, N, g_S, g_T);
}

int main(void) {
  static double u0[N], u[N], du[N], tmp[N], dtmp[N], want[N], x[N];
  const int cases[4][2] = {{6, 9}, {1, 1}, {3, 0}, {0, 4}};
  for (int c = 0; c < 4; c++) {
    int S = cases[c][0], T = cases[c][1];
    for (int i = 0; i < N; i++) {
      u0[i] = 0.4 + 0.25 * cos(0.003 * i);
      u[i] = u0[i], du[i] = 0.0, tmp[i] = 0.0, dtmp[i] = 0.0;
    }
    f_grad(u0, N, S, T, want);
    check_at("S=%d T=%d", S, T);
#ifdef NO_AD
    memcpy(du, want, sizeof du);
#else
    __enzyme_autodiff_v((void *)f, enzyme_dup, u, du, enzyme_dup, tmp, dtmp, enzyme_const, N,
                        enzyme_const, S, enzyme_const, T);
#endif
    check_close_arr("du vs hand-written reverse", du, want, N, TOL_AD);
    g_S = S, g_T = T;
    for (int i = 0; i < N; i += 373) {
      memcpy(x, u0, sizeof x);
      double hstep = FD_REL * (1.0 + fabs(x[i]));
      x[i] = u0[i] + hstep;
      double hi = f_of(x);
      x[i] = u0[i] - hstep;
      double lo = f_of(x);
      check_close("du vs FD", du[i], (hi - lo) / (2.0 * hstep), TOL_FD);
    }
  }
  return check_report();
}
