/* checkpoint_split.c: a time-stepping loop checkpointed in split mode
 * (__enzyme_augmentfwd, then __enzyme_reverse with the tape) under a
 * cache budget of 0 (enz-rs --cache-budget 0: one iteration a segment, so
 * every iteration but the first runs again in the reverse call). The
 * nonlinear heat equation of checkpoint_heat.c through a scratch row, T
 * steps over n cells:
 *   v_i = u_i + c (u_{i-1} - 2 u_i + u_{i+1}) - d u_i^3,  u_i <- v_i
 *   f(u0) = sum_i w_i sin(u_T,i)
 * The augmented forward function saves the state per segment on its tape
 * and the reverse function runs each segment again. Between the two calls
 * the caller overwrites the scratch row (the reverse must not depend on
 * it) and checks the primal state u_T; after the reverse call u must hold
 * u_T again. Heap tape and caller-allocated tape; T = 60, 17, 1, 0.
 * df/du0 (the shadow of u, with dret = 1 and 0.5) is checked against a
 * hand-written reverse sweep over the stored trajectory and against
 * central differences (a sample of cells).
 * Build with -DNO_AD to replace the AD calls by the hand-written sweep. */
// enz-args: --cache-budget 0
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "enzyme.h"
#include "check.h"

void *__enzyme_augmentfwd(void *, ...);
void __enzyme_augmentfwd_v(void *, ...);
void __enzyme_reverse_v(void *, ...);

#define N 2000
#define TAPE_SIZE 4096

__attribute__((noinline)) static double f(double *u, double *tmp, int n, int T,
                                          double c, double d) {
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < n - 1; i++)
      tmp[i] = u[i] + c * (u[i - 1] - 2.0 * u[i] + u[i + 1]) - d * u[i] * u[i] * u[i];
    for (int i = 1; i < n - 1; i++)
      u[i] = tmp[i];
  }
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += (1.0 + 0.001 * i) * sin(u[i]);
  return s;
}

/* The primal and the reverse sweep by hand, over the stored trajectory:
 * uT gets the final state, g the gradient times dret. */
static void f_grad(const double *u0, int n, int T, double c, double d, double dret,
                   double *uT, double *g) {
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
    g[i] = dret * (1.0 + 0.001 * i) * cos(uT[i]);
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
  for (int i = 0; i < n; i++)
    u_fd[i] = u0[i];
  return f(u_fd, tmp_fd, n, g_T, 0.2, 0.05);
}

int main(void) {
  static double u0[N], u[N], du[N], tmp[N], dtmp[N], want[N], uT[N];
  const int Ts[4] = {60, 17, 1, 0};
  const double drets[2] = {1.0, 0.5};
  for (int k = 0; k < 4; k++) {
    for (int r = 0; r < 2; r++) {
      for (int caller = 0; caller < 2; caller++) {
        int T = Ts[k];
        double dret = drets[r];
        for (int i = 0; i < N; i++) {
          u0[i] = 0.5 + 0.3 * sin(0.01 * i);
          u[i] = u0[i], du[i] = 0.0, tmp[i] = 0.0, dtmp[i] = 0.0;
        }
        f_grad(u0, N, T, 0.2, 0.05, dret, uT, want);
        check_at("T=%d dret=%g %s tape", T, dret, caller ? "caller" : "heap");
        _Alignas(64) static unsigned char buf[TAPE_SIZE];
#ifdef NO_AD
        for (int i = 0; i < N; i++)
          u[i] = uT[i];
#else
        void *tape = NULL;
        if (caller)
          __enzyme_augmentfwd_v((void *)f, enzyme_allocated, TAPE_SIZE, enzyme_tape, buf,
                                enzyme_dup, u, du, enzyme_dup, tmp, dtmp, enzyme_const, N,
                                enzyme_const, T, enzyme_const, 0.2, enzyme_const, 0.05);
        else
          tape = __enzyme_augmentfwd((void *)f, enzyme_dup, u, du, enzyme_dup, tmp, dtmp,
                                     enzyme_const, N, enzyme_const, T, enzyme_const, 0.2,
                                     enzyme_const, 0.05);
#endif
        check_close_arr("u after the augmented forward call", u, uT, N, 1e-12);
        for (int i = 0; i < N; i++)
          tmp[i] = -7.0;
#ifdef NO_AD
        for (int i = 0; i < N; i++)
          du[i] = want[i];
#else
        if (caller)
          __enzyme_reverse_v((void *)f, enzyme_allocated, TAPE_SIZE, enzyme_tape, buf,
                             enzyme_dup, u, du, enzyme_dup, tmp, dtmp, enzyme_const, N,
                             enzyme_const, T, enzyme_const, 0.2, enzyme_const, 0.05, dret);
        else
          __enzyme_reverse_v((void *)f, enzyme_dup, u, du, enzyme_dup, tmp, dtmp,
                             enzyme_const, N, enzyme_const, T, enzyme_const, 0.2,
                             enzyme_const, 0.05, dret, tape);
#endif
        check_close_arr("du vs hand-written reverse", du, want, N, TOL_AD);
        /* segments run again in the reverse call overwrite u; it must hold
         * the primal's final state again afterwards */
        check_close_arr("u after the reverse call", u, uT, N, 1e-12);
        if (r == 0 && caller == 0) {
          g_T = T;
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
      }
    }
  }
  return check_report();
}
