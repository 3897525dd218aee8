/* mem_dot.c: dot product of two double[4] arrays, both enzyme_dup (explicit
 * markers and the unmarked default), and with one array enzyme_const. The
 * gradient lands in the shadows: da += b, db += a.
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

static double dot4(double *a, double *b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
}
static double dot4_v(double *v) { return dot4(v, v + 4); }

#ifdef NO_AD
static void emul_dot4(double *a, double *da, double *b, double *db) {
  for (int k = 0; k < 4; k++) {
    if (da)
      da[k] += b[k];
    if (db)
      db[k] += a[k];
  }
}
#endif

int main(void) {
  const double pts[2][8] = {{0.5, -1.25, 2.0, 3.5, 1.5, 0.75, -2.25, 0.4},
                            {-3.1, 0.2, 1.7, -0.6, 2.9, -1.4, 0.05, 1.1}};
  for (int p = 0; p < 2; p++) {
    double a[4], b[4], da[4] = {0}, db[4] = {0};
    for (int k = 0; k < 4; k++) {
      a[k] = pts[p][k];
      b[k] = pts[p][4 + k];
    }
    check_at("dot4 dup,dup point %d", p);
#ifdef NO_AD
    emul_dot4(a, da, b, db);
#else
    __enzyme_autodiff_v((void *)dot4, enzyme_dup, a, da, enzyme_dup, b, db);
#endif
    for (int k = 0; k < 4; k++) {
      check_close_i("da vs analytic", k, da[k], b[k], TOL_AD);
      check_close_i("db vs analytic", k, db[k], a[k], TOL_AD);
      check_close_i("da vs FD", k, da[k], fdp(dot4_v, pts[p], 8, k), TOL_FD);
      check_close_i("db vs FD", k, db[k], fdp(dot4_v, pts[p], 8, 4 + k), TOL_FD);
    }

    /* no markers: pointers default to dup */
    double da2[4] = {0}, db2[4] = {0};
    check_at("dot4 default markers point %d", p);
#ifdef NO_AD
    emul_dot4(a, da2, b, db2);
#else
    __enzyme_autodiff_v((void *)dot4, a, da2, b, db2);
#endif
    for (int k = 0; k < 4; k++) {
      check_close_i("da vs analytic", k, da2[k], b[k], TOL_AD);
      check_close_i("db vs analytic", k, db2[k], a[k], TOL_AD);
    }

    /* b inactive */
    double da3[4] = {0};
    check_at("dot4 dup,const point %d", p);
#ifdef NO_AD
    emul_dot4(a, da3, b, 0);
#else
    __enzyme_autodiff_v((void *)dot4, enzyme_dup, a, da3, enzyme_const, b);
#endif
    for (int k = 0; k < 4; k++)
      check_close_i("da (b const) vs analytic", k, da3[k], b[k], TOL_AD);
    /* inputs are not modified */
    for (int k = 0; k < 4; k++) {
      check_close_i("a unchanged", k, a[k], pts[p][k], 0.0);
      check_close_i("b unchanged", k, b[k], pts[p][4 + k], 0.0);
    }
  }
  return check_report();
}
