/* mixed_hmlstm.c: the HM-LSTM cell update of the mixed-mode paper as an
 * elementwise C loop (mixed mode, --mode-per-loop=mixed: every elementwise
 * loop; auto would keep reverse mode here, as 2 x 6 partials are not at
 * most half of its 14 intermediates): per element, from the
 * gate pre-activations f, i, o, g, the previous cell c0 and output h0,
 * and the boundary detectors z (this layer, previous step) and zb (the
 * layer below), both 0 or 1 and read as floats:
 *   FLUSH  (z = 1):          c = s(i) tanh(g)
 *   COPY   (z = 0, zb = 0):  c = c0,                     h = h0
 *   UPDATE (z = 0, zb = 1):  c = s(f) c0 + s(i) tanh(g)
 *   otherwise                h = s(o) tanh(c)           (s: sigmoid)
 * (2 outputs by 8 inputs; all three branches in every run). The gradient
 * of sum_k (a_k c_k + b_k h_k) with respect to every input array is
 * checked against the derivatives by hand and central differences, at
 * n = 64 x 64 elements (and 1 and 0). Build with -DNO_AD to replace the
 * AD call by the hand-written derivatives. */
// enz-args: --mode-per-loop mixed
#include <math.h>
#include <string.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

#define N (64 * 64)

static double sg(double x) { return 1.0 / (1.0 + exp(-x)); }

__attribute__((noinline)) static void cell(const double *f, const double *i, const double *o,
                                           const double *g, const double *c0,
                                           const double *h0, const double *z,
                                           const double *zb, double *c, double *h, int n) {
  for (int k = 0; k < n; k++) {
    double fk = f[k], ik = i[k], ok = o[k], gk = g[k], ck = c0[k], hk = h0[k];
    double zk = z[k], zbk = zb[k];
    double cn, hn;
    if (zk > 0.5) {
      cn = sg(ik) * tanh(gk);
      hn = sg(ok) * tanh(cn);
    } else if (zbk < 0.5) {
      cn = ck;
      hn = hk;
    } else {
      cn = sg(fk) * ck + sg(ik) * tanh(gk);
      hn = sg(ok) * tanh(cn);
    }
    c[k] = cn;
    h[k] = hn;
  }
}

static double loss(const double *in, double *c, double *h, int n) {
  cell(in, in + N, in + 2 * N, in + 3 * N, in + 4 * N, in + 5 * N, in + 6 * N, in + 7 * N, c, h,
       n);
  double s = 0.0;
  for (int k = 0; k < n; k++)
    s += (1.0 + 0.001 * k) * c[k] + (0.5 - 0.0003 * k) * h[k];
  return s;
}

__attribute__((noinline)) static double L(const double *in, double *c, double *h, int n) {
  return loss(in, c, h, n);
}

/* By hand: the 6 differentiable inputs per element (z, zb get 0). */
static void grad(const double *in, int n, double *d) {
  memset(d, 0, sizeof(double) * 8 * N);
  for (int k = 0; k < n; k++) {
    double fk = in[k], ik = in[N + k], ok = in[2 * N + k], gk = in[3 * N + k];
    double ck = in[4 * N + k], zk = in[6 * N + k], zbk = in[7 * N + k];
    double a = 1.0 + 0.001 * k, b = 0.5 - 0.0003 * k;
    double si = sg(ik), so = sg(ok), sf = sg(fk), tg = tanh(gk);
    if (zk <= 0.5 && zbk < 0.5) {
      d[4 * N + k] = a;
      d[5 * N + k] = b;
      continue;
    }
    double cn = zk > 0.5 ? si * tg : sf * ck + si * tg;
    double tc = tanh(cn);
    double dc = a + b * so * (1.0 - tc * tc); /* d loss / d cn */
    d[2 * N + k] = b * tc * so * (1.0 - so);
    d[N + k] = dc * tg * si * (1.0 - si);
    d[3 * N + k] = dc * si * (1.0 - tg * tg);
    if (zk <= 0.5) {
      d[k] = dc * ck * sf * (1.0 - sf);
      d[4 * N + k] = dc * sf;
    }
  }
}

static int g_n;
static double fc[N], fh[N];
static double L_of(const double *in, int k) {
  (void)k;
  return L(in, fc, fh, g_n);
}

int main(void) {
  static double in[8 * N], d[8 * N], want[8 * N], c[N], h[N], dc[N], dh[N];
  const int ns[3] = {N, 1, 0};
  for (int t = 0; t < 3; t++) {
    int n = ns[t];
    for (int k = 0; k < N; k++) {
      in[k] = 0.3 * sin(0.01 * k);
      in[N + k] = 0.2 * cos(0.013 * k) - 0.1;
      in[2 * N + k] = 0.5 - 0.0001 * k;
      in[3 * N + k] = 0.4 * sin(0.007 * k + 1.0);
      in[4 * N + k] = 0.6 * cos(0.003 * k);
      in[5 * N + k] = -0.2 + 0.0001 * k;
      in[6 * N + k] = (k % 3 == 0) ? 1.0 : 0.0;
      in[7 * N + k] = (k % 5 < 3) ? 1.0 : 0.0;
    }
    memset(d, 0, sizeof d), memset(dc, 0, sizeof dc), memset(dh, 0, sizeof dh);
    grad(in, n, want);
    check_at("n=%d", n);
#ifdef NO_AD
    memcpy(d, want, sizeof d);
#else
    __enzyme_autodiff_v((void *)L, enzyme_dup, in, d, enzyme_dup, c, dc, enzyme_dup, h, dh,
                        enzyme_const, n);
#endif
    check_close_arr("d vs by hand", d, want, 8 * N, TOL_AD);
    g_n = n;
    for (int k = 0; k < 8 * N; k += (n > 10 ? 997 : 1)) {
      if (k >= 6 * N)
        break; /* z, zb: step functions */
      if (n < 10 && k % N >= (n > 0 ? n : 1))
        continue;
      double keep = in[k], hs = FD_REL * (1.0 + fabs(keep));
      in[k] = keep + hs;
      double hi = L_of(in, k);
      in[k] = keep - hs;
      double lo = L_of(in, k);
      in[k] = keep;
      check_close("d vs FD", d[k], (hi - lo) / (2.0 * hs), TOL_FD);
    }
  }
  return check_report();
}
