/* rev_vector_calls.c: vector reverse mode (__enzyme_autodiff with
 * enzyme_width) through calls that are not inlined: a recursive function
 * of its scalar arguments (it touches no memory but its stack), called in
 * a loop. Each lane's reverse sweep runs the callee's augmented primal
 * again and then its reverse function, with that lane's adjoint.
 *   r(x0, x1, 0, a) = a,
 *   r(x0, x1, n, a) = sin(r(x0, x1, n - 1, a) x_{n % 2}) + x0 / 2
 *   f(x[2], a, y[1]) = sum_{j=1..3} r(x0, x1, j, a) x1,
 *   y0 = r(x0, x1, 2, a)^2
 * Width 2 (dy = 0, 0: both lanes grad f) and width 3 (dy = 0, 1, -2: lane k
 * gives grad f + s_k grad y0). The analytic gradients come from the
 * recursion differentiated by hand (forward, per parameter); checked
 * against them and central finite differences.
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

__attribute__((noinline)) static double r(double x0, double x1, int n, double a) {
  if (n == 0)
    return a;
  double t = r(x0, x1, n - 1, a) * (n % 2 ? x1 : x0);
  return sin(t) + 0.5 * x0;
}

static double f(const double *x, double a, double *y) {
  double s = 0.0;
  for (int j = 1; j <= 3; j++)
    s += r(x[0], x[1], j, a) * x[1];
  double q = r(x[0], x[1], 2, a);
  y[0] = q * q;
  return s;
}

/* r(x, n, a) and its derivatives along (x0, x1, a): dr[0..2] */
static double r_d(const double *x, int n, double a, double *dr) {
  double v = a;
  dr[0] = dr[1] = 0.0;
  dr[2] = 1.0;
  for (int m = 1; m <= n; m++) {
    int k = m % 2;
    double c = cos(v * x[k]);
    for (int p = 0; p < 3; p++)
      dr[p] = c * (dr[p] * x[k] + v * (p == k)) + 0.5 * (p == 0);
    v = sin(v * x[k]) + 0.5 * x[0];
  }
  return v;
}

static void grad_f(const double *x, double a, double *gf, double *gy) {
  double dr[3];
  for (int p = 0; p < 3; p++)
    gf[p] = 0.0;
  for (int j = 1; j <= 3; j++) {
    double v = r_d(x, j, a, dr);
    for (int p = 0; p < 3; p++)
      gf[p] += dr[p] * x[1] + v * (p == 1);
  }
  double q = r_d(x, 2, a, dr);
  for (int p = 0; p < 3; p++)
    gy[p] = 2 * q * dr[p];
}

typedef struct {
  double da[2];
} out2;
typedef struct {
  double da[3];
} out3;
out2 __enzyme_autodiff_w2(void *, ...);
out3 __enzyme_autodiff_w3(void *, ...);

static double f_v(const double *z) {
  double y;
  return f(z, z[2], &y);
}
static double y_v(const double *z) {
  double y;
  f(z, z[2], &y);
  return y;
}

int main(void) {
  const double pts[3][3] = {{0.3, 0.7, 1.2}, {-0.8, 0.4, -0.5}, {1.1, -1.3, 0.2}};
  const double s[3] = {0.0, 1.0, -2.0};
  for (int p = 0; p < 3; p++) {
    double z[3] = {pts[p][0], pts[p][1], pts[p][2]};
    double x[2] = {z[0], z[1]}, a = z[2], gf[3], gy[3], y[1];
    grad_f(x, a, gf, gy);

    double d[2][2] = {{0}}, dy2[2][1] = {{0}, {0}};
#ifdef NO_AD
    out2 r2 = {{gf[2], gf[2]}};
    for (int k = 0; k < 2; k++)
      for (int j = 0; j < 2; j++)
        d[k][j] = gf[j];
#else
    out2 r2 = __enzyme_autodiff_w2((void *)f, enzyme_width, 2, x, d[0], d[1], a, y, dy2[0],
                                   dy2[1]);
#endif
    for (int k = 0; k < 2; k++) {
      check_at("width 2 point %d lane %d", p, k);
      for (int j = 0; j < 2; j++) {
        check_close("dx vs analytic", d[k][j], gf[j], TOL_AD);
        check_close("dx vs FD", d[k][j], fdn(f_v, z, 3, j), TOL_FD);
      }
      check_close("da vs analytic", r2.da[k], gf[2], TOL_AD);
      check_close("da vs FD", r2.da[k], fdn(f_v, z, 3, 2), TOL_FD);
    }

    double e[3][2] = {{0}}, dy3[3][1] = {{s[0]}, {s[1]}, {s[2]}};
#ifdef NO_AD
    out3 r3;
    for (int k = 0; k < 3; k++) {
      for (int j = 0; j < 2; j++)
        e[k][j] = gf[j] + s[k] * gy[j];
      r3.da[k] = gf[2] + s[k] * gy[2];
    }
#else
    out3 r3 = __enzyme_autodiff_w3((void *)f, enzyme_width, 3, x, e[0], e[1], e[2], a, y,
                                   dy3[0], dy3[1], dy3[2]);
#endif
    for (int k = 0; k < 3; k++) {
      check_at("width 3 point %d lane %d", p, k);
      for (int j = 0; j < 2; j++) {
        check_close("dx vs analytic", e[k][j], gf[j] + s[k] * gy[j], TOL_AD);
        check_close("dx vs FD", e[k][j], fdn(f_v, z, 3, j) + s[k] * fdn(y_v, z, 3, j), TOL_FD);
      }
      check_close("da vs analytic", r3.da[k], gf[2] + s[k] * gy[2], TOL_AD);
      check_close("da vs FD", r3.da[k], fdn(f_v, z, 3, 2) + s[k] * fdn(y_v, z, 3, 2), TOL_FD);
    }
  }
  return check_report();
}
