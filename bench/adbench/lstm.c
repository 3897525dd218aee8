/*
 * lstm.c -- ADBench's D-LSTM objective, written from its definition: a
 * stack of l "diagonal" LSTM layers (element-wise weights) of width b run
 * over a sequence of c characters (b-dimensional, one-hot-ish), predicting
 * each next character; the loss is the mean cross-entropy.
 *
 *   main_params[l * 8b]: layer i has weights W_i[4b] then biases B_i[4b]
 *                        (forget, input, output, change blocks of b each)
 *   extra_params[3b]:    input scaling, output scaling, output bias
 *   state[2 l b]:        layer i hidden h_i[b] then cell s_i[b] (copied, not
 *                        modified)
 *   sequence[c b]
 *
 *   per step t < c - 1, with x = sequence_t:
 *     in = x * extra[0:b]
 *     per layer i (in = previous layer's h for i > 0):
 *       f = sigmoid(in W_f + B_f)      g_in = sigmoid(h W_i + B_i)
 *       o = sigmoid(in W_o + B_o)      chg  = tanh(h W_c + B_c)
 *       s = s f + g_in chg             h    = o tanh(s)
 *     y = h_top * extra[b:2b] + extra[2b:3b]
 *     total += sum_j sequence_{t+1,j} (y_j - logsumexp(y))
 *   loss = -total / ((c - 1) b)
 *
 * The gradient w.r.t. (main_params, extra_params) is computed by enz-rs,
 * Enzyme (the same code, built with -DAD_ENZYME), ADOL-C (adolc.cpp) and
 * central finite differences.
 *
 * -DAD_ENZYME (bench.sh's Enzyme build): only the objective and its gradient
 * wrapper, renamed with an _enzyme suffix; the driver calls
 * lstm_grad_enzyme through its weak declaration in adbench.h.
 */
#ifdef AD_ENZYME
#define lstm_objective lstm_objective_enzyme
#define lstm_grad_enz lstm_grad_enzyme
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
int lstm_no_enz = 1;
#else
int lstm_no_enz = 0;
#endif
#endif

static double sigmoid(double x) { return 1.0 / (1.0 + exp(-x)); }

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

__attribute__((noinline)) double
lstm_objective(int l, int c, int b, const double *main_params,
               const double *extra_params, const double *state0,
               const double *sequence) {
  double *state = (double *)malloc(sizeof(double) * 2 * l * b);
  double *in = (double *)malloc(sizeof(double) * b);
  double *y = (double *)malloc(sizeof(double) * b);
  memcpy(state, state0, sizeof(double) * 2 * l * b);
  double total = 0.0;
  for (int t = 0; t < c - 1; t++) {
    const double *x = sequence + (size_t)t * b;
    for (int j = 0; j < b; j++)
      in[j] = x[j] * extra_params[j];
    const double *inp = in;
    for (int i = 0; i < l; i++) {
      const double *W = main_params + (size_t)i * 8 * b;
      const double *B = W + 4 * b;
      double *h = state + (size_t)i * 2 * b;
      double *s = h + b;
      for (int j = 0; j < b; j++) {
        double f = sigmoid(inp[j] * W[j] + B[j]);
        double gi = sigmoid(h[j] * W[b + j] + B[b + j]);
        double o = sigmoid(inp[j] * W[2 * b + j] + B[2 * b + j]);
        double chg = tanh(h[j] * W[3 * b + j] + B[3 * b + j]);
        s[j] = s[j] * f + gi * chg;
        h[j] = o * tanh(s[j]);
      }
      inp = h;
    }
    for (int j = 0; j < b; j++)
      y[j] = inp[j] * extra_params[b + j] + extra_params[2 * b + j];
    double lse = logsumexp(y, b);
    const double *gold = sequence + (size_t)(t + 1) * b;
    for (int j = 0; j < b; j++)
      total += gold[j] * (y[j] - lse);
  }
  free(state);
  free(in);
  free(y);
  return -total / ((double)(c - 1) * b);
}

/* enz-rs (Enzyme with -DAD_ENZYME): the gradient lands in the shadows of
 * main_params (g[0 .. 8lb)) and extra_params (g[8lb .. 8lb + 3b)). */
void lstm_grad_enz(int l, int c, int b, const double *main_params,
                   const double *extra_params, const double *state,
                   const double *sequence, double *g) {
  size_t nm = (size_t)8 * l * b;
  memset(g, 0, sizeof(double) * (nm + 3 * (size_t)b));
#ifdef NO_ENZ
  (void)c, (void)main_params, (void)extra_params, (void)state, (void)sequence;
#else
  __enzyme_autodiff_v((void *)lstm_objective, enzyme_const, l, enzyme_const, c,
                      enzyme_const, b, enzyme_dup, main_params, g, enzyme_dup,
                      extra_params, g + nm, enzyme_const, state, enzyme_const,
                      sequence);
#endif
}

