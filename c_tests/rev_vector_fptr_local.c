/* rev_vector_fptr_local.c: vector reverse mode (__enzyme_autodiff with
 * enzyme_width) through calls of noinline helpers, some of them made
 * through a local table of function pointers, indexed by constants (which
 * preprocessing folds to direct calls) or by a loop counter, or through a
 * pointer chosen by a branch: every target of those calls is known, so
 * they become direct calls and are inlined as well (vector reverse mode
 * needs every call with active data inlined), at every optimisation level.
 *   f(x[2], a) = h(a, x0) + t[0](x1, a) + t[1](x0 x1, 0.5),
 *   h(u, v) = sin(u) v,  g(u, v) = u^2 exp(v)/4,  t = {h, g}
 * Width 2 (both lanes seeded 1: the gradient twice) and width 3 with y's
 * shadow seeds 0, 1, 2 for a second output y = g(x0, a); lane k gives
 * grad f + k grad y.
 *   f3(x[2], a) = sum_{j<3} t[j % 2](x[j % 2], a) + (x0 > 0 ? h : g)(a, x1)
 * width 2, at points on both sides of the branch.
 * Checked against the analytic gradients and central
 * finite differences.
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

typedef double (*fn2)(double, double);
__attribute__((noinline)) static double h(double u, double v) { return sin(u) * v; }
__attribute__((noinline)) static double g(double u, double v) { return 0.25 * u * u * exp(v); }

static double f(const double *x, double a) {
  fn2 t[2] = {h, g};
  return h(a, x[0]) + t[0](x[1], a) + t[1](x[0] * x[1], 0.5);
}

static double f2(const double *x, double a, double *y) {
  fn2 t[2] = {g, h};
  y[0] = t[0](x[0], a);
  return f(x, a);
}

static double f3(const double *x, double a) {
  fn2 t[2] = {h, g};
  double s = 0.0;
  for (int j = 0; j < 3; j++)
    s += t[j % 2](x[j % 2], a);
  fn2 c = x[0] > 0 ? h : g;
  return s + c(a, x[1]);
}

static void grad_f3(const double *x, double a, double *d) {
  int pos = x[0] > 0;
  d[0] = 2 * cos(x[0]) * a;
  d[1] = 0.5 * x[1] * exp(a) + (pos ? sin(a) : 0.25 * a * a * exp(x[1]));
  d[2] = 2 * sin(x[0]) + 0.25 * x[1] * x[1] * exp(a) + (pos ? cos(a) * x[1] : 0.5 * a * exp(x[1]));
}

/* analytic gradient of f: (df/dx0, df/dx1, df/da) */
static void grad_f(const double *x, double a, double *d) {
  double p = x[0] * x[1], e = 0.5 * p * exp(0.5);
  d[0] = sin(a) + e * x[1];
  d[1] = cos(x[1]) * a + e * x[0];
  d[2] = cos(a) * x[0] + sin(x[1]);
}

/* analytic gradient of y = g(x0, a) */
static void grad_y(const double *x, double a, double *d) {
  d[0] = 0.5 * x[0] * exp(a);
  d[1] = 0.0;
  d[2] = 0.25 * x[0] * x[0] * exp(a);
}

typedef struct {
  double da[2];
} out2;
typedef struct {
  double da[3];
} out3;
out2 __enzyme_autodiff_w2(void *, ...);
out3 __enzyme_autodiff_w3(void *, ...);

static double za[3];
static double f_v(const double *z) { return f(z, z[2]); }
static double f3_v(const double *z) { return f3(z, z[2]); }
static double y_v(const double *z) {
  double y;
  f2(z, z[2], &y);
  return y;
}

int main(void) {
  const double pts[3][3] = {{0.3, 0.7, 1.2}, {-0.8, 0.4, -0.5}, {1.1, -1.3, 0.2}};
  for (int p = 0; p < 3; p++) {
    const double *z = pts[p];
    double x[2] = {z[0], z[1]}, a = z[2], wf[3], wy[3];
    grad_f(x, a, wf);
    grad_y(x, a, wy);
    for (int j = 0; j < 3; j++)
      za[j] = z[j];

    double d[2][2] = {{0}};
#ifdef NO_AD
    out2 r2 = {{wf[2], wf[2]}};
    for (int k = 0; k < 2; k++)
      for (int j = 0; j < 2; j++)
        d[k][j] = wf[j];
#else
    out2 r2 = __enzyme_autodiff_w2((void *)f, enzyme_width, 2, x, d[0], d[1], a);
#endif
    for (int k = 0; k < 2; k++) {
      check_at("f width 2 point %d lane %d", p, k);
      for (int j = 0; j < 2; j++) {
        check_close("dx vs analytic", d[k][j], wf[j], TOL_AD);
        check_close("dx vs FD", d[k][j], fdn(f_v, za, 3, j), TOL_FD);
      }
      check_close("da vs analytic", r2.da[k], wf[2], TOL_AD);
      check_close("da vs FD", r2.da[k], fdn(f_v, za, 3, 2), TOL_FD);
    }

    double w3[3], d3[2][2] = {{0}};
    grad_f3(x, a, w3);
#ifdef NO_AD
    out2 q2 = {{w3[2], w3[2]}};
    for (int k = 0; k < 2; k++)
      for (int j = 0; j < 2; j++)
        d3[k][j] = w3[j];
#else
    out2 q2 = __enzyme_autodiff_w2((void *)f3, enzyme_width, 2, x, d3[0], d3[1], a);
#endif
    for (int k = 0; k < 2; k++) {
      check_at("f3 width 2 point %d lane %d", p, k);
      for (int j = 0; j < 2; j++) {
        check_close("dx vs analytic", d3[k][j], w3[j], TOL_AD);
        check_close("dx vs FD", d3[k][j], fdn(f3_v, za, 3, j), TOL_FD);
      }
      check_close("da vs analytic", q2.da[k], w3[2], TOL_AD);
      check_close("da vs FD", q2.da[k], fdn(f3_v, za, 3, 2), TOL_FD);
    }

    double e[3][2] = {{0}}, y[1], dy[3][1] = {{0}, {1}, {2}};
#ifdef NO_AD
    out3 r3;
    for (int k = 0; k < 3; k++) {
      for (int j = 0; j < 2; j++)
        e[k][j] = wf[j] + k * wy[j];
      r3.da[k] = wf[2] + k * wy[2];
    }
#else
    out3 r3 = __enzyme_autodiff_w3((void *)f2, enzyme_width, 3, x, e[0], e[1], e[2], a,
                                   enzyme_dup, y, dy[0], dy[1], dy[2]);
#endif
    for (int k = 0; k < 3; k++) {
      check_at("f2 width 3 point %d lane %d", p, k);
      for (int j = 0; j < 2; j++) {
        check_close("dx vs analytic", e[k][j], wf[j] + k * wy[j], TOL_AD);
        check_close("dx vs FD", e[k][j], fdn(f_v, za, 3, j) + k * fdn(y_v, za, 3, j), TOL_FD);
      }
      check_close("da vs analytic", r3.da[k], wf[2] + k * wy[2], TOL_AD);
      check_close("da vs FD", r3.da[k], fdn(f_v, za, 3, 2) + k * fdn(y_v, za, 3, 2), TOL_FD);
    }
  }
  return check_report();
}
