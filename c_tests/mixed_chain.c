/* mixed_chain.c: an elementwise loop differentiated in mixed mode
 * (--mode-per-loop=auto): per element, a chain of 20 pow / exp /
 * log / sin / tanh steps starting from x_i, z_i and a parameter a,
 *   v_0 = x_i + a z_i,  v_{k+1} = step_k(v_k),
 *   y_i = v_20,  w_i = v_20 * z_i + v_10
 * (2 outputs by 3 inputs: 6 partials cached per element instead of about
 * 20 intermediates). d/dx_i, d/dz_i and d/da of f = sum_i (c_i y_i + e_i
 * w_i) are checked against the chain rule by hand and central
 * differences, n = 1, 7 and 300 (n = 0: nothing). Also with
 * --mode-per-loop=reverse (mixed_chain_reverse.c includes this file).
 * Build with -DNO_AD to replace the AD call by the hand-written sweep. */
// enz-args: --mode-per-loop auto
#include <math.h>
#include <string.h>
#include "enzyme.h"
#include "check.h"

double __enzyme_autodiff_d(void *, ...);

#define N 300

static double step(int k, double v) {
  switch (k % 5) {
  case 0: return exp(0.1 * v);
  case 1: return log(1.0 + v * v);
  case 2: return pow(1.0 + v * v, 0.3);
  case 3: return sin(v) + 1.5;
  default: return tanh(v) + 1.1;
  }
}

static double dstep(int k, double v) {
  switch (k % 5) {
  case 0: return 0.1 * exp(0.1 * v);
  case 1: return 2.0 * v / (1.0 + v * v);
  case 2: return 0.6 * v * pow(1.0 + v * v, -0.7);
  case 3: return cos(v);
  default: { double t = tanh(v); return 1.0 - t * t; }
  }
}

__attribute__((noinline)) static void chain(const double *x, const double *z, double *y,
                                            double *w, double a, int n) {
  for (int i = 0; i < n; i++) {
    double zi = z[i];
    double v = x[i] + a * zi;
    double mid = 0.0;
    v = exp(0.1 * v);
    v = log(1.0 + v * v);
    v = pow(1.0 + v * v, 0.3);
    v = sin(v) + 1.5;
    v = tanh(v) + 1.1;
    v = exp(0.1 * v);
    v = log(1.0 + v * v);
    v = pow(1.0 + v * v, 0.3);
    v = sin(v) + 1.5;
    v = tanh(v) + 1.1;
    mid = v;
    v = exp(0.1 * v);
    v = log(1.0 + v * v);
    v = pow(1.0 + v * v, 0.3);
    v = sin(v) + 1.5;
    v = tanh(v) + 1.1;
    v = exp(0.1 * v);
    v = log(1.0 + v * v);
    v = pow(1.0 + v * v, 0.3);
    v = sin(v) + 1.5;
    v = tanh(v) + 1.1;
    y[i] = v;
    w[i] = v * zi + mid;
  }
}

__attribute__((noinline)) static double f(const double *x, const double *z, double *y,
                                          double *w, double a, int n) {
  chain(x, z, y, w, a, n);
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += (1.0 + 0.01 * i) * y[i] + (0.5 - 0.002 * i) * w[i];
  return s;
}

/* The chain rule by hand. */
static double f_grad(const double *x, const double *z, double a, int n, double *gx,
                     double *gz) {
  double ga = 0.0;
  for (int i = 0; i < n; i++) {
    double v = x[i] + a * z[i], d = 1.0, dmid = 0.0, y = 0.0;
    for (int k = 0; k < 20; k++) {
      d *= dstep(k, v);
      v = step(k, v);
      if (k == 9)
        dmid = d;
    }
    y = v;
    double cy = 1.0 + 0.01 * i, cw = 0.5 - 0.002 * i;
    /* f_i = cy y + cw (y z + mid); y and mid depend on v_0 = x + a z. */
    double dv0 = cy * d + cw * (z[i] * d + dmid);
    gx[i] = dv0;
    gz[i] = dv0 * a + cw * y;
    ga += dv0 * z[i];
  }
  return ga;
}

static int g_n;
static double g_y[N], g_w[N];
static double f_of(const double *args, int k) {
  static double xs[N], zs[N];
  (void)k;
  memcpy(xs, args, sizeof(double) * g_n);
  memcpy(zs, args + g_n, sizeof(double) * g_n);
  return f(xs, zs, g_y, g_w, args[2 * g_n], g_n);
}

int main(void) {
  static double x[N], z[N], y[N], w[N], dx[N], dz[N], dy[N], dw[N], wx[N], wz[N];
  static double args[2 * N + 1];
  const int ns[4] = {1, 7, 300, 0};
  for (int c = 0; c < 4; c++) {
    int n = ns[c];
    double a = 0.7;
    for (int i = 0; i < n; i++) {
      x[i] = 0.2 + 0.01 * i, z[i] = 1.0 - 0.003 * i;
      dx[i] = dz[i] = dy[i] = dw[i] = 0.0;
    }
    double want_a = f_grad(x, z, a, n, wx, wz);
    check_at("n=%d", n);
#ifdef NO_AD
    memcpy(dx, wx, sizeof dx), memcpy(dz, wz, sizeof dz);
    double da = want_a;
#else
    double da = __enzyme_autodiff_d((void *)f, enzyme_dup, x, dx, enzyme_dup, z, dz,
                                    enzyme_dup, y, dy, enzyme_dup, w, dw, a, n);
#endif
    if (n > 0) {
      check_close_arr("dx vs chain rule", dx, wx, n, TOL_AD);
      check_close_arr("dz vs chain rule", dz, wz, n, TOL_AD);
    }
    check_close("da vs chain rule", da, want_a, TOL_AD);
    g_n = n;
    memcpy(args, x, sizeof(double) * n);
    memcpy(args + n, z, sizeof(double) * n);
    args[2 * n] = a;
    for (int k = 0; k <= 2 * n; k += (n > 10 ? 37 : 1)) {
      double keep = args[k], h = FD_REL * (1.0 + fabs(keep));
      args[k] = keep + h;
      double hi = f_of(args, k);
      args[k] = keep - h;
      double lo = f_of(args, k);
      args[k] = keep;
      double got = k < n ? dx[k] : k < 2 * n ? dz[k - n] : da;
      check_close("gradient vs FD", got, (hi - lo) / (2.0 * h), TOL_FD);
    }
  }
  return check_report();
}
