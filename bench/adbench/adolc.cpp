/*
 * adolc.cpp -- the three ADBench objectives as C++ templates over the scalar
 * type T, written from the same definitions as gmm.c, ba.c and lstm.c (see
 * the comments there for the math). T = double gives a second primal that
 * the driver checks against the C one; T = adouble gives ADOL-C tapes.
 *
 * ADOL-C usage (2.7): trace_on(tag, 0, buffer sizes) / <<= / >>= /
 * trace_off(), then the gradient() driver (GMM, LSTM: a zero-order forward
 * sweep over the tape plus one first-order reverse sweep) or the jacobian()
 * driver (BA: 3 dependents x 15 independents; ADOL-C picks reverse mode
 * with 3 adjoint directions). The buffers are sized from an estimate of the
 * tape so that tapes stay in memory (no tape files).
 */
#include <adolc/adolc.h>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>
#include "adbench.h"

extern "C" {
size_t adolc_last_ops = 0;
}

using std::exp;
using std::log;
using std::sqrt;
using std::tanh;
using std::cos;
using std::sin;

namespace {

enum { TAG_GMM = 1, TAG_BA = 2, TAG_BA_ONE = 3, TAG_LSTM = 4 };

/* trace_on with buffers for ~ops operations, so that a large tape stays in
 * core (no tape files); small tapes get ADOL-C's default buffers (smaller
 * ones make later drivers spill Taylor coefficients to files). */
void trace_on_sized(short tag, double ops) {
  double e = ops * 1.3 + 65536.0;
  if (e <= OBUFSIZE) {
    trace_on(tag);
    return;
  }
  if (e > 4.0e8)
    e = 4.0e8;
  uint ob = (uint)e, lb = (uint)(3.0 * e), vb = (uint)e, tb = (uint)(2.0 * e);
  trace_on(tag, 0, ob, lb, vb, tb);
}

size_t tape_ops(short tag) {
  size_t counts[STAT_SIZE];
  tapestats(tag, counts);
  return counts[NUM_OPERATIONS];
}

/* ---- GMM ----------------------------------------------------------------- */

template <class T> T logsumexp(const T *v, int n) {
  T mx = v[0];
  for (int i = 1; i < n; i++)
    if (v[i] > mx)
      mx = v[i];
  T s = 0.0;
  for (int i = 0; i < n; i++)
    s += exp(v[i] - mx);
  return mx + log(s);
}

double log_multigamma(double a, int p) {
  double r = 0.25 * p * (p - 1) * std::log(M_PI);
  for (int j = 1; j <= p; j++)
    r += std::lgamma(a + 0.5 * (1 - j));
  return r;
}

template <class T>
T gmm_objective(int d, int k, int n, const T *alphas, const T *means,
                const T *icf, const double *x, double gamma, int m) {
  const int tri = d * (d + 1) / 2;
  std::vector<T> qsum(k), diag((size_t)k * d), beta(k), xc(d), z(d);
  for (int c = 0; c < k; c++) {
    T s = 0.0;
    for (int j = 0; j < d; j++) {
      s += icf[c * tri + j];
      diag[c * d + j] = exp(icf[c * tri + j]);
    }
    qsum[c] = s;
  }
  T data = 0.0;
  for (int i = 0; i < n; i++) {
    const double *xi = x + (size_t)i * d;
    for (int c = 0; c < k; c++) {
      const T *mu = means + c * d;
      const T *D = &diag[c * d];
      const T *L = icf + c * tri + d;
      for (int j = 0; j < d; j++)
        xc[j] = xi[j] - mu[j];
      for (int j = 0; j < d; j++)
        z[j] = D[j] * xc[j];
      int idx = 0;
      for (int col = 0; col < d; col++)
        for (int row = col + 1; row < d; row++)
          z[row] += L[idx++] * xc[col];
      T nrm = 0.0;
      for (int j = 0; j < d; j++)
        nrm += z[j] * z[j];
      beta[c] = alphas[c] + qsum[c] - 0.5 * nrm;
    }
    data += logsumexp(&beta[0], k);
  }
  T prior = 0.0;
  for (int c = 0; c < k; c++) {
    T fro = 0.0;
    for (int j = 0; j < d; j++)
      fro += diag[c * d + j] * diag[c * d + j];
    for (int j = d; j < tri; j++)
      fro += icf[c * tri + j] * icf[c * tri + j];
    prior += 0.5 * gamma * gamma * fro - m * qsum[c];
  }
  int nu = d + m + 1;
  double wc = nu * d * (std::log(gamma) - 0.5 * std::log(2.0)) -
              log_multigamma(0.5 * nu, d);
  return -0.5 * n * d * std::log(2.0 * M_PI) + data -
         n * logsumexp(alphas, k) + prior - k * wc;
}

/* ---- BA ------------------------------------------------------------------ */

template <class T> void rodrigues(const T *r, const T *v, T *out) {
  T t2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
  if (t2 != 0.0) {
    T t = sqrt(t2), ct = cos(t), st = sin(t), it = 1.0 / t;
    T a[3] = {r[0] * it, r[1] * it, r[2] * it};
    T axv[3] = {a[1] * v[2] - a[2] * v[1], a[2] * v[0] - a[0] * v[2],
                a[0] * v[1] - a[1] * v[0]};
    T kk = (a[0] * v[0] + a[1] * v[1] + a[2] * v[2]) * (1.0 - ct);
    for (int j = 0; j < 3; j++)
      out[j] = v[j] * ct + axv[j] * st + a[j] * kk;
  } else {
    out[0] = v[0] + r[1] * v[2] - r[2] * v[1];
    out[1] = v[1] + r[2] * v[0] - r[0] * v[2];
    out[2] = v[2] + r[0] * v[1] - r[1] * v[0];
  }
}

/* F: the type of the feature (double, or adouble when it is taped as an
 * independent) */
template <class T, class F>
void ba_reproj(const T *cam, const T *X, const T &w, const F *feat, T *err) {
  T v[3] = {X[0] - cam[3], X[1] - cam[4], X[2] - cam[5]};
  T y[3];
  rodrigues(cam, v, y);
  T p0 = y[0] / y[2], p1 = y[1] / y[2];
  T r2 = p0 * p0 + p1 * p1;
  T dist = 1.0 + cam[9] * r2 + cam[10] * r2 * r2;
  err[0] = w * (cam[6] * dist * p0 + cam[7] - feat[0]);
  err[1] = w * (cam[6] * dist * p1 + cam[8] - feat[1]);
}

template <class T> T ba_werr(const T &w) { return 1.0 - w * w; }

/* tapes observation i's residuals (reproj, werr) as a function of
 * in = (cam[11], X[3], w) into tag. With feat_indep, the feature is taped
 * as two more independents (in[15], in[16]), so that the tape is valid for
 * every observation; otherwise it is a constant on the tape. */
void ba_tape(short tag, const double *in, const double *feat, int feat_indep) {
  trace_on_sized(tag, 200);
  adouble a[17], e[2], we;
  int ni = feat_indep ? 17 : 15;
  for (int j = 0; j < ni; j++)
    a[j] <<= in[j];
  if (feat_indep)
    ba_reproj<adouble, adouble>(a, a + 11, a[14], a + 15, e);
  else
    ba_reproj<adouble, double>(a, a + 11, a[14], feat, e);
  we = ba_werr<adouble>(a[14]);
  double out;
  e[0] >>= out;
  e[1] >>= out;
  we >>= out;
  trace_off();
}

/* ---- LSTM ---------------------------------------------------------------- */

template <class T> T sigmoid(const T &x) { return 1.0 / (1.0 + exp(-x)); }

template <class T>
T lstm_objective(int l, int c, int b, const T *main_params,
                 const T *extra_params, const double *state0,
                 const double *sequence) {
  std::vector<T> state(state0, state0 + 2 * l * b), in(b), y(b);
  T total = 0.0;
  for (int t = 0; t < c - 1; t++) {
    const double *x = sequence + (size_t)t * b;
    for (int j = 0; j < b; j++)
      in[j] = x[j] * extra_params[j];
    const T *inp = &in[0];
    for (int i = 0; i < l; i++) {
      const T *W = main_params + (size_t)i * 8 * b;
      const T *B = W + 4 * b;
      T *h = &state[(size_t)i * 2 * b];
      T *s = h + b;
      for (int j = 0; j < b; j++) {
        T f = sigmoid<T>(inp[j] * W[j] + B[j]);
        T gi = sigmoid<T>(h[j] * W[b + j] + B[b + j]);
        T o = sigmoid<T>(inp[j] * W[2 * b + j] + B[2 * b + j]);
        T chg = tanh(h[j] * W[3 * b + j] + B[3 * b + j]);
        s[j] = s[j] * f + gi * chg;
        h[j] = o * tanh(s[j]);
      }
      inp = h;
    }
    for (int j = 0; j < b; j++)
      y[j] = inp[j] * extra_params[b + j] + extra_params[2 * b + j];
    T lse = logsumexp(&y[0], b);
    const double *gold = sequence + (size_t)(t + 1) * b;
    for (int j = 0; j < b; j++)
      total += gold[j] * (y[j] - lse);
  }
  return -total / ((double)(c - 1) * b);
}

} // namespace

