/*
 * gmm.c -- ADBench's Gaussian mixture model objective, written from its
 * mathematical definition:
 *
 *   parameters: alphas[K], means[K*d], icf[K*T] with T = d(d+1)/2;
 *   icf[c*T .. c*T+d) = q_c (log of the diagonal of the inverse Cholesky
 *   factor Q_c), icf[c*T+d .. (c+1)*T) = the strictly lower triangle L_c of
 *   Q_c stored column by column; Q_c = diag(exp(q_c)) + L_c.
 *   data: x[n*d] (point-major), Wishart prior (gamma, m).
 *
 *   f = -n d/2 log(2 pi)
 *       + sum_i logsumexp_c( alpha_c + sum_j q_cj - 1/2 |Q_c (x_i - mu_c)|^2 )
 *       - n logsumexp(alpha)
 *       + sum_c ( gamma^2/2 (|exp(q_c)|^2 + |L_c|^2) - m sum_j q_cj )
 *       - K ( N d (log gamma - log(2)/2) - log Gamma_d(N/2) ),  N = d + m + 1
 *
 * The gradient w.r.t. (alphas, means, icf) is computed by enz-rs
 * (__enzyme_autodiff), Enzyme (the same code, built with -DAD_ENZYME),
 * ADOL-C (adolc.cpp), by hand (gmm_grad_hand below, the analytic gradient)
 * and by central finite differences.
 *
 * -DAD_ENZYME (bench.sh's Enzyme build): only the objective and its gradient
 * wrapper, renamed with an _enzyme suffix; the driver calls
 * gmm_grad_enzyme through its weak declaration in adbench.h.
 */
#ifdef AD_ENZYME
#define gmm_objective gmm_objective_enzyme
#define gmm_grad_enz gmm_grad_enzyme
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "adbench.h"
#include "enzyme.h"

void __enzyme_autodiff_v(void *, ...);

#ifndef AD_ENZYME
/* read by main.c: 1 when this file was compiled without enz-rs */
#ifdef NO_ENZ
int gmm_no_enz = 1;
#else
int gmm_no_enz = 0;
#endif
#endif

static double logsumexp(const double *v, int n) {
  double mx = v[0];
  for (int i = 1; i < n; i++)
    if (v[i] > mx)
      mx = v[i];
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += exp(v[i] - mx);
  return mx + log(s);
}

/* log of the multivariate gamma function Gamma_p(a) */
static double log_multigamma(double a, int p) {
  double r = 0.25 * p * (p - 1) * log(M_PI);
  for (int j = 1; j <= p; j++)
    r += lgamma(a + 0.5 * (1 - j));
  return r;
}

/* The constant part of the Wishart prior, per component. */
static double wishart_const(int d, double gamma, int m) {
  int nu = d + m + 1;
  return nu * d * (log(gamma) - 0.5 * log(2.0)) - log_multigamma(0.5 * nu, d);
}

__attribute__((noinline)) double
gmm_objective(int d, int k, int n, const double *alphas, const double *means,
              const double *icf, const double *x, double gamma, int m) {
  const int tri = d * (d + 1) / 2;
  double *qsum = (double *)malloc(sizeof(double) * k);
  double *diag = (double *)malloc(sizeof(double) * k * d);
  double *beta = (double *)malloc(sizeof(double) * k);
  double *xc = (double *)malloc(sizeof(double) * d);
  double *z = (double *)malloc(sizeof(double) * d);

  for (int c = 0; c < k; c++) {
    double s = 0.0;
    for (int j = 0; j < d; j++) {
      double q = icf[c * tri + j];
      s += q;
      diag[c * d + j] = exp(q);
    }
    qsum[c] = s;
  }

  double data = 0.0;
  for (int i = 0; i < n; i++) {
    const double *xi = x + (size_t)i * d;
    for (int c = 0; c < k; c++) {
      const double *mu = means + c * d;
      const double *D = diag + c * d;
      const double *L = icf + c * tri + d;
      for (int j = 0; j < d; j++)
        xc[j] = xi[j] - mu[j];
      for (int j = 0; j < d; j++)
        z[j] = D[j] * xc[j];
      int idx = 0;
      for (int col = 0; col < d; col++)
        for (int row = col + 1; row < d; row++)
          z[row] += L[idx++] * xc[col];
      double nrm = 0.0;
      for (int j = 0; j < d; j++)
        nrm += z[j] * z[j];
      beta[c] = alphas[c] + qsum[c] - 0.5 * nrm;
    }
    data += logsumexp(beta, k);
  }

  double prior = 0.0;
  for (int c = 0; c < k; c++) {
    double fro = 0.0;
    for (int j = 0; j < d; j++)
      fro += diag[c * d + j] * diag[c * d + j];
    for (int j = d; j < tri; j++)
      fro += icf[c * tri + j] * icf[c * tri + j];
    prior += 0.5 * gamma * gamma * fro - m * qsum[c];
  }

  double f = -0.5 * n * d * log(2.0 * M_PI) + data - n * logsumexp(alphas, k) +
             prior - k * wishart_const(d, gamma, m);
  free(qsum);
  free(diag);
  free(beta);
  free(xc);
  free(z);
  return f;
}

