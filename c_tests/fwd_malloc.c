/* fwd_malloc.c: forward mode through a malloc'ed temporary (filled from
 * active inputs, read at a variable index, freed): the tangent needs a
 * shadow allocation for it. Also a calloc'ed temporary accumulated in a
 * loop of length n (an int parameter).
 *   t = {x0 x1, sin x2, x0 + x2};  f = t[i] t[(i+1)%3] + t[2] x1
 *   h(x, n): c = calloc(n); c[k] += x[k] x[(k+1)%n]; h = sum_k c[k]^2
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include <stdlib.h>
#include "enzyme.h"
#include "check.h"

static double f(double *x, int i) {
  double *t = (double *)malloc(3 * sizeof(double));
  t[0] = x[0] * x[1];
  t[1] = sin(x[2]);
  t[2] = x[0] + x[2];
  double r = t[i] * t[(i + 1) % 3] + t[2] * x[1];
  free(t);
  return r;
}
static int g_i;
static double f_v(double *x) { return f(x, g_i); }

static void grad(const double *x, int i, double *g) {
  double t[3] = {x[0] * x[1], sin(x[2]), x[0] + x[2]};
  double J[3][3] = {{x[1], x[0], 0.0}, {0.0, 0.0, cos(x[2])}, {1.0, 0.0, 1.0}};
  int j = (i + 1) % 3;
  for (int k = 0; k < 3; k++)
    g[k] = t[j] * J[i][k] + t[i] * J[j][k] + x[1] * J[2][k];
  g[1] += t[2];
}

static double h(double *x, int n) {
  double *c = (double *)calloc((size_t)n, sizeof(double));
  double s = 0.0;
  for (int k = 0; k < n; k++)
    c[k] += x[k] * x[(k + 1) % n];
  for (int k = 0; k < n; k++)
    s += c[k] * c[k];
  free(c);
  return s;
}
/* directional derivative of h: sum_k 2 c_k (v_k x_k1 + x_k v_k1) */
static double h_dir(const double *x, const double *v, int n) {
  double t = 0.0;
  for (int k = 0; k < n; k++) {
    int k1 = (k + 1) % n;
    t += 2.0 * x[k] * x[k1] * (v[k] * x[k1] + x[k] * v[k1]);
  }
  return t;
}

#ifdef NO_AD
static double emul_f(double *x, double *dx, int i) {
  double g[3];
  grad(x, i, g);
  return g[0] * dx[0] + g[1] * dx[1] + g[2] * dx[2];
}
static double emul_h(double *x, double *dx, int n) { return h_dir(x, dx, n); }
#endif

#define NH 13

int main(void) {
  const double pts[2][3] = {{0.9, -1.4, 1.3}, {-0.6, 0.8, -2.1}};
  check_seed(8);
  for (int p = 0; p < 2; p++)
    for (int i = 0; i < 3; i++) {
      double x[3], dx[3], v[3], g[3];
      check_rand_dir(v, 3);
      for (int k = 0; k < 3; k++) {
        x[k] = pts[p][k];
        dx[k] = v[k];
      }
      g_i = i;
      grad(x, i, g);
      check_at("f i=%d point %d", i, p);
#ifdef NO_AD
      double t = emul_f(x, dx, i);
#else
      double t = __enzyme_fwddiff((void *)f, enzyme_dup, x, dx, i);
#endif
      check_close("tangent vs analytic", t, g[0] * v[0] + g[1] * v[1] + g[2] * v[2], TOL_AD);
      check_close("tangent vs FD", t, fddir(f_v, pts[p], v, 3), TOL_FD);
    }
  const int ns[3] = {1, 4, NH};
  for (int q = 0; q < 3; q++) {
    int n = ns[q];
    double x[NH], v[NH];
    for (int k = 0; k < n; k++)
      x[k] = 0.8 * sin(1.1 * k + 0.4) + 0.3;
    check_rand_dir(v, n);
    check_at("h n=%d", n);
#ifdef NO_AD
    double t = emul_h(x, v, n);
#else
    double t = __enzyme_fwddiff((void *)h, enzyme_dup, x, v, n);
#endif
    check_close("tangent vs analytic", t, h_dir(x, v, n), TOL_AD);
    check_close("tangent vs FD", t, fddirn(h, x, v, n), TOL_FD);
  }
  return check_report();
}
