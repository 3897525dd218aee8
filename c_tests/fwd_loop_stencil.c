/* fwd_loop_stencil.c: forward mode of an explicit 1D heat stencil over T
 * time steps, updating the dup array u (n = 16) in place, Gauss-Seidel
 * order, ends fixed:
 *   heat(u, c, n, T):    u_i <- u_i + c (u_(i-1) - 2 u_i + u_(i+1))
 *                        c duplicated (c, dc): its tangent flows into u's
 *   heat_nl(u, c, n, T): + 0.1 sin(u_i), c enzyme_const
 * Both are void (__enzyme_fwddiff_v); on return u's tangent memory holds
 * the tangent of the final u along (du_0, dc). The reference is a
 * hand-written tangent sweep; FD perturbs (u, c) together. T = 5, 12, 20.
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_fwddiff_v(void *, ...);

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

/* reference: runs the primal and the tangent sweep together */
static void ref_jvp(double *u, double *du, double c, double dc, int n, int T,
                    int nl) {
  for (int t = 0; t < T; t++)
    for (int i = 1; i < n - 1; i++) {
      double l = u[i - 1], m = u[i], r = u[i + 1];
      double dl = du[i - 1], dm = du[i], dr = du[i + 1];
      du[i] = dm + dc * (l - 2.0 * m + r) + c * (dl - 2.0 * dm + dr) +
              (nl ? 0.1 * cos(m) * dm : 0.0);
      u[i] = m + c * (l - 2.0 * m + r) + (nl ? 0.1 * sin(m) : 0.0);
    }
}

/* FD state z = (u[0..N-1], c) */
static int g_T;
static void heat_z(double *z) { heat(z, z[N], N, g_T); }
static void heat_nl_z(double *z) { heat_nl(z, z[N], N, g_T); }

#ifdef NO_AD
static void emul_heat(double *u, double *du, double c, double dc, int n, int T) {
  ref_jvp(u, du, c, dc, n, T, 0);
}
static void emul_heat_nl(double *u, double *du, double c, int n, int T) {
  ref_jvp(u, du, c, 0.0, n, T, 1);
}
#endif

int main(void) {
  const int Ts[3] = {5, 12, 20};
  const double cs[2] = {0.2, 0.35};
  check_seed(2024);
  for (int p = 0; p < 3; p++)
    for (int q = 0; q < 2; q++) {
      int T = Ts[p];
      double c = cs[q], dc = 0.5 * check_rand();
      double u0[N], v[N], u[N], du[N], ru[N], rdu[N];
      double z[N + 1], vz[N + 1], fd[N + 1];
      for (int i = 0; i < N; i++)
        u0[i] = sin(0.6 * i + 0.3 * q) + 0.2 * cos(2.1 * i);
      check_rand_dir(v, N);
      memcpy(z, u0, sizeof u0);
      z[N] = c;
      memcpy(vz, v, sizeof v);
      vz[N] = dc;
      g_T = T;

      memcpy(u, u0, sizeof u);
      memcpy(du, v, sizeof du);
      memcpy(ru, u0, sizeof ru);
      memcpy(rdu, v, sizeof rdu);
      ref_jvp(ru, rdu, c, dc, N, T, 0);
      check_at("heat T=%d c=%g dc=%g", T, c, dc);
#ifdef NO_AD
      emul_heat(u, du, c, dc, N, T);
#else
      __enzyme_fwddiff_v((void *)heat, enzyme_dup, u, du, c, dc, N, T);
#endif
      check_close_arr("du vs reference", du, rdu, N, TOL_AD);
      fdjvp_inplace(heat_z, z, N + 1, vz, fd);
      check_close_arr("du vs FD", du, fd, N, TOL_FD);
      check_close_arr("primal u", u, ru, N, TOL_AD);

      memcpy(u, u0, sizeof u);
      memcpy(du, v, sizeof du);
      memcpy(ru, u0, sizeof ru);
      memcpy(rdu, v, sizeof rdu);
      ref_jvp(ru, rdu, c, 0.0, N, T, 1);
      vz[N] = 0.0;
      check_at("heat_nl T=%d c=%g", T, c);
#ifdef NO_AD
      emul_heat_nl(u, du, c, N, T);
#else
      __enzyme_fwddiff_v((void *)heat_nl, enzyme_dup, u, du, enzyme_const, c, N, T);
#endif
      check_close_arr("du vs reference", du, rdu, N, TOL_AD);
      fdjvp_inplace(heat_nl_z, z, N + 1, vz, fd);
      check_close_arr("du vs FD", du, fd, N, TOL_FD);
      check_close_arr("primal u", u, ru, N, TOL_AD);
    }
  return check_report();
}
