/* repeated_iterations.c: a loop repeating one computation (LULESH's
 * EvalEOSForElems runs its equation of state `rep` times over scratch
 * arrays allocated before the loop). Every iteration computes the same
 * from memory the loop does not write, so enz-rs differentiates the last
 * one only and runs the earlier ones as primal code
 * (analysis/repeated.rs, transform/repeated.rs); loops that look alike
 * but carry something from one iteration to the next must be
 * differentiated whole:
 *   eos_like     repeated: scratch arrays written before they are read in
 *                each iteration (unrolled at -O2), a block allocated and
 *                freed inside, a conditional overwrite, sqrt;
 *   carried      the same shape, but acc[] starts from values written
 *                before the loop: each iteration reads the last one's;
 *   summed       a scalar carried around (s += ...);
 *   indexed      the iteration number used inside.
 * Reverse and forward mode against the analytic derivative of one
 * iteration (or the recurrence) and central differences, for rep = 1, 2, 5;
 * the primal outputs after each gradient call. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);
double __enzyme_autodiff_d(void *, ...);
double __enzyme_fwddiff_d(void *, ...);

#define N 7

__attribute__((noinline)) double eos_like(const double *e, const double *v, double *p_out,
                                          double *e_out, int n, int rep) {
  double *e_old = malloc(sizeof(double) * n);
  double *comp = malloc(sizeof(double) * n);
  double *work = malloc(sizeof(double) * n);
  double *p_new = malloc(sizeof(double) * n);
  double *e_new = malloc(sizeof(double) * n);
  for (int j = 0; j < rep; j++) {
    for (int i = 0; i < n; i++)
      e_old[i] = e[i];
    for (int i = 0; i < n; i++)
      comp[i] = 1.0 / v[i] - 1.0;
    for (int i = 0; i < n; i++)
      if (v[i] > 1.5)
        comp[i] = 0.0;
    for (int i = 0; i < n; i++)
      work[i] = 0.0;
    for (int i = 0; i < n; i++) {
      e_new[i] = e_old[i] - 0.5 * comp[i] * e_old[i] + work[i];
      if (e_new[i] < 0.01)
        e_new[i] = 0.01;
    }
    double *half = malloc(sizeof(double) * n);
    for (int i = 0; i < n; i++)
      half[i] = e_new[i] * (1.0 + comp[i]);
    for (int i = 0; i < n; i++)
      p_new[i] = half[i] + sqrt(e_new[i] * e_new[i] + comp[i] * comp[i]);
    free(half);
  }
  double s = 0;
  for (int i = 0; i < n; i++) {
    p_out[i] = p_new[i];
    e_out[i] = e_new[i];
    s += p_new[i] * (i + 1) + e_new[i];
  }
  free(e_old);
  free(comp);
  free(work);
  free(p_new);
  free(e_new);
  return s;
}

/* One iteration of eos_like written out, and its derivatives. */
static double comp_of(double v) { return v > 1.5 ? 0.0 : 1.0 / v - 1.0; }
static double dcomp_of(double v) { return v > 1.5 ? 0.0 : -1.0 / (v * v); }
static void eos_one(double e, double v, double *p, double *en) {
  double c = comp_of(v);
  double x = e - 0.5 * c * e;
  if (x < 0.01)
    x = 0.01;
  *en = x;
  *p = x * (1 + c) + sqrt(x * x + c * c);
}
/* d(p * w + en)/de and /dv for weight w. */
static void eos_one_grad(double e, double v, double w, double *de, double *dv) {
  double c = comp_of(v), dc = dcomp_of(v);
  double x = e - 0.5 * c * e;
  double dxde = 1 - 0.5 * c, dxdc = -0.5 * e;
  if (x < 0.01)
    x = 0.01, dxde = 0, dxdc = 0;
  double r = sqrt(x * x + c * c);
  double dpdx = (1 + c) + x / r, dpdc = x + c / r;
  double dfdx = w * dpdx + 1, dfdc = w * dpdc;
  *de = dfdx * dxde;
  *dv = (dfdx * dxdc + dfdc) * dc;
}

/* acc starts from x; each iteration halves it and adds x. */
__attribute__((noinline)) double carried(const double *x, int n, int rep) {
  double *acc = malloc(sizeof(double) * n);
  for (int i = 0; i < n; i++)
    acc[i] = x[i];
  for (int j = 0; j < rep; j++)
    for (int i = 0; i < n; i++)
      acc[i] = 0.5 * acc[i] + x[i] * x[i];
  double s = 0;
  for (int i = 0; i < n; i++)
    s += acc[i] * (i + 1);
  free(acc);
  return s;
}

__attribute__((noinline)) double summed(const double *x, int n, int rep) {
  double *t = malloc(sizeof(double) * n), s = 0;
  for (int j = 0; j < rep; j++) {
    for (int i = 0; i < n; i++)
      t[i] = x[i] * x[i];
    for (int i = 0; i < n; i++)
      s += t[i];
  }
  free(t);
  return s;
}

__attribute__((noinline)) double indexed(const double *x, int n, int rep) {
  double *t = malloc(sizeof(double) * n);
  for (int j = 0; j < rep; j++)
    for (int i = 0; i < n; i++)
      t[i] = x[i] * (j + 1);
  double s = 0;
  for (int i = 0; i < n; i++)
    s += t[i] * t[i];
  free(t);
  return s;
}