#ifndef AD_ENZYME
/* ---- driver ------------------------------------------------------------ */

typedef struct {
  int l, c, b;
  double *p; /* main_params then extra_params */
  double *main_params, *extra_params, *state, *seq, *g;
  size_t np;
} lstm_t;

static double primal(lstm_t *s) {
  return lstm_objective(s->l, s->c, s->b, s->main_params, s->extra_params,
                        s->state, s->seq);
}
static void b_primal(void *v) {
  volatile double f = primal((lstm_t *)v);
  (void)f;
}
static void b_enz(void *v) {
  lstm_t *s = (lstm_t *)v;
  lstm_grad_enz(s->l, s->c, s->b, s->main_params, s->extra_params, s->state,
                s->seq, s->g);
}
static void b_enzyme(void *v) {
  lstm_t *s = (lstm_t *)v;
  lstm_grad_enzyme(s->l, s->c, s->b, s->main_params, s->extra_params,
                   s->state, s->seq, s->g);
}
static void b_adolc(void *v) {
  lstm_t *s = (lstm_t *)v;
  adolc_lstm_gradient(1, s->l, s->c, s->b, s->main_params, s->extra_params,
                      s->state, s->seq, s->g);
}
static void b_adolc_re(void *v) {
  lstm_t *s = (lstm_t *)v;
  adolc_lstm_gradient(0, s->l, s->c, s->b, s->main_params, s->extra_params,
                      s->state, s->seq, s->g);
}
static double fd_one(lstm_t *s, size_t i) {
  double v = s->p[i], h = 1e-5 * (1.0 + fabs(v));
  s->p[i] = v + h;
  double hp = s->p[i], fp = primal(s);
  s->p[i] = v - h;
  double hm = s->p[i], fm = primal(s);
  s->p[i] = v;
  return (fp - fm) / (hp - hm);
}
static void b_fd(void *v) {
  lstm_t *s = (lstm_t *)v;
  for (size_t i = 0; i < s->np; i++)
    s->g[i] = fd_one(s, i);
}

static double lstm_tape_ops(int l, int c, int b) {
  return (double)(c - 1) * b * (40.0 * l + 12.0);
}
#define ADOLC_MAX_OPS 6e7

