/* mem_mixed_int.c: integer memory next to float memory.
 *   cnt: an int array used as indices and as (converted) multipliers, passed
 *        enzyme_const in one call and enzyme_dup (with an int shadow array,
 *        which must stay untouched) in another;
 *   Rec: records { int n; double v; } (dup): n is integer data inside active
 *        memory, v is active; the shadow records' n fields stay untouched.
 *   f = x[c0] c1 + n0 v0 v1 + x[c2] n1 x0
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

typedef struct {
  int n;
  double v;
} Rec;

static double f(double *x, const int *cnt, Rec *r) {
  return x[cnt[0]] * cnt[1] + r[0].n * r[0].v * r[1].v + x[cnt[2]] * r[1].n * x[0];
}

static int g_cnt[3], g_n[2];
/* u = {x0, x1, x2, v0, v1} */
static double f_v(double *u) {
  Rec r[2] = {{g_n[0], u[3]}, {g_n[1], u[4]}};
  return f(u, g_cnt, r);
}
static void grad(const double *u, const int *c, const int *n, double *g) {
  for (int k = 0; k < 5; k++)
    g[k] = 0.0;
  g[c[0]] += c[1];
  g[c[2]] += n[1] * u[0];
  g[0] += u[c[2]] * n[1];
  g[3] = n[0] * u[4];
  g[4] = n[0] * u[3];
}

#ifdef NO_AD
static void emul(double *x, double *dx, const int *cnt, Rec *r, Rec *dr) {
  double u[5] = {x[0], x[1], x[2], r[0].v, r[1].v}, g[5];
  int n[2] = {r[0].n, r[1].n};
  grad(u, cnt, n, g);
  for (int k = 0; k < 3; k++)
    dx[k] += g[k];
  dr[0].v += g[3];
  dr[1].v += g[4];
}
#endif

int main(void) {
  const double pts[2][5] = {{0.9, -1.4, 1.3, 0.4, -0.8}, {-0.6, 0.8, -2.1, 1.7, 0.25}};
  const int cnts[2][3] = {{2, 3, 0}, {1, -2, 1}};
  const int ns[2][2] = {{4, -1}, {2, 3}};
  for (int p = 0; p < 2; p++) {
    int cnt[3] = {cnts[p][0], cnts[p][1], cnts[p][2]};
    double x[3] = {pts[p][0], pts[p][1], pts[p][2]}, g[5];
    for (int k = 0; k < 3; k++)
      g_cnt[k] = cnt[k];
    g_n[0] = ns[p][0];
    g_n[1] = ns[p][1];
    grad(pts[p], cnt, ns[p], g);
    for (int mode = 0; mode < 2; mode++) {
      Rec r[2] = {{ns[p][0], pts[p][3]}, {ns[p][1], pts[p][4]}};
      Rec dr[2] = {{0, 0.0}, {0, 0.0}};
      double dx[3] = {0};
      int dcnt[3] = {0, 0, 0};
      check_at("f cnt %s point %d", mode ? "dup" : "const", p);
#ifdef NO_AD
      emul(x, dx, cnt, r, dr);
#else
      if (mode == 0)
        __enzyme_autodiff_v((void *)f, enzyme_dup, x, dx, enzyme_const, cnt,
                            enzyme_dup, r, dr);
      else
        __enzyme_autodiff_v((void *)f, enzyme_dup, x, dx, enzyme_dup, cnt, dcnt,
                            enzyme_dup, r, dr);
#endif
      double got[5] = {dx[0], dx[1], dx[2], dr[0].v, dr[1].v};
      for (int k = 0; k < 5; k++) {
        check_close_i("d(x,v0,v1) vs analytic", k, got[k], g[k], TOL_AD);
        check_close_i("d(x,v0,v1) vs FD", k, got[k], fdp(f_v, pts[p], 5, k), TOL_FD);
      }
      check_close("shadow n fields untouched", dr[0].n == 0 && dr[1].n == 0, 1.0, 0.0);
      check_close("int shadow untouched", dcnt[0] == 0 && dcnt[1] == 0 && dcnt[2] == 0, 1.0, 0.0);
      check_close("ints unchanged", cnt[0] == cnts[p][0] && cnt[1] == cnts[p][1] &&
                  cnt[2] == cnts[p][2] && r[0].n == ns[p][0] && r[1].n == ns[p][1], 1.0, 0.0);
    }
  }
  return check_report();
}
