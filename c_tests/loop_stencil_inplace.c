/* loop_stencil_inplace.c: an explicit 1D heat stencil over T time steps,
 * updating the dup array u (n = 16) in place, sweeping i = 1..n-2 in order
 * (Gauss-Seidel style: u[i-1] is already the new value, u[i+1] still the old
 * one), with the ends fixed:
 *   heat(u, c, n, T):    u_i <- u_i + c (u_(i-1) - 2 u_i + u_(i+1))
 *                        c an `out` scalar: dc needs the old values, which
 *                        memory no longer holds in the reverse sweep;
 *   heat_nl(u, c, n, T): u_i <- u_i + c (...) + 0.1 sin(u_i), c const: du
 *                        needs the old u_i (cos u_i).
 * The caller seeds u's shadow with w; afterwards du = d(w . u_final)/du
 * (w.r.t. the values before the call) and dc is returned. The reference is
 * a hand-written reverse sweep over a recorded trajectory. T = 5, 12, 20.
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include <string.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

static void heat(double *u, double c, int n, int T) {
  for (int t = 0; t < T; t++)
    for (int i = 1; i < n - 1; i++)
      u[i] = u[i] + c * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
}

static void heat_nl(double *u, double c, int n, int T) {
  for (int t = 0; t < T; t++)
    for (int i = 1; i < n - 1; i++)
      u[i] = u[i] + c * (u[i - 1] - 2.0 * u[i] + u[i + 1]) + 0.1 * sin(u[i]);
}

#define N 16
#define TMAX 20

/* Reference: records (u_(i-1), u_i, u_(i+1)) before every update, then runs
 * the updates backwards. On return u holds the final values, du the
 * gradient w.r.t. the initial u (du on entry: the seed w); returns dc. */
static double ref_vjp(double *u, double *du, double c, int n, int T, int nl) {
  static double tape[TMAX][N][3];
  double dc = 0.0;
  for (int t = 0; t < T; t++)
    for (int i = 1; i < n - 1; i++) {
      double l = u[i - 1], m = u[i], r = u[i + 1];
      tape[t][i][0] = l;
      tape[t][i][1] = m;
      tape[t][i][2] = r;
      u[i] = m + c * (l - 2.0 * m + r) + (nl ? 0.1 * sin(m) : 0.0);
    }
  for (int t = T - 1; t >= 0; t--)
    for (int i = n - 2; i >= 1; i--) {
      double l = tape[t][i][0], m = tape[t][i][1], r = tape[t][i][2];
      double g = du[i];
      dc += g * (l - 2.0 * m + r);
      du[i] = g * (1.0 - 2.0 * c + (nl ? 0.1 * cos(m) : 0.0));
      du[i - 1] += g * c;
      du[i + 1] += g * c;
    }
  return dc;
}

/* FD wrappers: the parameters come from globals */
static double g_c;
static int g_T;
static const double *g_u0, *g_w;
static void heat_u(double *u) { heat(u, g_c, N, g_T); }
static void heat_nl_u(double *u) { heat_nl(u, g_c, N, g_T); }
static double heat_c(double c) {
  double u[N], s = 0.0;
  memcpy(u, g_u0, sizeof u);
  heat(u, c, N, g_T);
  for (int i = 0; i < N; i++)
    s += g_w[i] * u[i];
  return s;
}

#ifdef NO_AD
static double emul_heat(double *u, double *du, double c, int n, int T) {
  return ref_vjp(u, du, c, n, T, 0);
}
static void emul_heat_nl(double *u, double *du, double c, int n, int T) {
  ref_vjp(u, du, c, n, T, 1);
}
#endif

int main(void) {
  const int Ts[3] = {5, 12, 20};
  const double cs[2] = {0.2, 0.35};
  for (int p = 0; p < 3; p++)
    for (int q = 0; q < 2; q++) {
      int T = Ts[p];
      double c = cs[q];
      double u0[N], w[N], u[N], du[N], ru[N], rdu[N], fd[N];
      for (int i = 0; i < N; i++) {
        u0[i] = sin(0.6 * i + 0.3 * q) + 0.2 * cos(2.1 * i);
        w[i] = 1.0 + 0.3 * sin(1.7 * i + p);
      }
      g_c = c;
      g_T = T;
      g_u0 = u0;
      g_w = w;

      /* heat: du and dc */
      memcpy(u, u0, sizeof u);
      memcpy(du, w, sizeof du);
      memcpy(ru, u0, sizeof ru);
      memcpy(rdu, w, sizeof rdu);
      double rdc = ref_vjp(ru, rdu, c, N, T, 0);
      check_at("heat T=%d c=%g", T, c);
#ifdef NO_AD
      double dc = emul_heat(u, du, c, N, T);
#else
      double dc = __enzyme_autodiff((void *)heat, enzyme_dup, u, du, c, N, T);
#endif
      check_close_arr("du vs reference", du, rdu, N, TOL_AD);
      check_close("dc vs reference", dc, rdc, TOL_AD);
      for (int i = 0; i < N; i++)
        fd[i] = fdinplace(heat_u, u0, N, i, w);
      check_close_arr("du vs FD", du, fd, N, TOL_FD);
      check_close("dc vs FD", dc, fd1(heat_c, c), TOL_FD);
      check_close_arr("primal u", u, ru, N, TOL_AD);

      /* heat_nl: du only (c const) */
      memcpy(u, u0, sizeof u);
      memcpy(du, w, sizeof du);
      memcpy(ru, u0, sizeof ru);
      memcpy(rdu, w, sizeof rdu);
      ref_vjp(ru, rdu, c, N, T, 1);
      check_at("heat_nl T=%d c=%g", T, c);
#ifdef NO_AD
      emul_heat_nl(u, du, c, N, T);
#else
      __enzyme_autodiff_v((void *)heat_nl, enzyme_dup, u, du, enzyme_const, c, N, T);
#endif
      check_close_arr("du vs reference", du, rdu, N, TOL_AD);
      for (int i = 0; i < N; i++)
        fd[i] = fdinplace(heat_nl_u, u0, N, i, w);
      check_close_arr("du vs FD", du, fd, N, TOL_FD);
      check_close_arr("primal u", u, ru, N, TOL_AD);
    }
  return check_report();
}
