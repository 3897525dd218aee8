/* fwd_zero_tangent_shapes.c: forward mode's zero-tangent loops (see
 * fwd_zero_tangent.c) in other shapes:
 *
 *   shapes(m, a, w, out, out2, nv, nk): for each v < nv,
 *     s = sum_{k < nk} m[k] w[v nk + k]   (an inner loop whose trip count
 *                                           is a parameter, 0 included)
 *     out[v] += s a;  out2[v] += s s;
 *
 * The loop over v reads the tangents of m (the bytes m[0..nk), known
 * before it) and of a (a value); it is run without its tangent work when
 * they are all zero. Tangents, with ds = sum_k dm[k] w[v nk + k]:
 *   dout[v] += ds a + s da,  dout2[v] += 2 s ds
 * on top of what dout and dout2 held. Directions: zero, a's alone, one of
 * m's, random; scalar and width 2 (a zero lane beside a nonzero one, and
 * two zero lanes); nk = 0 and 5. Checked against the analytic tangents
 * and central finite differences.
 *
 *
 *   reduce(m, a, w, nv) = 0.5 + sum_{v < nv} sum_{k < NK} w[v NK + k] m[k] a
 *   (a reduction: the loop over v leaves with its tangent, sum w (dm[k] a +
 *   m[k] da), and reads the same dm in every iteration): returned tangent
 *   along (dm, da) in {0, e_a, e_3, random}, nv = NV and 0.
 *
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_fwddiff_v(void *, ...);

#define NV 9
#define NK 5

__attribute__((noinline)) static void shapes(const double *restrict m, double a,
                                             const double *w,
                                             double *restrict out,
                                             double *restrict out2, int nv,
                                             int nk) {
  for (int v = 0; v < nv; v++) {
    double s = 0.0;
    for (int k = 0; k < nk; k++)
      s += m[k] * w[v * nk + k];
    out[v] += s * a;
    out2[v] += s * s;
  }
}

__attribute__((noinline)) static double reduce(const double *m, double a,
                                              const double *w, int nv) {
  double s = 0.5;
  for (int v = 0; v < nv; v++)
    for (int k = 0; k < NK; k++)
      s += w[v * NK + k] * m[k] * a;
  return s;
}
static double g_w[NV * NK], g_o0[2 * NV];
static int g_n;
static double reduce_z(double *z) { return reduce(z, z[NK], g_w, g_n); }

static int g_nk;

/* z = (m[0..NK), a) -> (out, out2) from g_o0 */
static void shapes_z(double *z, double *y) {
  memcpy(y, g_o0, sizeof(double) * 2 * NV);
  shapes(z, z[NK], g_w, y, y + NV, NV, g_nk);
}

/* the tangents added to (out, out2) along (dm, da) */
static void ref(const double *m, double a, const double *dm, double da, int nk,
                double *dy) {
  for (int v = 0; v < NV; v++) {
    double s = 0.0, ds = 0.0;
    for (int k = 0; k < nk; k++) {
      s += m[k] * g_w[v * nk + k];
      ds += dm[k] * g_w[v * nk + k];
    }
    dy[v] = ds * a + s * da;
    dy[NV + v] = 2.0 * s * ds;
  }
}

