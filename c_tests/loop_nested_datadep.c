/* loop_nested_datadep.c: a loop nest whose inner trip count is read from an
 * int array per outer iteration (k_i = cnt[i], 0 included), so the caches of
 * the inner loop are ragged: sum_i k_i values, not n * max k.
 *   f(x, y, cnt, n) = sum_i t_i^2 w_i, w_i = 1 + 0.05 i, where
 *     t = x_i; for (j < cnt[i]) t = 0.5 t + 0.4 sin(t) + 0.1 y_j
 *   x (n = 24) and y (length 9) dup, cnt enzyme_const (an int array).
 * The reference is a hand-written reverse sweep over each inner trajectory.
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

static double f(double *x, double *y, int *cnt, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    double t = x[i];
    for (int j = 0; j < cnt[i]; j++)
      t = 0.5 * t + 0.4 * sin(t) + 0.1 * y[j];
    s += t * t * (1.0 + 0.05 * i);
  }
  return s;
}

#define N 24
#define KMAX 9

static void ref_grad(const double *x, const double *y, const int *cnt, int n,
                     double *gx, double *gy) {
  for (int j = 0; j < KMAX; j++)
    gy[j] = 0.0;
  for (int i = 0; i < n; i++) {
    double t[KMAX + 1], dt;
    t[0] = x[i];
    for (int j = 0; j < cnt[i]; j++)
      t[j + 1] = 0.5 * t[j] + 0.4 * sin(t[j]) + 0.1 * y[j];
    dt = 2.0 * t[cnt[i]] * (1.0 + 0.05 * i);
    for (int j = cnt[i] - 1; j >= 0; j--) {
      gy[j] += 0.1 * dt;
      dt *= 0.5 + 0.4 * cos(t[j]);
    }
    gx[i] = dt;
  }
}

static double *g_x, *g_y;
static int *g_cnt;
static double f_x(double *x, int n) { return f(x, g_y, g_cnt, n); }
static double f_y(double *y, int n) {
  (void)n;
  return f(g_x, y, g_cnt, N);
}

#ifdef NO_AD
static void emul(double *x, double *dx, double *y, double *dy, int *cnt,
                 int n) {
  double gx[N], gy[KMAX];
  ref_grad(x, y, cnt, n, gx, gy);
  for (int i = 0; i < n; i++)
    dx[i] += gx[i];
  for (int j = 0; j < KMAX; j++)
    dy[j] += gy[j];
}
#endif

int main(void) {
  int cnts[2][N];
  for (int i = 0; i < N; i++) {
    cnts[0][i] = (i * 7 + 3) % 10;       /* 3 0 7 4 1 8 5 2 9 6 ... */
    cnts[1][i] = i % 3 == 0 ? 0 : KMAX - i % 4; /* zeros, and 6..9 */
  }
  for (int p = 0; p < 2; p++) {
    double x[N], y[KMAX], dx[N] = {0}, dy[KMAX] = {0}, gx[N], gy[KMAX],
                          fx[N], fy[KMAX];
    int *cnt = cnts[p];
    for (int i = 0; i < N; i++)
      x[i] = 1.2 * sin(0.9 * i + p) + 0.2;
    for (int j = 0; j < KMAX; j++)
      y[j] = cos(1.4 * j) + 0.3;
    g_x = x;
    g_y = y;
    g_cnt = cnt;
    ref_grad(x, y, cnt, N, gx, gy);
    check_at("f counts %d", p);
#ifdef NO_AD
    emul(x, dx, y, dy, cnt, N);
#else
    __enzyme_autodiff_v((void *)f, enzyme_dup, x, dx, enzyme_dup, y, dy,
                        enzyme_const, cnt, N);
#endif
    check_close_arr("dx vs reference", dx, gx, N, TOL_AD);
    check_close_arr("dy vs reference", dy, gy, KMAX, TOL_AD);
    for (int i = 0; i < N; i++)
      fx[i] = fdpn(f_x, x, N, i);
    for (int j = 0; j < KMAX; j++)
      fy[j] = fdpn(f_y, y, KMAX, j);
    check_close_arr("dx vs FD", dx, fx, N, TOL_FD);
    check_close_arr("dy vs FD", dy, fy, KMAX, TOL_FD);
  }
  return check_report();
}
