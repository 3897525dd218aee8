/* loop_rnn.c: a small recurrent net: a time loop around matrix-vector loops,
 * the state kept in a local array that every step overwrites (its old
 * values are needed in the reverse sweep: cache per time step, or recompute).
 *   h_0 = 0;  h_(t+1) = tanh(W h_t + u x_t)   (H = 8, t < T)
 *   rnn(W, x, u, v, T) = v . h_T
 * W (H x H) and x (T) dup, u and v (H) enzyme_const. T = 1, 12, 25.
 * The reference is backpropagation through time by hand.
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include <string.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

#define H 8
#define TMAX 25

static double rnn(double *W, double *x, double *u, double *v, int T) {
  double h[H], hn[H];
  for (int k = 0; k < H; k++)
    h[k] = 0.0;
  for (int t = 0; t < T; t++) {
    for (int k = 0; k < H; k++) {
      double a = u[k] * x[t];
      for (int l = 0; l < H; l++)
        a += W[k * H + l] * h[l];
      hn[k] = tanh(a);
    }
    for (int k = 0; k < H; k++)
      h[k] = hn[k];
  }
  double s = 0.0;
  for (int k = 0; k < H; k++)
    s += v[k] * h[k];
  return s;
}

static void bptt(const double *W, const double *x, const double *u,
                 const double *v, int T, double *gW, double *gx) {
  static double hs[TMAX + 1][H];
  double dh[H], da[H];
  for (int k = 0; k < H; k++)
    hs[0][k] = 0.0;
  for (int t = 0; t < T; t++)
    for (int k = 0; k < H; k++) {
      double a = u[k] * x[t];
      for (int l = 0; l < H; l++)
        a += W[k * H + l] * hs[t][l];
      hs[t + 1][k] = tanh(a);
    }
  for (int i = 0; i < H * H; i++)
    gW[i] = 0.0;
  for (int k = 0; k < H; k++)
    dh[k] = v[k];
  for (int t = T - 1; t >= 0; t--) {
    gx[t] = 0.0;
    for (int k = 0; k < H; k++) {
      da[k] = dh[k] * (1.0 - hs[t + 1][k] * hs[t + 1][k]);
      gx[t] += da[k] * u[k];
      for (int l = 0; l < H; l++)
        gW[k * H + l] += da[k] * hs[t][l];
    }
    for (int l = 0; l < H; l++) {
      dh[l] = 0.0;
      for (int k = 0; k < H; k++)
        dh[l] += W[k * H + l] * da[k];
    }
  }
}

typedef struct {
  double *W, *x, *u, *v;
  int T;
} ctx_t;
static double rnn_eval(void *p) {
  ctx_t *c = (ctx_t *)p;
  return rnn(c->W, c->x, c->u, c->v, c->T);
}

#ifdef NO_AD
static void emul(double *W, double *dW, double *x, double *dx, double *u,
                 double *v, int T) {
  double gW[H * H], gx[TMAX];
  bptt(W, x, u, v, T, gW, gx);
  for (int i = 0; i < H * H; i++)
    dW[i] += gW[i];
  for (int t = 0; t < T; t++)
    dx[t] += gx[t];
}
#endif

int main(void) {
  const int Ts[3] = {1, 12, 25};
  double W[H * H], u[H], v[H], x[TMAX];
  for (int k = 0; k < H; k++) {
    u[k] = 0.8 * cos(1.3 * k + 0.2);
    v[k] = 1.0 + 0.4 * sin(0.7 * k);
    for (int l = 0; l < H; l++)
      W[k * H + l] = 0.45 * sin(1.1 * k - 0.6 * l + 0.3);
  }
  for (int t = 0; t < TMAX; t++)
    x[t] = 1.5 * sin(0.5 * t + 0.1);
  for (int p = 0; p < 3; p++) {
    int T = Ts[p];
    double dW[H * H] = {0}, dx[TMAX] = {0}, gW[H * H], gx[TMAX], fW[H * H],
           fx[TMAX];
    ctx_t c = {W, x, u, v, T};
    bptt(W, x, u, v, T, gW, gx);
    check_at("rnn T=%d", T);
#ifdef NO_AD
    emul(W, dW, x, dx, u, v, T);
#else
    __enzyme_autodiff_v((void *)rnn, enzyme_dup, W, dW, enzyme_dup, x, dx,
                        enzyme_const, u, enzyme_const, v, T);
#endif
    check_close_arr("dW vs reference", dW, gW, H * H, TOL_AD);
    check_close_arr("dx vs reference", dx, gx, T, TOL_AD);
    for (int i = 0; i < H * H; i++)
      fW[i] = fd_slot(rnn_eval, &c, &W[i]);
    for (int t = 0; t < T; t++)
      fx[t] = fd_slot(rnn_eval, &c, &x[t]);
    check_close_arr("dW vs FD", dW, fW, H * H, TOL_FD);
    check_close_arr("dx vs FD", dx, fx, T, TOL_FD);
  }
  return check_report();
}
