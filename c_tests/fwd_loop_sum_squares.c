/* fwd_loop_sum_squares.c: forward mode of the simplest reduction loop over
 * a dup array, the trip count n an int (const) parameter, n = 0, 1, 10, 37,
 * 100 (odd sizes leave remainders after unrolling / vectorisation):
 *   f(x, n) = sum_i x_i^2          tangent sum_i 2 x_i v_i
 *   g(x, w, n) = sum_i w_i x_i^2   w enzyme_const: sum_i 2 w_i x_i v_i;
 *                                  w enzyme_dup (tangent u) as well:
 *                                  + sum_i u_i x_i^2
 * With n = 0 the tangent is 0. The tangent arrays are only read.
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include <stdlib.h>
#include "enzyme.h"
#include "check.h"

static double f(double *x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += x[i] * x[i];
  return s;
}

static double g(double *x, double *w, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += w[i] * x[i] * x[i];
  return s;
}
static double *g_w;
static double g_of_x(double *x, int n) { return g(x, g_w, n); }

static double f_dir(const double *x, const double *v, int n) {
  double t = 0.0;
  for (int i = 0; i < n; i++)
    t += 2.0 * x[i] * v[i];
  return t;
}
static double g_dir(const double *x, const double *v, const double *w,
                    const double *u, int n) {
  double t = 0.0;
  for (int i = 0; i < n; i++)
    t += 2.0 * w[i] * x[i] * v[i] + (u ? u[i] * x[i] * x[i] : 0.0);
  return t;
}

#define NMAX 100

int main(void) {
  const int sizes[5] = {0, 1, 10, 37, 100};
  double x[NMAX], v[NMAX], w[NMAX], u[NMAX], v0[NMAX];
  for (int i = 0; i < NMAX; i++) {
    x[i] = sin(0.7 * i + 0.3) * (1.0 + 0.01 * i);
    w[i] = 0.5 + cos(1.3 * i) * 0.4;
  }
  g_w = w;
  check_seed(100);
  for (int t = 0; t < 5; t++) {
    int n = sizes[t];
    check_rand_dir(v, NMAX);
    check_rand_dir(u, NMAX);
    for (int i = 0; i < NMAX; i++)
      v0[i] = v[i];
    check_at("f n=%d", n);
#ifdef NO_AD
    double tf = f_dir(x, v, n);
#else
    double tf = __enzyme_fwddiff((void *)f, enzyme_dup, x, v, n);
#endif
    check_close("tangent vs analytic", tf, f_dir(x, v, n), TOL_AD);
    if (n > 0)
      check_close("tangent vs FD", tf, fddirn(f, x, v, n), TOL_FD);

    check_at("g n=%d (w const)", n);
#ifdef NO_AD
    double tg = g_dir(x, v, w, 0, n);
#else
    double tg = __enzyme_fwddiff((void *)g, enzyme_dup, x, v, enzyme_const, w, enzyme_const, n);
#endif
    check_close("tangent vs analytic", tg, g_dir(x, v, w, 0, n), TOL_AD);
    if (n > 0)
      check_close("tangent vs FD", tg, fddirn(g_of_x, x, v, n), TOL_FD);

    check_at("g n=%d (w dup)", n);
#ifdef NO_AD
    double tg2 = g_dir(x, v, w, u, n);
#else
    double tg2 = __enzyme_fwddiff((void *)g, x, v, w, u, n);
#endif
    check_close("tangent vs analytic", tg2, g_dir(x, v, w, u, n), TOL_AD);
    check_close_arr("v unchanged", v, v0, NMAX, 0.0);
  }
  return check_report();
}