#ifndef AD_ENZYME
/* The analytic gradient, accumulated into g = [alphas | means | icf].
 * With r_ic = softmax_c(beta_ic), xc = x_i - mu_c, z = Q_c xc:
 *   d/d alpha_c = sum_i r_ic - n softmax(alpha)_c
 *   d/d mu_c    = sum_i r_ic Q_c^T z
 *   d/d q_cj    = sum_i r_ic (1 - z_j exp(q_cj) xc_j) + gamma^2 exp(2 q_cj) - m
 *   d/d L_c(row, col) = -sum_i r_ic z_row xc_col + gamma^2 L_c(row, col)  */
void gmm_grad_hand(int d, int k, int n, const double *alphas,
                   const double *means, const double *icf, const double *x,
                   double gamma, int m, double *g) {
  const int tri = d * (d + 1) / 2;
  double *ga = g, *gmu = g + k, *gicf = g + k + (size_t)k * d;
  double *diag = (double *)malloc(sizeof(double) * k * d);
  double *qsum = (double *)malloc(sizeof(double) * k);
  double *beta = (double *)malloc(sizeof(double) * k);
  double *XC = (double *)malloc(sizeof(double) * k * d);
  double *Z = (double *)malloc(sizeof(double) * k * d);
  memset(g, 0, sizeof(double) * ((size_t)k + (size_t)k * d + (size_t)k * tri));

  for (int c = 0; c < k; c++) {
    double s = 0.0;
    for (int j = 0; j < d; j++) {
      s += icf[c * tri + j];
      diag[c * d + j] = exp(icf[c * tri + j]);
    }
    qsum[c] = s;
  }
  for (int i = 0; i < n; i++) {
    const double *xi = x + (size_t)i * d;
    for (int c = 0; c < k; c++) {
      const double *mu = means + c * d, *D = diag + c * d,
                   *L = icf + c * tri + d;
      double *xc = XC + c * d, *z = Z + c * d;
      for (int j = 0; j < d; j++) {
        xc[j] = xi[j] - mu[j];
        z[j] = D[j] * xc[j];
      }
      int idx = 0;
      for (int col = 0; col < d; col++)
        for (int row = col + 1; row < d; row++)
          z[row] += L[idx++] * xc[col];
      double nrm = 0.0;
      for (int j = 0; j < d; j++)
        nrm += z[j] * z[j];
      beta[c] = alphas[c] + qsum[c] - 0.5 * nrm;
    }
    double lse = logsumexp(beta, k);
    for (int c = 0; c < k; c++) {
      double r = exp(beta[c] - lse);
      const double *D = diag + c * d, *L = icf + c * tri + d;
      const double *xc = XC + c * d, *z = Z + c * d;
      double *gm = gmu + c * d, *gq = gicf + c * tri, *gL = gq + d;
      ga[c] += r;
      for (int j = 0; j < d; j++) {
        gq[j] += r * (1.0 - z[j] * D[j] * xc[j]);
        gm[j] += r * D[j] * z[j];
      }
      int idx = 0;
      for (int col = 0; col < d; col++) {
        double acc = 0.0, rx = r * xc[col];
        for (int row = col + 1; row < d; row++) {
          gL[idx] -= rx * z[row];
          acc += L[idx] * z[row];
          idx++;
        }
        gm[col] += r * acc;
      }
    }
  }
  double lsa = logsumexp(alphas, k);
  for (int c = 0; c < k; c++) {
    ga[c] -= n * exp(alphas[c] - lsa);
    for (int j = 0; j < d; j++)
      gicf[c * tri + j] += gamma * gamma * diag[c * d + j] * diag[c * d + j] - m;
    for (int j = d; j < tri; j++)
      gicf[c * tri + j] += gamma * gamma * icf[c * tri + j];
  }
  free(diag);
  free(qsum);
  free(beta);
  free(XC);
  free(Z);
}