int main(void) {
  static double z[NK + 1], dz[2][NK + 1], y[2 * NV], dy[2][2 * NV],
      q[2 * NV], want[2 * NV], fd[2 * NV];
  check_seed(1618);
  for (int i = 0; i < NV * NK; i++)
    g_w[i] = 0.2 + 0.5 * sin(0.8 * i + 0.3);
  for (int k = 0; k < NK; k++)
    z[k] = 0.4 + 0.3 * cos(1.1 * k);
  z[NK] = 1.3;
  for (int i = 0; i < 2 * NV; i++) {
    g_o0[i] = cos(0.5 * i);
    q[i] = 0.25 * i - 1.0;
  }
  for (int t = 0; t < 2; t++) {
    g_n = t ? 0 : NV;
    for (int d = 0; d < 4; d++) {
      double dd[NK + 1] = {0};
      if (d == 1)
        dd[NK] = 1.0;
      if (d == 2)
        dd[3] = 1.0;
      if (d == 3)
        check_rand_dir(dd, NK + 1);
      double want_r = 0.0;
      for (int v = 0; v < g_n; v++)
        for (int k = 0; k < NK; k++)
          want_r += g_w[v * NK + k] * (dd[k] * z[NK] + z[k] * dd[NK]);
      check_at("reduce nv=%d direction %d", g_n, d);
#ifdef NO_AD
      double got = want_r;
#else
      double got = __enzyme_fwddiff((void *)reduce, enzyme_dup, z, dd, enzyme_dup, z[NK],
                                    dd[NK], enzyme_const, g_w, g_n);
#endif
      check_close("tangent vs analytic", got, want_r, TOL_AD);
      check_close("tangent vs FD", got, fddir(reduce_z, z, dd, NK + 1), TOL_FD);
    }
  }
  const int nks[2] = {NK, 0};
  for (int t = 0; t < 2; t++) {
    int nk = nks[t];
    g_nk = nk;
    /* scalar: zero, a's alone, m[2]'s alone, random */
    for (int d = 0; d < 4; d++) {
      for (int i = 0; i <= NK; i++)
        dz[0][i] = 0.0;
      if (d == 1)
        dz[0][NK] = 1.0;
      if (d == 2)
        dz[0][2] = 1.0;
      if (d == 3)
        check_rand_dir(dz[0], NK + 1);
      memcpy(y, g_o0, sizeof y);
      memcpy(dy[0], q, sizeof q);
      check_at("scalar nk=%d direction %d", nk, d);
#ifdef NO_AD
      ref(z, z[NK], dz[0], dz[0][NK], nk, want);
      for (int i = 0; i < 2 * NV; i++)
        dy[0][i] += want[i];
#else
      __enzyme_fwddiff_v((void *)shapes, enzyme_dup, z, dz[0], enzyme_dup, z[NK],
                         dz[0][NK], enzyme_const, g_w, enzyme_dup, y, dy[0],
                         enzyme_dup, y + NV, dy[0] + NV, NV, nk);
#endif
      ref(z, z[NK], dz[0], dz[0][NK], nk, want);
      for (int i = 0; i < 2 * NV; i++)
        want[i] += q[i];
      check_close_arr("tangent vs analytic", dy[0], want, 2 * NV, TOL_AD);
      fdjvp(shapes_z, z, NK + 1, dz[0], 2 * NV, fd);
      for (int i = 0; i < 2 * NV; i++)
        fd[i] += q[i];
      check_close_arr("tangent vs FD", dy[0], fd, 2 * NV, TOL_FD);
    }
    /* width 2: lanes (zero, m[1]'s) and (zero, zero) */
    for (int d = 0; d < 2; d++) {
      for (int i = 0; i <= NK; i++)
        dz[0][i] = dz[1][i] = 0.0;
      if (d == 0)
        dz[1][1] = 1.0;
      memcpy(y, g_o0, sizeof y);
      memcpy(dy[0], q, sizeof q);
      memcpy(dy[1], q, sizeof q);
      check_at("width 2 nk=%d case %d", nk, d);
#ifdef NO_AD
      for (int l = 0; l < 2; l++) {
        ref(z, z[NK], dz[l], dz[l][NK], nk, want);
        for (int i = 0; i < 2 * NV; i++)
          dy[l][i] += want[i];
      }
#else
      __enzyme_fwddiff_v((void *)shapes, enzyme_width, 2, enzyme_dup, z, dz[0],
                         dz[1], enzyme_dup, z[NK], dz[0][NK], dz[1][NK],
                         enzyme_const, g_w, enzyme_dup, y, dy[0], dy[1],
                         enzyme_dup, y + NV, dy[0] + NV, dy[1] + NV, NV, nk);
#endif
      for (int l = 0; l < 2; l++) {
        ref(z, z[NK], dz[l], dz[l][NK], nk, want);
        for (int i = 0; i < 2 * NV; i++)
          want[i] += q[i];
        check_close_arr("lane vs analytic", dy[l], want, 2 * NV, TOL_AD);
        fdjvp(shapes_z, z, NK + 1, dz[l], 2 * NV, fd);
        for (int i = 0; i < 2 * NV; i++)
          fd[i] += q[i];
        check_close_arr("lane vs FD", dy[l], fd, 2 * NV, TOL_FD);
      }
    }
  }
  return check_report();
}
