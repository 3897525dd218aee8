/* fwd_zero_tangent.c: forward mode through a blend-skinning loop whose
 * tangents are zero for most directions, the Jacobian built column by
 * column (one __enzyme_fwddiff_v call per parameter direction):
 *
 *   skin(theta, base, w, p, out): for each bone b (NB of them),
 *     m_b[j] = base[b][j] cos(s_j theta[b / 2]), j < 12, s_j = 0.3 (j + 1);
 *     then for each vertex v and row r < 3:
 *       out[3v + r] += w[b][v] sum_c m_b[4r + c] p[v][c];
 *   and out[k] += theta[NT - 1] (1 + k) afterwards.
 *
 * The tangent of m_b along e_k is zero unless b / 2 == k, so the vertex
 * loop of every other bone has nothing to add to out's tangent (enz-rs
 * checks that before the loop and runs it without its tangent work);
 * along e_{NT-1} every bone's loop is skipped. A random direction makes
 * every tangent nonzero. Checked against the analytic Jacobian and
 * central finite differences, at two vertex counts.
 *
 * Forward over forward: first(x) = sum_k c_k dout_k, dout the tangent of
 * out along e_0 at theta with theta_0 = x; its derivative at x = 0, where
 * the tangents of bones 0 and 1 are -base s sin(0) = 0 but not their
 * derivatives (the second derivative must not skip them):
 *   first'(x) = sum_k c_k sum_{b < 2} w[b][v] sum_c
 *       -base[b][4r + c] s^2 cos(s x) p[v][c],  s = s_{4r+c}, k = 3v + r.
 *
 *   d out[3v + r] / d theta_k = sum_{b / 2 == k} w[b][v] sum_c
 *       -base[b][4r + c] s_{4r+c} sin(s_{4r+c} theta_k) p[v][c]
 *     + (k == NT - 1) (1 + 3v + r).
 *
 *
 * blend(m, w, out): out[3v + r] += w[v] (m[4r] + m[4r + 1]), restrict
 * pointers (from -O2 m's loads leave the loop: its tangents are values
 * from before it); out's tangent starts at q, so it ends at
 * q + w[v] (dm[4r] + dm[4r + 1]), q itself where dm is zero.
 *
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_fwddiff_v(void *, ...);

#define NB 8
#define NT (NB / 2 + 1)
#define MAXV 40

static double g_base[NB][12], g_w[NB][MAXV], g_p[MAXV][4];

static double scale(int j) { return 0.3 * (j + 1); }

__attribute__((noinline)) static void skin(const double *theta,
                                           const double *base, const double *w,
                                           const double *p, int nv,
                                           double *out) {
  double *m = (double *)malloc(sizeof(double) * 12 * NB);
  for (int b = 0; b < NB; b++)
    for (int j = 0; j < 12; j++)
      m[12 * b + j] = base[12 * b + j] * cos(scale(j) * theta[b / 2]);
  for (int k = 0; k < 3 * nv; k++)
    out[k] = 0.0;
  for (int b = 0; b < NB; b++) {
    const double *mb = m + 12 * b;
    const double *wb = w + (size_t)b * nv;
    for (int v = 0; v < nv; v++) {
      const double *pv = p + 4 * v;
      for (int r = 0; r < 3; r++)
        out[3 * v + r] += wb[v] * (mb[4 * r] * pv[0] + mb[4 * r + 1] * pv[1] +
                                   mb[4 * r + 2] * pv[2] + mb[4 * r + 3] * pv[3]);
    }
  }
  for (int k = 0; k < 3 * nv; k++)
    out[k] += theta[NT - 1] * (1 + k);
  free(m);
}

/* the analytic tangent of out along direction dt */
static void ref_tangent(const double *theta, const double *dt, int nv,
                        double *dout) {
  for (int k = 0; k < 3 * nv; k++)
    dout[k] = dt[NT - 1] * (1 + k);
  for (int b = 0; b < NB; b++) {
    double th = theta[b / 2], d = dt[b / 2];
    for (int v = 0; v < nv; v++)
      for (int r = 0; r < 3; r++) {
        double s = 0.0;
        for (int c = 0; c < 4; c++) {
          int j = 4 * r + c;
          s += -g_base[b][j] * scale(j) * sin(scale(j) * th) * d * g_p[v][c];
        }
        dout[3 * v + r] += g_w[b][v] * s;
      }
  }
}

static int g_nv;
static double g_wflat[NB * MAXV], g_pflat[4 * MAXV], g_bflat[12 * NB];
static void skin_z(double *theta, double *out) {
  skin(theta, g_bflat, g_wflat, g_pflat, g_nv, out);
}

__attribute__((noinline)) static void blend(const double *restrict m,
                                            const double *w,
                                            double *restrict out, int nv) {
  for (int v = 0; v < nv; v++)
    for (int r = 0; r < 3; r++)
      out[3 * v + r] += w[v] * (m[4 * r] + m[4 * r + 1]);
}
static double g_m[12], g_out0[3 * MAXV];
static void blend_z(double *m, double *out) {
  memcpy(out, g_out0, sizeof(double) * 3 * g_nv);
  blend(m, g_wflat, out, g_nv);
}

static double g_theta[NT];
static double coef(int k) { return 0.5 + 0.25 * cos(0.7 * k); }

