/*
 * stencil.c -- an in-place explicit stencil: T sweeps of a reaction-diffusion
 * update over n cells, each cell updated in place from its left neighbour
 * (already updated this sweep), itself and its right neighbour (not yet
 * updated), with a cubic reaction term; the loss is half the sum of squares
 * of the final state.
 *
 *   for t < T, for 0 < i < n - 1 (ascending):
 *     u_i <- u_i + c (u_{i-1} - 2 u_i + u_{i+1}) - s u_i^3
 *   f = 1/2 sum_i u_i^2
 *
 * The gradient w.r.t. the initial state u (n values) is computed by enz-rs,
 * Enzyme (the same code, built with -DAD_ENZYME), by hand (stencil_grad_hand
 * below: the reverse sweep over the stored old values) and by central finite
 * differences. The objective overwrites u, so every call (primal and
 * gradients alike) starts from a copy of the initial state in a scratch
 * buffer; the copy is outside the differentiated function.
 *
 * Every update overwrites a value the reverse sweep needs (u_i before its
 * update, for the derivative of the reaction term): an AD tool must keep
 * T (n - 2) doubles, which is what makes this loop a test of cache layout.
 *
 * -DAD_ENZYME (bench.sh's Enzyme build): only the objective and its gradient
 * wrapper, renamed with an _enzyme suffix; the driver calls
 * stencil_grad_enzyme through its weak declaration in adbench.h.
 */
#ifdef AD_ENZYME
#define stencil_objective stencil_objective_enzyme
#define stencil_grad_enz stencil_grad_enzyme
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
int stencil_no_enz = 1;
#else
int stencil_no_enz = 0;
#endif
#endif

__attribute__((noinline)) double stencil_objective(int n, int steps, double *u,
                                                   double c, double s) {
  for (int t = 0; t < steps; t++)
    for (int i = 1; i < n - 1; i++) {
      double v = u[i];
      u[i] = v + c * (u[i - 1] - 2.0 * v + u[i + 1]) - s * v * v * v;
    }
  double f = 0.0;
  for (int i = 0; i < n; i++)
    f += u[i] * u[i];
  return 0.5 * f;
}

/* enz-rs (Enzyme with -DAD_ENZYME): the gradient w.r.t. u0 lands in g;
 * work (n doubles) is the scratch state. */
void stencil_grad_enz(int n, int steps, const double *u0, double c, double s,
                      double *work, double *g) {
  memcpy(work, u0, sizeof(double) * (size_t)n);
  memset(g, 0, sizeof(double) * (size_t)n);
#ifdef NO_ENZ
  (void)steps, (void)c, (void)s;
#else
  __enzyme_autodiff_v((void *)stencil_objective, enzyme_const, n,
                      enzyme_const, steps, enzyme_dup, work, g, enzyme_const,
                      c, enzyme_const, s);
#endif
}

#ifndef AD_ENZYME
/* The gradient by hand: the forward sweep keeps every cell's value before
 * its update (old[t][i]), the reverse sweep runs the updates backwards.
 * With a = the adjoint of the new u_i: the old u_i gets
 * a (1 - 2c - 3 s u_i^2), u_{i-1} (new, processed next) and u_{i+1} (old,
 * already processed) each get a c. */
void stencil_grad_hand(int n, int steps, const double *u0, double c, double s,
                       double *work, double *old, double *g) {
  memcpy(work, u0, sizeof(double) * (size_t)n);
  for (int t = 0; t < steps; t++) {
    double *o = old + (size_t)t * n;
    for (int i = 1; i < n - 1; i++) {
      double v = work[i];
      o[i] = v;
      work[i] = v + c * (work[i - 1] - 2.0 * v + work[i + 1]) - s * v * v * v;
    }
  }
  for (int i = 0; i < n; i++)
    g[i] = work[i];
  for (int t = steps - 1; t >= 0; t--) {
    const double *o = old + (size_t)t * n;
    for (int i = n - 2; i >= 1; i--) {
      double a = g[i], v = o[i];
      g[i - 1] += a * c;
      g[i + 1] += a * c;
      g[i] = a * (1.0 - 2.0 * c - 3.0 * s * v * v);
    }
  }
}

