/* checkpoint_split_overlap.c: checkpoint_heat_out.c's time loop, `*out = s`
 * through a pointer the compiler cannot tell from the state u, in split
 * mode (__enzyme_augmentfwd, then __enzyme_reverse with the tape). A split
 * pair makes the store where the primal does (it is not deferred to the
 * end of a reverse sweep, analysis/deferred_stores.rs), so the loop used to
 * be refused ("what it reads may be written after it"); under
 * --cache-budget 1 it is versioned on a run-time overlap check
 * (analysis/overlap.rs). out separate: the checkpointed form runs; out =
 * &u[0], a fixed end the stencil reads every step: the ranges overlap and
 * the plain loop runs (a segment run again in the reverse call would read
 * s there). T = 60, 17, 1.
 *   f(u0) = sum_i w_i sin(u_T,i), written to *out, seeded with 1
 * du (every entry) is checked against a hand-written reverse sweep over the
 * stored trajectory and against central differences (a sample of cells);
 * u and *out after each call must hold the primal's final state.
 * Build with -DNO_AD to replace the AD calls by the hand-written sweep. */
// enz-args: --cache-budget 1
#include <math.h>
#include <stdlib.h>
#include "enzyme.h"
#include "check.h"

void *__enzyme_augmentfwd(void *, ...);
void __enzyme_reverse_v(void *, ...);

#define N 2000

__attribute__((noinline)) static void f(double *u, double *tmp, int n, int T, double c,
                                        double d, double *out) {
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < n - 1; i++)
      tmp[i] = u[i] + c * (u[i - 1] - 2.0 * u[i] + u[i + 1]) - d * u[i] * u[i] * u[i];
    for (int i = 1; i < n - 1; i++)
      u[i] = tmp[i];
  }
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += (1.0 + 0.001 * i) * sin(u[i]);
  *out = s;
}

/* The primal and the reverse sweep by hand: uT the final state, g the
 * gradient. */
static void f_grad(const double *u0, int n, int T, double c, double d, double *uT, double *g) {
  double *traj = malloc(sizeof(double) * (size_t)n * (size_t)(T + 1));
  double *h = malloc(sizeof(double) * (size_t)n);
  for (int i = 0; i < n; i++)
    traj[i] = u0[i];
  for (int t = 0; t < T; t++) {
    const double *u = traj + (size_t)t * n;
    double *v = traj + (size_t)(t + 1) * n;
    v[0] = u[0], v[n - 1] = u[n - 1];
    for (int i = 1; i < n - 1; i++)
      v[i] = u[i] + c * (u[i - 1] - 2.0 * u[i] + u[i + 1]) - d * u[i] * u[i] * u[i];
  }
  for (int i = 0; i < n; i++) {
    uT[i] = traj[(size_t)T * n + i];
    g[i] = (1.0 + 0.001 * i) * cos(uT[i]);
  }
  for (int t = T - 1; t >= 0; t--) {
    const double *u = traj + (size_t)t * n;
    h[0] = g[0], h[n - 1] = g[n - 1];
    for (int i = 1; i < n - 1; i++)
      h[i] = 0.0;
    for (int i = 1; i < n - 1; i++) {
      h[i - 1] += c * g[i];
      h[i] += (1.0 - 2.0 * c - 3.0 * d * u[i] * u[i]) * g[i];
      h[i + 1] += c * g[i];
    }
    for (int i = 0; i < n; i++)
      g[i] = h[i];
  }
  free(traj);
  free(h);
}

static int g_T;
static double u_fd[N], tmp_fd[N];
static double f_of(const double *u0, int n) {
  double s;
  for (int i = 0; i < n; i++)
    u_fd[i] = u0[i];
  f(u_fd, tmp_fd, n, g_T, 0.2, 0.05, &s);
  return s;
}

int main(void) {
  static double u0[N], u[N], du[N], tmp[N], dtmp[N], want[N], uT[N];
  const int Ts[3] = {60, 17, 1};
  for (int aliased = 0; aliased < 2; aliased++)
    for (int k = 0; k < 3; k++) {
      int T = Ts[k];
      double out = 0.0, dout = 0.0;
      for (int i = 0; i < N; i++) {
        u0[i] = 0.5 + 0.3 * sin(0.01 * i);
        u[i] = u0[i], du[i] = 0.0, tmp[i] = 0.0, dtmp[i] = 0.0;
      }
      double *o = aliased ? &u[0] : &out, *d_o = aliased ? &du[0] : &dout;
      f_grad(u0, N, T, 0.2, 0.05, uT, want);
      g_T = T;
      double s = f_of(u0, N);
      if (aliased)
        uT[0] = s;
      check_at("%s T=%d", aliased ? "out = &u[0]" : "out separate", T);
#ifdef NO_AD
      f(u, tmp, N, T, 0.2, 0.05, o);
#else
      void *tape = __enzyme_augmentfwd((void *)f, enzyme_dup, u, du, enzyme_dup, tmp, dtmp,
                                       enzyme_const, N, enzyme_const, T, enzyme_const, 0.2,
                                       enzyme_const, 0.05, enzyme_dup, o, d_o);
#endif
      check_close_arr("u after the augmented forward call", u, uT, N, 1e-12);
      check_close("out after the augmented forward call", *o, s, 1e-12);
      *d_o = 1.0;
#ifdef NO_AD
      *d_o = 0.0;
      for (int i = 0; i < N; i++)
        du[i] += want[i];
#else
      __enzyme_reverse_v((void *)f, enzyme_dup, u, du, enzyme_dup, tmp, dtmp, enzyme_const, N,
                         enzyme_const, T, enzyme_const, 0.2, enzyme_const, 0.05, enzyme_dup, o,
                         d_o, tape);
#endif
      check_close_arr("du vs hand-written reverse", du, want, N, TOL_AD);
      check_close_arr("u after the reverse call", u, uT, N, 1e-12);
      check_close("out after the reverse call", *o, s, 1e-12);
      for (int i = 0; i < N; i += 199) {
        double x[N];
        for (int j = 0; j < N; j++)
          x[j] = u0[j];
        double h = FD_REL * (1.0 + fabs(x[i]));
        x[i] = u0[i] + h;
        double hi = f_of(x, N);
        x[i] = u0[i] - h;
        double lo = f_of(x, N);
        check_close("du vs FD", du[i], (hi - lo) / (2.0 * h), TOL_FD);
      }
    }
  return check_report();
}