static double E[N], V[N];
static int REP;
static double f_e(const double *a) {
  double p[N], en[N];
  return eos_like(a, V, p, en, N, REP);
}
static double f_v(const double *a) {
  double p[N], en[N];
  return eos_like(E, a, p, en, N, REP);
}
static double f_carried(const double *a) { return carried(a, N, REP); }
static double f_summed(const double *a) { return summed(a, N, REP); }
static double f_indexed(const double *a) { return indexed(a, N, REP); }

int main(void) {
  for (int i = 0; i < N; i++) {
    E[i] = 0.5 + 0.3 * i;
    V[i] = 0.6 + 0.17 * i; /* v > 1.5 for the last two */
  }
  E[1] = 0.001; /* clamped to 0.01 */
  static const int reps[] = {1, 2, 5};
  for (int r = 0; r < 3; r++) {
    REP = reps[r];
    check_at("eos_like reverse, rep %d", REP);
    double de[N] = {0}, dv[N] = {0}, p[N], en[N], dp[N] = {0}, den[N] = {0};
    __enzyme_autodiff_v((void *)eos_like, enzyme_dup, E, de, enzyme_dup, V, dv, enzyme_dup,
                        p, dp, enzyme_dup, en, den, enzyme_const, N, enzyme_const, REP);
    for (int i = 0; i < N; i++) {
      double pw, enw, wde, wdv;
      eos_one(E[i], V[i], &pw, &enw);
      eos_one_grad(E[i], V[i], i + 1, &wde, &wdv);
      check_close_i("p after", i, p[i], pw, TOL_AD);
      check_close_i("e after", i, en[i], enw, TOL_AD);
      check_close_i("de vs analytic", i, de[i], wde, TOL_AD);
      check_close_i("dv vs analytic", i, dv[i], wdv, TOL_AD);
      check_close_i("de vs FD", i, de[i], fdn(f_e, E, N, i), TOL_FD);
      check_close_i("dv vs FD", i, dv[i], fdn(f_v, V, N, i), TOL_FD);
    }
    check_at("eos_like forward, rep %d", REP);
    for (int i = 0; i < N; i++) {
      double te[N] = {0}, tv[N] = {0}, tp[N], ten[N];
      te[i] = 1.0;
      double d = __enzyme_fwddiff_d((void *)eos_like, enzyme_dup, E, te, enzyme_dup, V, tv,
                                    enzyme_dup, p, tp, enzyme_dup, en, ten, enzyme_const, N,
                                    enzyme_const, REP);
      double wde, wdv;
      eos_one_grad(E[i], V[i], i + 1, &wde, &wdv);
      check_close_i("tangent along e_i", i, d, wde, TOL_AD);
      double cw = comp_of(V[i]), xw = E[i] - 0.5 * cw * E[i];
      double want_ten = xw < 0.01 ? 0.0 : 1 - 0.5 * cw;
      check_close_i("tangent of e_out[i]", i, ten[i], want_ten, TOL_AD);
    }

    check_at("carried, rep %d", REP);
    double x[N], gx[N] = {0};
    for (int i = 0; i < N; i++)
      x[i] = 0.2 + 0.1 * i;
    __enzyme_autodiff_v((void *)carried, enzyme_dup, x, gx, enzyme_const, N, enzyme_const, REP);
    for (int i = 0; i < N; i++) {
      /* acc = x / 2^rep + x^2 (1 + 1/2 + ... + 1/2^(rep-1)) */
      double h = pow(0.5, REP), geo = 2 * (1 - h);
      double want = (i + 1) * (h + 2 * x[i] * geo);
      check_close_i("dx vs analytic", i, gx[i], want, TOL_AD);
      check_close_i("dx vs FD", i, gx[i], fdn(f_carried, x, N, i), TOL_FD);
    }
    double t1[N] = {0};
    t1[3] = 1.0;
    double dc = __enzyme_fwddiff_d((void *)carried, enzyme_dup, x, t1, enzyme_const, N,
                                   enzyme_const, REP);
    check_close("carried forward along x_3", dc, fdn(f_carried, x, N, 3), TOL_FD);

    check_at("summed, rep %d", REP);
    memset(gx, 0, sizeof gx);
    __enzyme_autodiff_v((void *)summed, enzyme_dup, x, gx, enzyme_const, N, enzyme_const, REP);
    for (int i = 0; i < N; i++) {
      check_close_i("dx vs analytic", i, gx[i], 2 * REP * x[i], TOL_AD);
      check_close_i("dx vs FD", i, gx[i], fdn(f_summed, x, N, i), TOL_FD);
    }

    check_at("indexed, rep %d", REP);
    memset(gx, 0, sizeof gx);
    __enzyme_autodiff_v((void *)indexed, enzyme_dup, x, gx, enzyme_const, N, enzyme_const, REP);
    for (int i = 0; i < N; i++) {
      check_close_i("dx vs analytic", i, gx[i], 2 * x[i] * REP * REP, TOL_AD);
      check_close_i("dx vs FD", i, gx[i], fdn(f_indexed, x, N, i), TOL_FD);
    }
  }
  return check_report();
}