/* ---- C entry points -------------------------------------------------------- */

extern "C" double cxx_gmm_objective(int d, int k, int n, const double *alphas,
                                    const double *means, const double *icf,
                                    const double *x, double wishart_gamma,
                                    int wishart_m) {
  return gmm_objective<double>(d, k, n, alphas, means, icf, x, wishart_gamma,
                               wishart_m);
}

extern "C" int adolc_gmm_gradient(int retape, int d, int k, int n,
                                  const double *alphas, const double *means,
                                  const double *icf, const double *x,
                                  double wishart_gamma, int wishart_m,
                                  double *g) {
  const int tri = d * (d + 1) / 2;
  const size_t na = k, nm = (size_t)k * d, ni = (size_t)k * tri;
  const size_t np = na + nm + ni;
  std::vector<double> p(np);
  std::memcpy(&p[0], alphas, sizeof(double) * na);
  std::memcpy(&p[na], means, sizeof(double) * nm);
  std::memcpy(&p[na + nm], icf, sizeof(double) * ni);
  if (retape) {
    trace_on_sized(TAG_GMM, (double)n * k * (d * (d + 1) + 6.0 * d + 8));
    {
      std::vector<adouble> ap(np);
      for (size_t i = 0; i < np; i++)
        ap[i] <<= p[i];
      adouble f = gmm_objective<adouble>(d, k, n, &ap[0], &ap[na],
                                         &ap[na + nm], x, wishart_gamma,
                                         wishart_m);
      double fv;
      f >>= fv;
    }
    trace_off();
    adolc_last_ops = tape_ops(TAG_GMM);
  }
  int rc = gradient(TAG_GMM, (int)np, &p[0], g);
  return rc < -1 ? -1 : 0;
}

