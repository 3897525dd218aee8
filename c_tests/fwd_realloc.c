/* fwd_realloc.c: forward mode through a temporary buffer grown with realloc
 * (malloc 2 doubles, fill, realloc to 4, fill the new slots, combine, free):
 * the tangent buffer must follow the realloc (old tangents kept). Also a
 * buffer doubled by realloc inside a loop over an int length n.
 *   t = {x0 x1, sin x0, x1 x2, exp x2}
 *   f = t0 t2 + t1 t3 + t0 t3 = a b^2 c + e^c (sin a + a b)
 *   grow(x, n): push x[k]^2 into a realloc-grown buffer, then
 *               sum_k buf[k] * buf[n-1-k]
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include <stdlib.h>
#include "enzyme.h"
#include "check.h"

static double f(double *x) {
  double *t = (double *)malloc(2 * sizeof(double));
  t[0] = x[0] * x[1];
  t[1] = sin(x[0]);
  t = (double *)realloc(t, 4 * sizeof(double));
  t[2] = x[1] * x[2];
  t[3] = exp(x[2]);
  double r = t[0] * t[2] + t[1] * t[3] + t[0] * t[3];
  free(t);
  return r;
}
static void grad(const double *x, double *g) {
  double a = x[0], b = x[1], c = x[2], e = exp(c);
  g[0] = b * b * c + e * (cos(a) + b);
  g[1] = 2.0 * a * b * c + a * e;
  g[2] = a * b * b + e * (sin(a) + a * b);
}

static double grow(double *x, int n) {
  int cap = 1, len = 0;
  double *buf = (double *)malloc(sizeof(double));
  for (int k = 0; k < n; k++) {
    if (len == cap) {
      cap *= 2;
      buf = (double *)realloc(buf, (size_t)cap * sizeof(double));
    }
    buf[len++] = x[k] * x[k];
  }
  double s = 0.0;
  for (int k = 0; k < n; k++)
    s += buf[k] * buf[n - 1 - k];
  free(buf);
  return s;
}
/* s = sum_k x_k^2 x_(n-1-k)^2: d/dt = sum_k 2 x_k x_m^2 v_k + 2 x_k^2 x_m v_m */
static double grow_dir(const double *x, const double *v, int n) {
  double t = 0.0;
  for (int k = 0; k < n; k++) {
    int m = n - 1 - k;
    t += 2.0 * x[k] * x[m] * x[m] * v[k] + 2.0 * x[k] * x[k] * x[m] * v[m];
  }
  return t;
}

#ifdef NO_AD
static double emul_f(double *x, double *dx) {
  double g[3];
  grad(x, g);
  return g[0] * dx[0] + g[1] * dx[1] + g[2] * dx[2];
}
static double emul_grow(double *x, double *dx, int n) { return grow_dir(x, dx, n); }
#endif

#define NG 19

int main(void) {
  const double pts[2][3] = {{0.9, -1.4, 0.3}, {-0.6, 0.8, -1.1}};
  check_seed(12);
  for (int p = 0; p < 2; p++) {
    double x[3], dx[3], v[3], g[3];
    check_rand_dir(v, 3);
    for (int k = 0; k < 3; k++) {
      x[k] = pts[p][k];
      dx[k] = v[k];
    }
    grad(x, g);
    check_at("f point %d", p);
#ifdef NO_AD
    double t = emul_f(x, dx);
#else
    double t = __enzyme_fwddiff((void *)f, enzyme_dup, x, dx);
#endif
    check_close("tangent vs analytic", t, g[0] * v[0] + g[1] * v[1] + g[2] * v[2], TOL_AD);
    check_close("tangent vs FD", t, fddir(f, pts[p], v, 3), TOL_FD);
  }
  const int ns[3] = {1, 5, NG};
  for (int q = 0; q < 3; q++) {
    int n = ns[q];
    double x[NG], v[NG];
    for (int k = 0; k < n; k++)
      x[k] = 0.9 * cos(0.7 * k + 0.2) - 0.1;
    check_rand_dir(v, n);
    check_at("grow n=%d", n);
#ifdef NO_AD
    double t = emul_grow(x, v, n);
#else
    double t = __enzyme_fwddiff((void *)grow, enzyme_dup, x, v, n);
#endif
    check_close("tangent vs analytic", t, grow_dir(x, v, n), TOL_AD);
    check_close("tangent vs FD", t, fddirn(grow, x, v, n), TOL_FD);
  }
  return check_report();
}