#endif /* !AD_ENZYME */

/* enz-rs (Enzyme with -DAD_ENZYME): the gradient lands in the shadows of
 * alphas, means and icf. */
void gmm_grad_enz(int d, int k, int n, const double *alphas,
                  const double *means, const double *icf, const double *x,
                  double gamma, int m, double *g) {
  const int tri = d * (d + 1) / 2;
  double *ga = g, *gmu = g + k, *gicf = g + k + (size_t)k * d;
  memset(g, 0, sizeof(double) * ((size_t)k + (size_t)k * d + (size_t)k * tri));
#ifdef NO_ENZ
  (void)ga, (void)gmu, (void)gicf, (void)alphas, (void)means, (void)icf;
  (void)x, (void)gamma, (void)m, (void)n;
#else
  __enzyme_autodiff_v((void *)gmm_objective, enzyme_const, d, enzyme_const, k,
                      enzyme_const, n, enzyme_dup, alphas, ga, enzyme_dup,
                      means, gmu, enzyme_dup, icf, gicf, enzyme_const, x,
                      enzyme_const, gamma, enzyme_const, m);
#endif
}

#ifndef AD_ENZYME
/* ---- driver ------------------------------------------------------------ */

typedef struct {
  int d, k, n, m;
  double gamma;
  double *alphas, *means, *icf, *x; /* alphas, means, icf contiguous in p */
  double *p, *g, *work;
  size_t np;
} gmm_t;

static void b_primal(void *v) {
  gmm_t *s = (gmm_t *)v;
  volatile double f = gmm_objective(s->d, s->k, s->n, s->alphas, s->means,
                                    s->icf, s->x, s->gamma, s->m);
  (void)f;
}
static void b_enz(void *v) {
  gmm_t *s = (gmm_t *)v;
  gmm_grad_enz(s->d, s->k, s->n, s->alphas, s->means, s->icf, s->x, s->gamma,
               s->m, s->g);
}
static void b_enzyme(void *v) {
  gmm_t *s = (gmm_t *)v;
  gmm_grad_enzyme(s->d, s->k, s->n, s->alphas, s->means, s->icf, s->x,
                  s->gamma, s->m, s->g);
}
static void b_hand(void *v) {
  gmm_t *s = (gmm_t *)v;
  gmm_grad_hand(s->d, s->k, s->n, s->alphas, s->means, s->icf, s->x,
                s->gamma, s->m, s->g);
}
static void b_adolc(void *v) {
  gmm_t *s = (gmm_t *)v;
  adolc_gmm_gradient(1, s->d, s->k, s->n, s->alphas, s->means, s->icf, s->x,
                     s->gamma, s->m, s->g);
}
static void b_adolc_re(void *v) {
  gmm_t *s = (gmm_t *)v;
  adolc_gmm_gradient(0, s->d, s->k, s->n, s->alphas, s->means, s->icf, s->x,
                     s->gamma, s->m, s->g);
}

static double fd_one(gmm_t *s, size_t i) {
  double v = s->p[i], h = 1e-5 * (1.0 + fabs(v));
  s->p[i] = v + h;
  double hp = s->p[i];
  double fp = gmm_objective(s->d, s->k, s->n, s->alphas, s->means, s->icf,
                            s->x, s->gamma, s->m);
  s->p[i] = v - h;
  double hm = s->p[i];
  double fm = gmm_objective(s->d, s->k, s->n, s->alphas, s->means, s->icf,
                            s->x, s->gamma, s->m);
  s->p[i] = v;
  return (fp - fm) / (hp - hm);
}
static void b_fd(void *v) {
  gmm_t *s = (gmm_t *)v;
  for (size_t i = 0; i < s->np; i++)
    s->g[i] = fd_one(s, i);
}

/* Estimated ADOL-C operations of one taping (for the feasibility cut;
 * measured with tapestats: 2.11M for d=10, K=25, n=1000). */
static double gmm_tape_ops(int d, int k, int n) {
  return (double)n * k * (0.5 * d * d + 3.0 * d + 8.0);
}
#define ADOLC_MAX_OPS 6e7