/* sum_k c_k (tangent of out along e_0 at theta_0 = x) */
static double first(double x) {
  double th[NT], dt[NT], o[3 * MAXV], d[3 * MAXV];
  for (int i = 0; i < NT; i++) {
    th[i] = i == 0 ? x : g_theta[i];
    dt[i] = i == 0;
  }
#ifdef NO_AD
  ref_tangent(th, dt, g_nv, d);
  (void)o;
#else
  __enzyme_fwddiff_v((void *)skin, enzyme_dup, th, dt, enzyme_const, g_bflat,
                     enzyme_const, g_wflat, enzyme_const, g_pflat, g_nv,
                     enzyme_dupnoneed, o, d);
#endif
  double s = 0.0;
  for (int k = 0; k < 3 * g_nv; k++)
    s += coef(k) * d[k];
  return s;
}

static double ref_second(double x) {
  double s = 0.0;
  for (int b = 0; b < 2; b++)
    for (int v = 0; v < g_nv; v++)
      for (int r = 0; r < 3; r++)
        for (int c = 0; c < 4; c++) {
          int j = 4 * r + c;
          s += coef(3 * v + r) * g_w[b][v] * -g_base[b][j] * scale(j) *
               scale(j) * cos(scale(j) * x) * g_p[v][c];
        }
  return s;
}

int main(void) {
  static double theta[NT], dt[NT], out[3 * MAXV], dout[3 * MAXV],
      want[3 * MAXV], fd[3 * MAXV];
  check_seed(2718);
  for (int b = 0; b < NB; b++)
    for (int j = 0; j < 12; j++)
      g_base[b][j] = 0.5 + 0.4 * sin(1.3 * b + 0.7 * j);
  for (int v = 0; v < MAXV; v++)
    for (int c = 0; c < 4; c++)
      g_p[v][c] = c == 3 ? 1.0 : cos(0.9 * v + 1.1 * c);
  for (int i = 0; i < NT; i++)
    theta[i] = 0.2 + 0.35 * i;
  const int sizes[2] = {7, MAXV};
  for (int t = 0; t < 2; t++) {
    int nv = sizes[t];
    g_nv = nv;
    for (int b = 0; b < NB; b++)
      for (int v = 0; v < nv; v++) {
        /* most weights zero, as in skinning: two bones per vertex */
        g_w[b][v] = (v % NB == b) ? 0.7 : ((v + 3) % NB == b ? 0.3 : 0.0);
        g_wflat[(size_t)b * nv + v] = g_w[b][v];
      }
    memcpy(g_pflat, g_p, sizeof g_pflat);
    memcpy(g_bflat, g_base, sizeof g_bflat);
    /* the unit directions, then a random one */
    for (int k = 0; k <= NT; k++) {
      if (k < NT)
        for (int i = 0; i < NT; i++)
          dt[i] = i == k;
      else
        check_rand_dir(dt, NT);
      for (int i = 0; i < 3 * nv; i++)
        dout[i] = 99.0;
      check_at("skin nv=%d direction %d", nv, k);
#ifdef NO_AD
      ref_tangent(theta, dt, nv, dout);
      skin(theta, g_bflat, g_wflat, g_pflat, nv, out);
#else
      __enzyme_fwddiff_v((void *)skin, enzyme_dup, theta, dt, enzyme_const,
                         g_bflat, enzyme_const, g_wflat, enzyme_const, g_pflat,
                         nv, enzyme_dupnoneed, out, dout);
#endif
      ref_tangent(theta, dt, nv, want);
      check_close_arr("tangent vs analytic", dout, want, 3 * nv, TOL_AD);
      fdjvp(skin_z, theta, NT, dt, 3 * nv, fd);
      check_close_arr("tangent vs FD", dout, fd, 3 * nv, TOL_FD);
    }
    for (int z = 0; z < 2; z++) {
      double dm[12], q[3 * MAXV], o[3 * MAXV];
      for (int j = 0; j < 12; j++) {
        g_m[j] = 0.3 + 0.1 * j;
        dm[j] = z ? cos(0.4 * j) : 0.0;
      }
      for (int k = 0; k < 3 * nv; k++) {
        g_out0[k] = o[k] = sin(0.3 * k);
        q[k] = dout[k] = 0.1 * k - 1.0;
      }
      check_at("blend nv=%d dm %s", nv, z ? "nonzero" : "zero");
#ifdef NO_AD
      for (int v = 0; v < nv; v++)
        for (int r = 0; r < 3; r++)
          dout[3 * v + r] += g_wflat[v] * (dm[4 * r] + dm[4 * r + 1]);
#else
      __enzyme_fwddiff_v((void *)blend, enzyme_dup, g_m, dm, enzyme_const,
                         g_wflat, enzyme_dup, o, dout, nv);
#endif
      for (int v = 0; v < nv; v++)
        for (int r = 0; r < 3; r++)
          want[3 * v + r] = q[3 * v + r] + g_wflat[v] * (dm[4 * r] + dm[4 * r + 1]);
      check_close_arr("tangent vs analytic", dout, want, 3 * nv, TOL_AD);
      fdjvp(blend_z, g_m, 12, dm, 3 * nv, fd);
      for (int k = 0; k < 3 * nv; k++)
        fd[k] += q[k];
      check_close_arr("tangent vs FD", dout, fd, 3 * nv, TOL_FD);
    }
    memcpy(g_theta, theta, sizeof g_theta);
    for (int t2 = 0; t2 < 2; t2++) {
      double x = t2 == 0 ? 0.0 : 0.4;
      check_at("forward over forward nv=%d x=%g", nv, x);
#ifdef NO_AD
      double got = ref_second(x);
#else
      double got = __enzyme_fwddiff((void *)first, x, 1.0);
#endif
      check_close("second derivative vs analytic", got, ref_second(x), TOL_AD);
      check_close("second derivative vs FD", got, fd1(first, x), TOL_FD);
    }
  }
  return check_report();
}