extern "C" void cxx_ba_objective(int n, int m, int p, const double *cams,
                                 const double *X, const double *w,
                                 const int *obs, const double *feats,
                                 double *reproj_err, double *w_err) {
  (void)n, (void)m;
  for (int i = 0; i < p; i++)
    ba_reproj<double, double>(cams + (size_t)obs[2 * i] * 11,
                      X + (size_t)obs[2 * i + 1] * 3, w[i], feats + 2 * i,
                      reproj_err + 2 * i);
  for (int i = 0; i < p; i++)
    w_err[i] = ba_werr<double>(w[i]);
}

extern "C" int adolc_ba_jacobian(int retape, int n, int m, int p,
                                 const double *cams, const double *X,
                                 const double *w, const int *obs,
                                 const double *feats, double *J) {
  (void)n, (void)m;
  static int one_taped = 0;
  double rows[3][17];
  double *jr[3] = {rows[0], rows[1], rows[2]};
  double in[17];
  if (!retape && !one_taped) {
    std::memcpy(in, cams + (size_t)obs[0] * 11, sizeof(double) * 11);
    std::memcpy(in + 11, X + (size_t)obs[1] * 3, sizeof(double) * 3);
    in[14] = w[0];
    in[15] = feats[0];
    in[16] = feats[1];
    ba_tape(TAG_BA_ONE, in, feats, 1);
    one_taped = 1;
  }
  for (int i = 0; i < p; i++) {
    std::memcpy(in, cams + (size_t)obs[2 * i] * 11, sizeof(double) * 11);
    std::memcpy(in + 11, X + (size_t)obs[2 * i + 1] * 3, sizeof(double) * 3);
    in[14] = w[i];
    int rc;
    if (retape) {
      ba_tape(TAG_BA, in, feats + 2 * i, 0);
      rc = jacobian(TAG_BA, 3, 15, in, jr);
    } else {
      in[15] = feats[2 * i];
      in[16] = feats[2 * i + 1];
      rc = jacobian(TAG_BA_ONE, 3, 17, in, jr);
    }
    if (rc < -1)
      return -1;
    double *Ji = J + (size_t)i * 31;
    std::memcpy(Ji, rows[0], sizeof(double) * 15);
    std::memcpy(Ji + 15, rows[1], sizeof(double) * 15);
    Ji[30] = rows[2][14];
  }
  return 0;
}

extern "C" double cxx_lstm_objective(int l, int c, int b,
                                     const double *main_params,
                                     const double *extra_params,
                                     const double *state,
                                     const double *sequence) {
  return lstm_objective<double>(l, c, b, main_params, extra_params, state,
                                sequence);
}

extern "C" int adolc_lstm_gradient(int retape, int l, int c, int b,
                                   const double *main_params,
                                   const double *extra_params,
                                   const double *state, const double *sequence,
                                   double *g) {
  const size_t nm = (size_t)8 * l * b, ne = (size_t)3 * b, np = nm + ne;
  std::vector<double> p(np);
  std::memcpy(&p[0], main_params, sizeof(double) * nm);
  std::memcpy(&p[nm], extra_params, sizeof(double) * ne);
  if (retape) {
    trace_on_sized(TAG_LSTM, (double)(c - 1) * b * (40.0 * l + 12.0));
    {
      std::vector<adouble> ap(np);
      for (size_t i = 0; i < np; i++)
        ap[i] <<= p[i];
      adouble f = lstm_objective<adouble>(l, c, b, &ap[0], &ap[nm], state,
                                          sequence);
      double fv;
      f >>= fv;
    }
    trace_off();
    adolc_last_ops = tape_ops(TAG_LSTM);
  }
  int rc = gradient(TAG_LSTM, (int)np, &p[0], g);
  return rc < -1 ? -1 : 0;
}
