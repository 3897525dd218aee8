/* mem_matvec_soa.c: a 2x2 matrix stored as a struct of column arrays
 * (fields are inline arrays, reached by struct GEPs), dup, times a dup
 * vector:
 *   q(M, v) = 0.5 |M v|^2       dv = M^T y, dM_col_j[i] = y_i v_j (y = M v)
 *   matvec(M, v, out): out = M v (void; out's shadow seeded with w, consumed)
 *                      dv = M^T w, dM_col_j[i] = w_i v_j
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

typedef struct {
  double col0[2];
  double col1[2];
} M2;

static double q(M2 *m, double *v) {
  double y0 = m->col0[0] * v[0] + m->col1[0] * v[1];
  double y1 = m->col0[1] * v[0] + m->col1[1] * v[1];
  return 0.5 * (y0 * y0 + y1 * y1);
}
static void matvec(M2 *m, double *v, double *out) {
  out[0] = m->col0[0] * v[0] + m->col1[0] * v[1];
  out[1] = m->col0[1] * v[0] + m->col1[1] * v[1];
}

/* u = {col0[0], col0[1], col1[0], col1[1], v0, v1} */
static double q_v(double *u) {
  M2 m = {{u[0], u[1]}, {u[2], u[3]}};
  return q(&m, u + 4);
}
static void matvec_v(double *u, double *out) {
  M2 m = {{u[0], u[1]}, {u[2], u[3]}};
  matvec(&m, u + 4, out);
}
/* gradient of w . (M v) w.r.t. u */
static void grad_wy(const double *u, const double *w, double *g) {
  g[0] = w[0] * u[4];
  g[1] = w[1] * u[4];
  g[2] = w[0] * u[5];
  g[3] = w[1] * u[5];
  g[4] = u[0] * w[0] + u[1] * w[1];
  g[5] = u[2] * w[0] + u[3] * w[1];
}

#ifdef NO_AD
static void emul(M2 *m, M2 *dm, double *v, double *dv, double *out, double *dout) {
  double u[6] = {m->col0[0], m->col0[1], m->col1[0], m->col1[1], v[0], v[1]}, g[6];
  double w[2];
  if (out) {
    w[0] = dout[0];
    w[1] = dout[1];
    matvec(m, v, out);
    dout[0] = dout[1] = 0.0;
  } else {
    w[0] = u[0] * u[4] + u[2] * u[5];
    w[1] = u[1] * u[4] + u[3] * u[5];
  }
  grad_wy(u, w, g);
  dm->col0[0] += g[0];
  dm->col0[1] += g[1];
  dm->col1[0] += g[2];
  dm->col1[1] += g[3];
  dv[0] += g[4];
  dv[1] += g[5];
}
#endif

int main(void) {
  const double pts[2][6] = {{1.2, -0.5, 0.3, 0.9, 0.7, -1.1}, {-0.8, 1.5, 2.2, -0.4, -0.6, 0.35}};
  const double seeds[2][2] = {{1.0, 1.0}, {-0.75, 2.0}};
  for (int p = 0; p < 2; p++) {
    const double *u = pts[p];
    M2 m = {{u[0], u[1]}, {u[2], u[3]}}, dm = {{0, 0}, {0, 0}};
    double v[2] = {u[4], u[5]}, dv[2] = {0}, g[6];
    double y[2] = {u[0] * u[4] + u[2] * u[5], u[1] * u[4] + u[3] * u[5]};
    grad_wy(u, y, g);
    check_at("q point %d", p);
#ifdef NO_AD
    emul(&m, &dm, v, dv, 0, 0);
#else
    __enzyme_autodiff_v((void *)q, enzyme_dup, &m, &dm, enzyme_dup, v, dv);
#endif
    double got[6] = {dm.col0[0], dm.col0[1], dm.col1[0], dm.col1[1], dv[0], dv[1]};
    for (int k = 0; k < 6; k++) {
      check_close_i("d(M,v) vs analytic", k, got[k], g[k], TOL_AD);
      check_close_i("d(M,v) vs FD", k, got[k], fdp(q_v, u, 6, k), TOL_FD);
    }

    const double *w = seeds[p];
    M2 dm2 = {{0, 0}, {0, 0}};
    double dv2[2] = {0}, out[2] = {0}, dout[2] = {w[0], w[1]};
    grad_wy(u, w, g);
    check_at("matvec point %d", p);
#ifdef NO_AD
    emul(&m, &dm2, v, dv2, out, dout);
#else
    __enzyme_autodiff_v((void *)matvec, &m, &dm2, v, dv2, out, dout);
#endif
    double got2[6] = {dm2.col0[0], dm2.col0[1], dm2.col1[0], dm2.col1[1], dv2[0], dv2[1]};
    for (int k = 0; k < 6; k++) {
      check_close_i("d(M,v) vs analytic", k, got2[k], g[k], TOL_AD);
      check_close_i("d(M,v) vs FD", k, got2[k], fdvjp(matvec_v, u, 6, k, w, 2), TOL_FD);
    }
    check_close("dout[0] consumed", dout[0], 0.0, TOL_AD);
    check_close("dout[1] consumed", dout[1], 0.0, TOL_AD);
    check_close("primal out[0]", out[0], y[0], TOL_AD);
    check_close("primal out[1]", out[1], y[1], TOL_AD);
  }
  return check_report();
}
