/* mem_rows.c: a 3x3 matrix as an array of row pointers (double **rows).
 * The shadow is an array of pointers to shadow rows. f = det(A) +
 * sin(a10) * a22, written out; its gradient is the cofactor matrix plus the
 * extra term. Build with -DNO_AD to replace the AD calls by the analytic
 * derivative. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

static double f(double **r) {
  double det = r[0][0] * (r[1][1] * r[2][2] - r[1][2] * r[2][1]) -
               r[0][1] * (r[1][0] * r[2][2] - r[1][2] * r[2][0]) +
               r[0][2] * (r[1][0] * r[2][1] - r[1][1] * r[2][0]);
  return det + sin(r[1][0]) * r[2][2];
}
/* v: the 9 entries row-major */
static double f_v(double *v) {
  double *r[3] = {v, v + 3, v + 6};
  return f(r);
}
/* g[3*i+j] = df/da_ij */
static void grad(const double *a, double *g) {
#define A(i, j) a[3 * (i) + (j)]
  g[0] = A(1, 1) * A(2, 2) - A(1, 2) * A(2, 1);
  g[1] = -(A(1, 0) * A(2, 2) - A(1, 2) * A(2, 0));
  g[2] = A(1, 0) * A(2, 1) - A(1, 1) * A(2, 0);
  g[3] = -(A(0, 1) * A(2, 2) - A(0, 2) * A(2, 1));
  g[4] = A(0, 0) * A(2, 2) - A(0, 2) * A(2, 0);
  g[5] = -(A(0, 0) * A(2, 1) - A(0, 1) * A(2, 0));
  g[6] = A(0, 1) * A(1, 2) - A(0, 2) * A(1, 1);
  g[7] = -(A(0, 0) * A(1, 2) - A(0, 2) * A(1, 0));
  g[8] = A(0, 0) * A(1, 1) - A(0, 1) * A(1, 0);
  g[3] += cos(A(1, 0)) * A(2, 2);
  g[8] += sin(A(1, 0));
#undef A
}

#ifdef NO_AD
static void emul(double **r, double **dr) {
  double a[9], g[9];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      a[3 * i + j] = r[i][j];
  grad(a, g);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      dr[i][j] += g[3 * i + j];
}
#endif

int main(void) {
  const double pts[2][9] = {{1.2, -0.5, 0.3, 0.7, 2.1, -1.4, 0.25, 0.9, 1.6},
                            {-0.8, 1.5, 2.2, -1.1, 0.4, 0.6, 1.9, -0.3, -2.0}};
  for (int p = 0; p < 2; p++) {
    /* rows stored apart, not as one block */
    double r0[3], r1[3], r2[3], d0[3] = {0}, d1[3] = {0}, d2[3] = {0}, g[9];
    double *rows[3] = {r0, r1, r2}, *drows[3] = {d0, d1, d2};
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++)
        rows[i][j] = pts[p][3 * i + j];
    grad(pts[p], g);
    check_at("f point %d", p);
#ifdef NO_AD
    emul(rows, drows);
#else
    __enzyme_autodiff_v((void *)f, enzyme_dup, rows, drows);
#endif
    for (int i = 0; i < 3; i++)
      for (int j = 0; j < 3; j++) {
        int k = 3 * i + j;
        check_close_i("dA vs analytic", k, drows[i][j], g[k], TOL_AD);
        check_close_i("dA vs FD", k, drows[i][j], fdp(f_v, pts[p], 9, k), TOL_FD);
      }
    check_close("shadow row pointers kept",
                drows[0] == d0 && drows[1] == d1 && drows[2] == d2, 1.0, 0.0);
  }
  return check_report();
}