static void lstm_size(int l, int c, int b) {
  char size[64], params[32];
  snprintf(size, sizeof size, "l=%d c=%d b=%d", l, c, b);
  lstm_t s;
  s.l = l, s.c = c, s.b = b;
  s.np = (size_t)8 * l * b + 3 * (size_t)b;
  snprintf(params, sizeof params, "%zu", s.np);
  s.p = (double *)malloc(sizeof(double) * s.np);
  s.main_params = s.p;
  s.extra_params = s.p + (size_t)8 * l * b;
  s.state = (double *)malloc(sizeof(double) * 2 * l * b);
  s.seq = (double *)malloc(sizeof(double) * (size_t)c * b);
  s.g = (double *)malloc(sizeof(double) * s.np);
  touch_pages(s.g, sizeof(double) * s.np);

  lcg_t r;
  lcg_seed(&r, 0x15700ull + (uint64_t)l * 7919u + (uint64_t)c * 31u + b);
  for (size_t i = 0; i < (size_t)8 * l * b; i++)
    s.main_params[i] = lcg_range(&r, -1.0, 1.0);
  for (int j = 0; j < b; j++) {
    s.extra_params[j] = lcg_range(&r, 0.5, 2.0);
    s.extra_params[b + j] = lcg_range(&r, 0.5, 2.0);
    s.extra_params[2 * b + j] = lcg_range(&r, -0.5, 0.5);
  }
  for (int j = 0; j < 2 * l * b; j++)
    s.state[j] = lcg_range(&r, -0.5, 0.5);
  /* characters: one-hot, smoothed (0.9 on the character) */
  for (int t = 0; t < c; t++) {
    int ch = lcg_int(&r, b);
    for (int j = 0; j < b; j++)
      s.seq[(size_t)t * b + j] = j == ch ? 0.9 : 0.1 / (b - 1);
  }

  result_t *res = result_new("LSTM", size, params);
  printf("LSTM %s (%zu parameters)\n", size, s.np);
  fflush(stdout);

  double f = primal(&s);
  double fx = cxx_lstm_objective(l, c, b, s.main_params, s.extra_params,
                                 s.state, s.seq);
  check_value("LSTM", size, "primal C vs C++ template", fx, f, 1e-10);

  double *ge = (double *)malloc(sizeof(double) * s.np);
  double *ga = (double *)malloc(sizeof(double) * s.np);
  double *gf = (double *)malloc(sizeof(double) * s.np);
  int adolc_ok = lstm_tape_ops(l, c, b) <= ADOLC_MAX_OPS;
  if (adolc_ok &&
      adolc_lstm_gradient(1, l, c, b, s.main_params, s.extra_params, s.state,
                          s.seq, ga) < 0) {
    fprintf(stderr, "error: LSTM %s: ADOL-C gradient() failed\n", size);
    exit(3);
  }
  if (!adolc_ok) {
    result_skip(res, TOOL_ADOLC,
                "not run: the tape would hold ~%.0fM operations",
                lstm_tape_ops(l, c, b) / 1e6);
    result_skip(res, TOOL_ADOLC_RE, "not run (see ADOL-C tape+grad)");
  }
  if (!enz_missing) {
    lstm_grad_enz(l, c, b, s.main_params, s.extra_params, s.state, s.seq, ge);
    if (adolc_ok)
      check_grad("LSTM", size, "ADOL-C vs enz-rs", ga, ge, s.np, AD_RTOL);
  }
  const double *ref = enz_missing ? ga : ge;
  const char *refname = enz_missing ? "ADOL-C" : "enz-rs";
  char what[64];
  if (lstm_grad_enzyme && (!enz_missing || adolc_ok)) {
    double *gz = (double *)malloc(sizeof(double) * s.np);
    lstm_grad_enzyme(l, c, b, s.main_params, s.extra_params, s.state, s.seq,
                     gz);
    snprintf(what, sizeof what, "Enzyme vs %s", refname);
    check_grad("LSTM", size, what, gz, ref, s.np, AD_RTOL);
    free(gz);
  } else if (lstm_grad_enzyme) {
    result_skip(res, TOOL_ENZYME, "not run: no gradient to check it against");
  } else {
    result_skip_enzyme(res, "lstm.c");
  }
  snprintf(what, sizeof what, "FD vs %s", refname);
  /* central differences cost 2 primal runs per parameter: checked in full
   * when that takes <= FD_CHECK_S, timed when <= FD_TIME_S */
  double t0 = now_s();
  b_primal(&s);
  double tp = now_s() - t0;
  double fd_cost = 2.0 * (double)s.np * tp;
  if (fd_cost <= FD_CHECK_S) {
    b_fd(&s);
    memcpy(gf, s.g, sizeof(double) * s.np);
    check_grad("LSTM", size, what, gf, ref, s.np, FD_RTOL);
  } else {
    size_t idx[16];
    lcg_t rr;
    lcg_seed(&rr, 23);
    for (size_t t = 0; t < 16; t++)
      idx[t] = (size_t)lcg_int(&rr, (int)s.np);
    idx[15] = s.np - 1;
    for (size_t t = 0; t < 16; t++)
      gf[idx[t]] = fd_one(&s, idx[t]);
    strncat(what, " (spot)", sizeof what - strlen(what) - 1);
    check_grad_at("LSTM", size, what, gf, ref, s.np, idx, 16, FD_RTOL);
  }
  if (fd_cost > FD_TIME_S)
    result_skip(res, TOOL_FD,
                "not timed: %zu parameters x 2 primal runs, ~%.2g s per "
                "gradient",
                s.np, fd_cost);

  /* peak memory of one call each */
  int enzyme_ok = lstm_grad_enzyme && (!enz_missing || adolc_ok);
  res->mem_primal = peak_mb(b_primal, &s);
  if (!enz_missing)
    res->mem[TOOL_ENZ] = peak_mb(b_enz, &s);
  if (enzyme_ok)
    res->mem[TOOL_ENZYME] = peak_mb(b_enzyme, &s);

  {
    /* primal, enz-rs, Enzyme: interleaved */
    bench_fn fns[4] = {b_primal, enz_missing ? NULL : b_enz,
                        enzyme_ok ? b_enzyme : NULL, NULL};
    double t[4];
    time_interleaved(4, fns, &s, t);
    res->primal = t[0];
    if (enz_missing)
      result_skip(res, TOOL_ENZ, "FAIL: enz-rs could not build lstm.c");
    else
      res->grad[TOOL_ENZ] = t[1];
    if (enzyme_ok)
      res->grad[TOOL_ENZYME] = t[2];

  }
  if (adolc_ok) {
    res->grad[TOOL_ADOLC] = time_median(b_adolc, &s);
    b_adolc(&s);
    res->grad[TOOL_ADOLC_RE] = time_median(b_adolc_re, &s);
  }
  if (fd_cost <= FD_TIME_S)
    res->grad[TOOL_FD] = time_median(b_fd, &s);

  free(s.p);
  free(s.state);
  free(s.seq);
  free(s.g);
  free(ge);
  free(ga);
  free(gf);
}

/* One size, from its row of the table below. */
static void lstm_at(const int *s) { lstm_size(s[0], s[1], s[2]); }

void run_lstm(void) {
  /* layers, characters, alphabet, in --quick */
  static const int sizes[][4] = {
      {1, 4, 8, 1}, {2, 20, 128, 1}, {4, 1024, 128, 0}};
  for (int i = 0; i < 3; i++)
    if (size_selected(i, sizes[i][3]))
      run_size(lstm_at, sizes[i]);
}
#endif /* !AD_ENZYME */