/* ---- driver ------------------------------------------------------------ */

typedef struct {
  int n, steps;
  double c, s;
  double *u0, *work, *old, *g;
} stencil_t;

static double primal(stencil_t *p) {
  memcpy(p->work, p->u0, sizeof(double) * (size_t)p->n);
  return stencil_objective(p->n, p->steps, p->work, p->c, p->s);
}
static void b_primal(void *v) {
  volatile double f = primal((stencil_t *)v);
  (void)f;
}
static void b_enz(void *v) {
  stencil_t *p = (stencil_t *)v;
  stencil_grad_enz(p->n, p->steps, p->u0, p->c, p->s, p->work, p->g);
}
static void b_enzyme(void *v) {
  stencil_t *p = (stencil_t *)v;
  stencil_grad_enzyme(p->n, p->steps, p->u0, p->c, p->s, p->work, p->g);
}
static void b_hand(void *v) {
  stencil_t *p = (stencil_t *)v;
  stencil_grad_hand(p->n, p->steps, p->u0, p->c, p->s, p->work, p->old, p->g);
}
static double fd_one(stencil_t *p, size_t i) {
  double v = p->u0[i], h = 1e-6 * (1.0 + fabs(v));
  p->u0[i] = v + h;
  double hp = p->u0[i], fp = primal(p);
  p->u0[i] = v - h;
  double hm = p->u0[i], fm = primal(p);
  p->u0[i] = v;
  return (fp - fm) / (hp - hm);
}

