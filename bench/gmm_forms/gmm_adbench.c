/*
 * gmm_adbench.c -- the GMM objective written the way ADBench's C reference
 * writes it (beside bench/adbench/gmm.c, which writes it from its
 * mathematical definition): helper functions (subtract, Qtimesx, sqnorm,
 * log_sum_exp), scratch vectors the point loop overwrites, the triangular
 * product `out[j] = out[j] + ltri[idx] * x[i]` for j > i, and the result
 * written through an output pointer, `*err = ...`, which the compiler
 * cannot tell from the inputs.
 *
 * The driver (bench/gmm_forms/driver.c, scripts/bench-gmm-forms.sh) times
 * the primal and enz-rs's gradient and checks the gradient against central
 * differences.
 */
#include <math.h>
#include <stdlib.h>

typedef struct {
  double gamma;
  int m;
} Wishart;

double arr_max(int n, const double *x) {
  double m = x[0];
  for (int i = 1; i < n; i++)
    if (m < x[i])
      m = x[i];
  return m;
}

double sqnorm(int n, const double *x) {
  double r = x[0] * x[0];
  for (int i = 1; i < n; i++)
    r = r + x[i] * x[i];
  return r;
}

void subtract(int d, const double *x, const double *y, double *out) {
  for (int i = 0; i < d; i++)
    out[i] = x[i] - y[i];
}

double log_sum_exp(int n, const double *x) {
  double mx = arr_max(n, x);
  double s = 0.;
  for (int i = 0; i < n; i++)
    s = s + exp(x[i] - mx);
  return log(s) + mx;
}

double log_gamma_distrib(double a, double p) {
  double out = 0.25 * p * (p - 1) * log(M_PI);
  for (int j = 1; j <= p; j++)
    out = out + lgamma(a + 0.5 * (1 - j));
  return out;
}

double log_wishart_prior(int p, int k, Wishart w, const double *sum_qs, const double *Qdiags,
                         const double *icf) {
  int n = p + w.m + 1;
  int icf_sz = p * (p + 1) / 2;
  double C = n * p * (log(w.gamma) - 0.5 * log(2)) - log_gamma_distrib(0.5 * n, p);
  double out = 0;
  for (int ik = 0; ik < k; ik++) {
    double frobenius = sqnorm(p, &Qdiags[ik * p]) + sqnorm(icf_sz - p, &icf[ik * icf_sz + p]);
    out = out + 0.5 * w.gamma * w.gamma * frobenius - w.m * sum_qs[ik];
  }
  return out - k * C;
}

void preprocess_qs(int d, int k, const double *icf, double *sum_qs, double *Qdiags) {
  int icf_sz = d * (d + 1) / 2;
  for (int ik = 0; ik < k; ik++) {
    sum_qs[ik] = 0.;
    for (int id = 0; id < d; id++) {
      double q = icf[ik * icf_sz + id];
      sum_qs[ik] = sum_qs[ik] + q;
      Qdiags[ik * d + id] = exp(q);
    }
  }
}

void Qtimesx(int d, const double *Qdiag, const double *ltri, const double *x, double *out) {
  for (int id = 0; id < d; id++)
    out[id] = Qdiag[id] * x[id];
  int Lparamsidx = 0;
  for (int i = 0; i < d; i++)
    for (int j = i + 1; j < d; j++) {
      out[j] = out[j] + ltri[Lparamsidx] * x[i];
      Lparamsidx++;
    }
}

void gmm_objective(int d, int k, int n, const double *alphas, const double *means,
                   const double *icf, const double *x, Wishart wishart, double *err) {
  const double CONSTANT = -n * d * 0.5 * log(2 * M_PI);
  int icf_sz = d * (d + 1) / 2;
  double *Qdiags = malloc(d * k * sizeof(double));
  double *sum_qs = malloc(k * sizeof(double));
  double *xcentered = malloc(d * sizeof(double));
  double *Qxcentered = malloc(d * sizeof(double));
  double *main_term = malloc(k * sizeof(double));
  preprocess_qs(d, k, icf, sum_qs, Qdiags);
  double slse = 0.;
  for (int ix = 0; ix < n; ix++) {
    for (int ik = 0; ik < k; ik++) {
      subtract(d, &x[ix * d], &means[ik * d], xcentered);
      Qtimesx(d, &Qdiags[ik * d], &icf[ik * icf_sz + d], xcentered, Qxcentered);
      main_term[ik] = alphas[ik] + sum_qs[ik] - 0.5 * sqnorm(d, Qxcentered);
    }
    slse = slse + log_sum_exp(k, main_term);
  }
  double lse_alphas = log_sum_exp(k, alphas);
  *err = CONSTANT + slse - n * lse_alphas +
         log_wishart_prior(d, k, wishart, sum_qs, Qdiags, icf);
  free(Qdiags);
  free(sum_qs);
  free(xcentered);
  free(Qxcentered);
  free(main_term);
}
