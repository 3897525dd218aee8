/* mem_struct.c: a struct argument { double w; int *idx; } (dup) next to a
 * double array (dup). The function reads w and uses idx[0], idx[1] as
 * integer indices into x. The gradient w.r.t. w lands in the shadow
 * struct's w; the shadow struct's idx points at the same (inactive) int
 * array as the primal. Includes idx[0] == idx[1] (two loads of one slot).
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

typedef struct {
  double w;
  int *idx;
} S;

static double f(S *s, double *x) {
  double w = s->w;
  int i = s->idx[0], j = s->idx[1];
  return w * w * x[i] + sin(w) * x[j] + x[i] * x[j];
}

static int g_idx[2];
/* v = {w, x0, x1, x2, x3} */
static double f_v(double *v) {
  S s = {v[0], g_idx};
  return f(&s, v + 1);
}

/* gw = df/dw, gx[4] = df/dx */
static void grad(double w, const double *x, int i, int j, double *gw, double *gx) {
  *gw = 2.0 * w * x[i] + cos(w) * x[j];
  for (int k = 0; k < 4; k++)
    gx[k] = 0.0;
  gx[i] += w * w + x[j];
  gx[j] += sin(w) + x[i];
}

#ifdef NO_AD
static void emul(S *s, S *ds, double *x, double *dx) {
  double gw, gx[4];
  grad(s->w, x, s->idx[0], s->idx[1], &gw, gx);
  ds->w += gw;
  for (int k = 0; k < 4; k++)
    dx[k] += gx[k];
}
#endif

int main(void) {
  const double pts[2][5] = {{0.8, 0.5, -1.25, 2.0, 3.5}, {-1.3, -3.1, 0.2, 1.7, -0.6}};
  const int idxs[2][2] = {{0, 2}, {3, 3}};
  for (int p = 0; p < 2; p++) {
    int idx[2] = {idxs[p][0], idxs[p][1]};
    S s = {pts[p][0], idx};
    S ds = {0.0, idx}; /* shadow: zero w, same int array */
    double x[4], dx[4] = {0}, gw, gx[4];
    for (int k = 0; k < 4; k++)
      x[k] = pts[p][1 + k];
    g_idx[0] = idx[0];
    g_idx[1] = idx[1];
    grad(s.w, x, idx[0], idx[1], &gw, gx);
    check_at("f idx=(%d,%d) point %d", idx[0], idx[1], p);
#ifdef NO_AD
    emul(&s, &ds, x, dx);
#else
    __enzyme_autodiff_v((void *)f, enzyme_dup, &s, &ds, enzyme_dup, x, dx);
#endif
    check_close("dw vs analytic", ds.w, gw, TOL_AD);
    check_close("dw vs FD", ds.w, fdp(f_v, pts[p], 5, 0), TOL_FD);
    for (int k = 0; k < 4; k++) {
      check_close_i("dx vs analytic", k, dx[k], gx[k], TOL_AD);
      check_close_i("dx vs FD", k, dx[k], fdp(f_v, pts[p], 5, 1 + k), TOL_FD);
    }
    check_close("shadow idx pointer kept", ds.idx == idx, 1.0, 0.0);
    check_close("idx[0] unchanged", idx[0], idxs[p][0], 0.0);
    check_close("idx[1] unchanged", idx[1], idxs[p][1], 0.0);
  }
  return check_report();
}