static void stencil_size(int n, int steps) {
  char size[64], params[32];
  snprintf(size, sizeof size, "n=%d T=%d", n, steps);
  snprintf(params, sizeof params, "%d", n);
  stencil_t p;
  p.n = n, p.steps = steps;
  /* stable: c < 1/2, small reaction */
  p.c = 0.2, p.s = 0.05;
  p.u0 = (double *)malloc(sizeof(double) * (size_t)n);
  p.work = (double *)malloc(sizeof(double) * (size_t)n);
  p.g = (double *)malloc(sizeof(double) * (size_t)n);
  p.old = (double *)malloc(sizeof(double) * (size_t)n * steps);
  touch_pages(p.work, sizeof(double) * (size_t)n);
  touch_pages(p.g, sizeof(double) * (size_t)n);
  touch_pages(p.old, sizeof(double) * (size_t)n * steps);
  lcg_t r;
  lcg_seed(&r, 0x57e9c11ull + (uint64_t)n * 31u + (uint64_t)steps);
  for (int i = 0; i < n; i++)
    p.u0[i] = lcg_range(&r, -1.0, 1.0);

  result_t *res = result_new("Stencil", size, params);
  printf("Stencil %s (%d parameters)\n", size, n);
  fflush(stdout);

  double *ge = (double *)malloc(sizeof(double) * (size_t)n);
  double *gh = (double *)malloc(sizeof(double) * (size_t)n);
  stencil_grad_hand(n, steps, p.u0, p.c, p.s, p.work, p.old, gh);
  if (!enz_missing) {
    stencil_grad_enz(n, steps, p.u0, p.c, p.s, p.work, ge);
    check_grad("Stencil", size, "hand-written vs enz-rs", gh, ge, (size_t)n,
               AD_RTOL);
  }
  const double *ref = enz_missing ? gh : ge;
  const char *refname = enz_missing ? "hand-written" : "enz-rs";
  char what[64];
  /* Enzyme is checked against enz-rs once enz-rs agrees with the
   * hand-written gradient (above) and FD (below); a disagreement is then
   * Enzyme's: its column reads WRONG and it is not timed */
  int enzyme_ok = 0;
  double *gz = NULL;
  if (stencil_grad_enzyme) {
    gz = (double *)malloc(sizeof(double) * (size_t)n);
    stencil_grad_enzyme(n, steps, p.u0, p.c, p.s, p.work, gz);
  } else {
    result_skip_enzyme(res, "stencil.c");
  }
  /* central differences at spot components: cells spread over the domain,
   * the boundary cells (not updated) and their neighbours included */
  {
    size_t idx[16];
    double *gf = (double *)malloc(sizeof(double) * (size_t)n);
    lcg_t rr;
    lcg_seed(&rr, 29);
    for (size_t t = 0; t < 12; t++)
      idx[t] = (size_t)lcg_int(&rr, n);
    idx[12] = 0, idx[13] = 1, idx[14] = (size_t)n - 2, idx[15] = (size_t)n - 1;
    for (size_t t = 0; t < 16; t++)
      gf[idx[t]] = fd_one(&p, idx[t]);
    snprintf(what, sizeof what, "FD vs %s (spot)", refname);
    check_grad_at("Stencil", size, what, gf, ref, (size_t)n, idx, 16,
                  FD_RTOL);
    free(gf);
  }
  if (gz) {
    snprintf(what, sizeof what, "Enzyme vs %s", refname);
    size_t bad =
        check_peer_grad("Stencil", size, what, gz, ref, (size_t)n, AD_RTOL);
    if (bad)
      result_skip(res, TOOL_ENZYME,
                  "WRONG: differs from enz-rs, hand-written and FD in "
                  "%zu of %d components; not timed",
                  bad, n);
    else
      enzyme_ok = 1;
    free(gz);
  }
  double t0 = now_s();
  b_primal(&p);
  double fd_cost = 2.0 * n * (now_s() - t0);
  result_skip(res, TOOL_ADOLC, "not run: no ADOL-C version of this objective");
  result_skip(res, TOOL_ADOLC_RE,
              "not run: no ADOL-C version of this objective");
  result_skip(res, TOOL_FD,
              "not timed: %d parameters x 2 primal runs, ~%.2g s per "
              "gradient",
              n, fd_cost);

  res->mem_primal = peak_mb(b_primal, &p);
  if (!enz_missing)
    res->mem[TOOL_ENZ] = peak_mb(b_enz, &p);
  if (enzyme_ok)
    res->mem[TOOL_ENZYME] = peak_mb(b_enzyme, &p);
  /* the hand-written gradient's trajectory (n T doubles) is allocated by
   * the driver, not by the call: its peak is not comparable, not measured */

  {
    /* primal, enz-rs, Enzyme, hand-written: interleaved */
    bench_fn fns[4] = {b_primal, enz_missing ? NULL : b_enz,
                       enzyme_ok ? b_enzyme : NULL, b_hand};
    double t[4];
    time_interleaved(4, fns, &p, t);
    res->primal = t[0];
    if (enz_missing)
      result_skip(res, TOOL_ENZ, "FAIL: enz-rs could not build stencil.c");
    else
      res->grad[TOOL_ENZ] = t[1];
    if (enzyme_ok)
      res->grad[TOOL_ENZYME] = t[2];
    res->grad[TOOL_HAND] = t[3];
  }

  free(p.u0);
  free(p.work);
  free(p.g);
  free(p.old);
  free(ge);
  free(gh);
}

/* One size, from its row of the table below. */
static void stencil_at(const int *s) { stencil_size(s[0], s[1]); }

void run_stencil(void) {
  /* cells, steps, in --quick */
  static const int sizes[][3] = {{2000, 20, 1}, {20000, 200, 0}};
  for (int i = 0; i < 2; i++)
    if (size_selected(i, sizes[i][2]))
      run_size(stencil_at, sizes[i]);
}
#endif /* !AD_ENZYME */