static void gmm_size(int d, int k, int n) {
  char size[64], params[32];
  snprintf(size, sizeof size, "d=%d K=%d n=%d", d, k, n);
  gmm_t s;
  memset(&s, 0, sizeof s);
  s.d = d, s.k = k, s.n = n, s.gamma = 1.0, s.m = 1;
  int tri = d * (d + 1) / 2;
  s.np = (size_t)k + (size_t)k * d + (size_t)k * tri;
  snprintf(params, sizeof params, "%zu", s.np);
  s.p = (double *)malloc(sizeof(double) * s.np);
  s.g = (double *)malloc(sizeof(double) * s.np);
  touch_pages(s.g, sizeof(double) * s.np);
  s.alphas = s.p;
  s.means = s.p + k;
  s.icf = s.p + k + (size_t)k * d;
  s.x = (double *)malloc(sizeof(double) * (size_t)n * d);

  lcg_t r;
  lcg_seed(&r, 0x6d6d67ull + (uint64_t)d * 1000003u + (uint64_t)k * 101u);
  for (int c = 0; c < k; c++)
    s.alphas[c] = lcg_normal(&r);
  for (int i = 0; i < k * d; i++)
    s.means[i] = lcg_normal(&r);
  for (int c = 0; c < k; c++) {
    for (int j = 0; j < d; j++)
      s.icf[c * tri + j] = lcg_range(&r, -0.25, 0.25);
    for (int j = d; j < tri; j++)
      s.icf[c * tri + j] = 0.5 * lcg_normal(&r) / sqrt((double)d);
  }
  for (size_t i = 0; i < (size_t)n * d; i++)
    s.x[i] = lcg_normal(&r);

  result_t *res = result_new("GMM", size, params);
  printf("GMM %s (%zu parameters)\n", size, s.np);
  fflush(stdout);

  /* primal values of the two implementations */
  double f = gmm_objective(d, k, n, s.alphas, s.means, s.icf, s.x, s.gamma,
                           s.m);
  double fx = cxx_gmm_objective(d, k, n, s.alphas, s.means, s.icf, s.x,
                                s.gamma, s.m);
  check_value("GMM", size, "primal C vs C++ template", fx, f, 1e-10);

  /* gradients, checked before anything is timed */
  double *gh = (double *)malloc(sizeof(double) * s.np);
  double *ge = (double *)malloc(sizeof(double) * s.np);
  double *ga = (double *)malloc(sizeof(double) * s.np);
  double *gf = (double *)malloc(sizeof(double) * s.np);
  gmm_grad_hand(d, k, n, s.alphas, s.means, s.icf, s.x, s.gamma, s.m, gh);
  if (!enz_missing) {
    gmm_grad_enz(d, k, n, s.alphas, s.means, s.icf, s.x, s.gamma, s.m, ge);
    check_grad("GMM", size, "enz-rs vs hand-written", ge, gh, s.np, AD_RTOL);
  }
  const double *ref = enz_missing ? gh : ge;
  const char *refname = enz_missing ? "hand-written" : "enz-rs";
  char what[64];
  if (gmm_grad_enzyme) {
    double *gz = (double *)malloc(sizeof(double) * s.np);
    gmm_grad_enzyme(d, k, n, s.alphas, s.means, s.icf, s.x, s.gamma, s.m, gz);
    snprintf(what, sizeof what, "Enzyme vs %s", refname);
    check_grad("GMM", size, what, gz, ref, s.np, AD_RTOL);
    free(gz);
  } else {
    result_skip_enzyme(res, "gmm.c");
  }
  int adolc_ok = gmm_tape_ops(d, k, n) <= ADOLC_MAX_OPS;
  if (adolc_ok) {
    if (adolc_gmm_gradient(1, d, k, n, s.alphas, s.means, s.icf, s.x, s.gamma,
                           s.m, ga) < 0) {
      fprintf(stderr, "error: GMM %s: ADOL-C gradient() failed\n", size);
      exit(3);
    }
    snprintf(what, sizeof what, "ADOL-C vs %s", refname);
    check_grad("GMM", size, what, ga, ref, s.np, AD_RTOL);
  } else {
    result_skip(res, TOOL_ADOLC,
                "not run: the tape would hold ~%.0fM operations (~%.0f GB "
                "with its Taylor buffer)",
                gmm_tape_ops(d, k, n) / 1e6,
                gmm_tape_ops(d, k, n) * 25 / 1e9);
    result_skip(res, TOOL_ADOLC_RE, "not run (see ADOL-C tape+grad)");
  }
  snprintf(what, sizeof what, "FD vs %s", refname);
  /* central differences cost 2 primal runs per parameter: checked in full
   * when that takes <= FD_CHECK_S, timed when <= FD_TIME_S */
  double t0 = now_s();
  b_primal(&s);
  double tp = now_s() - t0;
  double fd_cost = 2.0 * (double)s.np * tp;
  int full_fd = fd_cost <= FD_CHECK_S;
  if (full_fd) {
    b_fd(&s);
    memcpy(gf, s.g, sizeof(double) * s.np);
    check_grad("GMM", size, what, gf, ref, s.np, FD_RTOL);
  } else {
    /* spot check at a few components, as many as ~0.5 s of primal allows */
    size_t cnt = (size_t)(0.5 / (2 * tp + 1e-9));
    if (cnt < 3)
      cnt = 3;
    if (cnt > 24)
      cnt = 24;
    size_t idx[24];
    lcg_t rr;
    lcg_seed(&rr, 17);
    idx[0] = 0;                       /* an alpha */
    idx[1] = (size_t)k;               /* a mean */
    idx[2] = (size_t)k + (size_t)k * d; /* a log-diagonal entry */
    for (size_t t = 3; t < cnt; t++)
      idx[t] = (size_t)lcg_int(&rr, (int)s.np);
    for (size_t t = 0; t < cnt; t++)
      gf[idx[t]] = fd_one(&s, idx[t]);
    strncat(what, " (spot)", sizeof what - strlen(what) - 1);
    check_grad_at("GMM", size, what, gf, ref, s.np, idx, cnt, FD_RTOL);
  }
  if (fd_cost > FD_TIME_S)
    result_skip(res, TOOL_FD,
                "not timed: %zu parameters x 2 primal runs, ~%.2g s per "
                "gradient",
                s.np, fd_cost);

  /* peak memory of one call each */
  res->mem_primal = peak_mb(b_primal, &s);
  if (!enz_missing)
    res->mem[TOOL_ENZ] = peak_mb(b_enz, &s);
  if (gmm_grad_enzyme)
    res->mem[TOOL_ENZYME] = peak_mb(b_enzyme, &s);
  res->mem[TOOL_HAND] = peak_mb(b_hand, &s);

  /* timings */
  {
    /* primal, enz-rs, Enzyme, hand-written: interleaved */
    bench_fn fns[4] = {b_primal, enz_missing ? NULL : b_enz,
                        gmm_grad_enzyme ? b_enzyme : NULL, b_hand};
    double t[4];
    time_interleaved(4, fns, &s, t);
    res->primal = t[0];
    if (enz_missing)
      result_skip(res, TOOL_ENZ, "FAIL: enz-rs could not build gmm.c");
    else
      res->grad[TOOL_ENZ] = t[1];
    if (gmm_grad_enzyme)
      res->grad[TOOL_ENZYME] = t[2];
    res->grad[TOOL_HAND] = t[3];
  }
  if (adolc_ok) {
    res->grad[TOOL_ADOLC] = time_median(b_adolc, &s);
    b_adolc(&s); /* the tape of this point */
    res->grad[TOOL_ADOLC_RE] = time_median(b_adolc_re, &s);
  }
  if (fd_cost <= FD_TIME_S)
    res->grad[TOOL_FD] = time_median(b_fd, &s);

  free(s.p);
  free(s.g);
  free(s.x);
  free(gh);
  free(ge);
  free(ga);
  free(gf);
}

/* One size, from its row of the table below. */
static void gmm_at(const int *s) { gmm_size(s[0], s[1], s[2]); }

void run_gmm(void) {
  /* d, K, n, in --quick */
  static const int sizes[][4] = {{2, 5, 1000, 1},    {10, 25, 1000, 1},
                                 {20, 50, 1000, 0},  {64, 10, 1000, 0},
                                 {64, 200, 1000, 0}, {128, 200, 1000, 0}};
  for (int i = 0; i < 6; i++)
    if (size_selected(i, sizes[i][3]))
      run_size(gmm_at, sizes[i]);
}
#endif /* !AD_ENZYME */
