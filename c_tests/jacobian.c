/* jacobian.c: the full 3 x 4 Jacobian of f: R^4 -> R^3,
 *   y0 = x0 x1 + sin(x2)
 *   y1 = exp(0.5 x3) x0 - x2^2
 *   y2 = x1 x2 x3 + cos(x0 x3)
 * computed
 *   (a) by vector forward mode, width 4, in one call: the 4 tangent
 *       directions of x are the unit vectors, and y's 4 tangent arrays
 *       receive the 4 columns;
 *   (b) by 4 scalar forward calls (one column each);
 *   (c) by 3 reverse-mode calls, seeding y's shadow with each unit vector
 *       (the shadow of x, zeroed before each call, receives a row);
 * checked against each other, the analytic Jacobian and FD. The primal y
 * is checked after each call.
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include <stdlib.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_fwddiff_v(void *, ...);
void __enzyme_fwddiff_vw4(void *, ...);
void __enzyme_autodiff_v(void *, ...);

#define NX 4
#define NY 3

static void f(const double *x, double *y) {
  y[0] = x[0] * x[1] + sin(x[2]);
  y[1] = exp(0.5 * x[3]) * x[0] - x[2] * x[2];
  y[2] = x[1] * x[2] * x[3] + cos(x[0] * x[3]);
}
static void f_nc(double *x, double *y) { f(x, y); }

static void jac(const double *x, double J[NY][NX]) {
  double e = exp(0.5 * x[3]), s = sin(x[0] * x[3]);
  J[0][0] = x[1]; J[0][1] = x[0]; J[0][2] = cos(x[2]); J[0][3] = 0.0;
  J[1][0] = e; J[1][1] = 0.0; J[1][2] = -2.0 * x[2]; J[1][3] = 0.5 * e * x[0];
  J[2][0] = -s * x[3]; J[2][1] = x[2] * x[3]; J[2][2] = x[1] * x[3];
  J[2][3] = x[1] * x[2] - s * x[0];
}

#ifdef NO_AD
/* dy = J dx */
static void emul_fwd(const double *x, const double *dx, double *y, double *dy) {
  double J[NY][NX];
  jac(x, J);
  for (int i = 0; i < NY; i++) {
    dy[i] = 0.0;
    for (int k = 0; k < NX; k++)
      dy[i] += J[i][k] * dx[k];
  }
  f(x, y);
}
/* dx += J^T dy; dy = 0 */
static void emul_rev(const double *x, double *dx, double *y, double *dy) {
  double J[NY][NX];
  jac(x, J);
  for (int k = 0; k < NX; k++)
    for (int i = 0; i < NY; i++)
      dx[k] += J[i][k] * dy[i];
  for (int i = 0; i < NY; i++)
    dy[i] = 0.0;
  f(x, y);
}
#endif

static void check_y(const double *x, const double *y) {
  double yw[NY];
  f(x, yw);
  check_close_arr("primal y", y, yw, NY, TOL_AD);
}

int main(void) {
  const double pts[3][NX] = {{0.7, -1.2, 0.4, 0.9}, {-0.5, 0.8, -1.6, 0.3},
                             {1.3, 0.2, 2.2, -1.1}};
  for (int p = 0; p < 3; p++) {
    double x[NX], J[NY][NX], Jfd[NY][NX], e[NX][NX];
    for (int k = 0; k < NX; k++)
      x[k] = pts[p][k];
    jac(x, J);
    for (int k = 0; k < NX; k++) {
      double col[NY];
      for (int l = 0; l < NX; l++)
        e[k][l] = (k == l);
      fdjvp(f_nc, x, NX, e[k], NY, col);
      for (int i = 0; i < NY; i++)
        Jfd[i][k] = col[i];
    }

    /* (a) one vector forward call, width 4 */
    double y[NY] = {0}, C[NX][NY];
    for (int k = 0; k < NX; k++)
      for (int i = 0; i < NY; i++)
        C[k][i] = 99.0;
    check_at("vector forward width 4, point %d", p);
#ifdef NO_AD
    for (int k = 0; k < NX; k++)
      emul_fwd(x, e[k], y, C[k]);
#else
    __enzyme_fwddiff_vw4((void *)f, enzyme_width, 4, x, e[0], e[1], e[2], e[3],
                         y, C[0], C[1], C[2], C[3]);
#endif
    check_y(x, y);
    for (int k = 0; k < NX; k++) {
      double want[NY], fd[NY];
      for (int i = 0; i < NY; i++) {
        want[i] = J[i][k];
        fd[i] = Jfd[i][k];
      }
      check_at("vector forward width 4, point %d, column %d", p, k);
      check_close_arr("column vs analytic", C[k], want, NY, TOL_AD);
      check_close_arr("column vs FD", C[k], fd, NY, TOL_FD);
    }

    /* (b) four scalar forward calls */
    for (int k = 0; k < NX; k++) {
      double y1[NY] = {0}, c1[NY] = {-1.0, -1.0, -1.0};
      check_at("scalar forward, point %d, column %d", p, k);
#ifdef NO_AD
      emul_fwd(x, e[k], y1, c1);
#else
      __enzyme_fwddiff_v((void *)f, enzyme_dup, x, e[k], enzyme_dup, y1, c1);
#endif
      check_close_arr("column vs vector forward", c1, C[k], NY, TOL_AD);
      check_y(x, y1);
    }

    /* (c) three reverse calls */
    for (int i = 0; i < NY; i++) {
      double y2[NY] = {0}, dy[NY] = {0}, row[NX] = {0}, want[NX], fwd[NX], fd[NX];
      dy[i] = 1.0;
      check_at("reverse, point %d, row %d", p, i);
#ifdef NO_AD
      emul_rev(x, row, y2, dy);
#else
      __enzyme_autodiff_v((void *)f, enzyme_dup, x, row, enzyme_dup, y2, dy);
#endif
      for (int k = 0; k < NX; k++) {
        want[k] = J[i][k];
        fwd[k] = C[k][i];
        fd[k] = Jfd[i][k];
      }
      check_close_arr("row vs analytic", row, want, NX, TOL_AD);
      check_close_arr("row vs vector forward", row, fwd, NX, TOL_AD);
      check_close_arr("row vs FD", row, fd, NX, TOL_FD);
      double zero[NY] = {0};
      check_close_arr("dy consumed", dy, zero, NY, TOL_AD);
      check_y(x, y2);
    }
  }
  return check_report();
}
