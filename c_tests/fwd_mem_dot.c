/* fwd_mem_dot.c: forward mode of a dot product of two double[4] arrays.
 * Pointer parameters are duplicated: the pointer is followed by a pointer
 * to its tangent memory (explicit enzyme_dup and the unmarked default);
 * with b enzyme_const only a's tangent counts. The returned tangent is
 * da . b + a . db; the function only reads memory, so the primal arrays and
 * the tangent arrays are left unchanged.
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include <stdlib.h>
#include "enzyme.h"
#include "check.h"

static double dot4(double *a, double *b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
}
static double dot4_v(double *v) { return dot4(v, v + 4); }

#ifdef NO_AD
static double emul_dot4(double *a, double *da, double *b, double *db) {
  double t = 0.0;
  for (int k = 0; k < 4; k++)
    t += (da ? da[k] * b[k] : 0.0) + (db ? a[k] * db[k] : 0.0);
  return t;
}
#endif

int main(void) {
  const double pts[2][8] = {{0.5, -1.25, 2.0, 3.5, 1.5, 0.75, -2.25, 0.4},
                            {-3.1, 0.2, 1.7, -0.6, 2.9, -1.4, 0.05, 1.1}};
  check_seed(17);
  for (int p = 0; p < 2; p++) {
    double a[4], b[4], v[8], da[4], db[4], want = 0.0, want_a = 0.0;
    check_rand_dir(v, 8);
    for (int k = 0; k < 4; k++) {
      a[k] = pts[p][k];
      b[k] = pts[p][4 + k];
      da[k] = v[k];
      db[k] = v[4 + k];
      want += v[k] * b[k] + a[k] * v[4 + k];
      want_a += v[k] * b[k];
    }
    check_at("dot4 dup,dup point %d", p);
#ifdef NO_AD
    double t = emul_dot4(a, da, b, db);
#else
    double t = __enzyme_fwddiff((void *)dot4, enzyme_dup, a, da, enzyme_dup, b, db);
#endif
    check_close("tangent vs analytic", t, want, TOL_AD);
    check_close("tangent vs FD", t, fddir(dot4_v, pts[p], v, 8), TOL_FD);

    check_at("dot4 default markers point %d", p);
#ifdef NO_AD
    double t2 = emul_dot4(a, da, b, db);
#else
    double t2 = __enzyme_fwddiff((void *)dot4, a, da, b, db);
#endif
    check_close("tangent vs analytic", t2, want, TOL_AD);

    check_at("dot4 dup,const point %d", p);
#ifdef NO_AD
    double t3 = emul_dot4(a, da, b, 0);
#else
    double t3 = __enzyme_fwddiff((void *)dot4, enzyme_dup, a, da, enzyme_const, b);
#endif
    double va[8] = {v[0], v[1], v[2], v[3], 0, 0, 0, 0};
    check_close("tangent (b const) vs analytic", t3, want_a, TOL_AD);
    check_close("tangent (b const) vs FD", t3, fddir(dot4_v, pts[p], va, 8), TOL_FD);

    for (int k = 0; k < 4; k++) {
      check_close_i("a unchanged", k, a[k], pts[p][k], 0.0);
      check_close_i("b unchanged", k, b[k], pts[p][4 + k], 0.0);
      check_close_i("da unchanged", k, da[k], v[k], 0.0);
      check_close_i("db unchanged", k, db[k], v[4 + k], 0.0);
    }
  }
  return check_report();
}
