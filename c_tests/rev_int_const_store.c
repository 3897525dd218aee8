/* rev_int_const_store.c: elements of x overwritten with a constant whose
 * bits were moved as an integer: clang folds `memcpy(&x[j], &u, 8)` with
 * u = bits(0.571) to `store i64 4603318330319733522`. Synthesis skipped
 * stores of integers, so the overwritten elements kept their derivative:
 * the output adjoint seeded on x1 and x3 survived in reverse mode, and
 * their tangents in forward mode (20 to 22 of these 48 checks failed at
 * each of -O0..-O3; found by enz-fuzz diff seed 302044). Stores of an integer
 * constant now clear the shadow they overwrite (reverse sweep: unless
 * type analysis says the memory holds pointers; forward mode: always,
 * the constant's tangent or shadow being zero).
 *   x1 = x3 = c (as bits), y = x0 x1 + sin(x1 x2) + x3 x4
 *   dy/dx = (c, 0, c cos(c x2), 0, c); x1, x3 after the call are constant
 * Reverse mode, vector reverse mode (width 2) and forward mode, with the
 * shadow of x seeded (the adjoint of x after the call), checked against
 * the analytic gradient and central finite differences.
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "enzyme.h"
#include "check.h"

#define N 5
static const double C = 0.571;

static void g(double *x, double *y) {
  uint64_t u;
  memcpy(&u, &C, 8);
  for (int j = 1; j < N; j += 2)
    memcpy(&x[j], &u, 8);
  y[0] = x[0] * x[1] + sin(x[1] * x[2]) + x[3] * x[4];
}

static double g_d(const double *z) {
  double x[N], y;
  for (int j = 0; j < N; j++) x[j] = z[j];
  g(x, &y);
  return y;
}

static void grad(const double *z, double *gr) {
  gr[0] = C, gr[1] = 0, gr[2] = C * cos(C * z[2]), gr[3] = 0, gr[4] = C;
}

void __enzyme_autodiff_v(void *, ...);
void __enzyme_fwddiff_v(void *, ...);

int main(void) {
  const double pts[2][N] = {{0.3, -0.7, 0.9, 0.4, 1.2}, {-1.1, 0.4, 1.3, -0.6, 0.8}};
  const double w[2][N] = {{0.5, 3.0, -1.0, 2.0, 0.25}, {-0.5, 1.5, 2.0, -3.0, 1.0}};
  const double s[2] = {1.0, -2.0};
  for (int p = 0; p < 2; p++) {
    const double *z = pts[p];
    double gr[N], want[2][N];
    grad(z, gr);
    for (int k = 0; k < 2; k++)
      for (int j = 0; j < N; j++)
        want[k][j] = s[k] * gr[j] + (j % 2 ? 0.0 : w[k][j]);
    double x[N], y, dx[2][N], dy[2];
    /* reverse, one lane */
    for (int j = 0; j < N; j++) x[j] = z[j], dx[0][j] = w[0][j];
    dy[0] = s[0];
#ifdef NO_AD
    for (int j = 0; j < N; j++) dx[0][j] = want[0][j];
#else
    __enzyme_autodiff_v((void *)g, x, dx[0], &y, &dy[0]);
#endif
    check_at("reverse point %d", p);
    for (int j = 0; j < N; j++) {
      check_close("vs analytic", dx[0][j], want[0][j], TOL_AD);
      check_close("vs FD", dx[0][j], s[0] * fdn(g_d, z, N, j) + (j % 2 ? 0.0 : w[0][j]),
                  TOL_FD);
    }
    /* vector reverse, two lanes */
    for (int j = 0; j < N; j++) x[j] = z[j], dx[0][j] = w[0][j], dx[1][j] = w[1][j];
    dy[0] = s[0], dy[1] = s[1];
#ifdef NO_AD
    for (int k = 0; k < 2; k++)
      for (int j = 0; j < N; j++) dx[k][j] = want[k][j];
#else
    __enzyme_autodiff_v((void *)g, enzyme_width, 2, x, dx[0], dx[1], &y, &dy[0], &dy[1]);
#endif
    for (int k = 0; k < 2; k++) {
      check_at("vector reverse point %d lane %d", p, k);
      for (int j = 0; j < N; j++)
        check_close("vs analytic", dx[k][j], want[k][j], TOL_AD);
    }
    /* forward along v: y's tangent, and x's tangents after the call */
    double v[N] = {1.0, -0.5, 0.25, 0.75, -1.5}, t = 0, dyt = 0;
    for (int j = 0; j < N; j++) x[j] = z[j], t += gr[j] * v[j];
#ifdef NO_AD
    dyt = t;
    v[1] = v[3] = 0;
#else
    __enzyme_fwddiff_v((void *)g, x, v, &y, &dyt);
#endif
    check_at("forward point %d", p);
    check_close("dy vs analytic", dyt, t, TOL_AD);
    check_close("dx1 after", v[1], 0.0, TOL_AD);
    check_close("dx3 after", v[3], 0.0, TOL_AD);
    check_close("dx2 after", v[2], 0.25, TOL_AD);
  }
  return check_report();
}
