/* custom_loop.c: functions with custom rules called inside loops, in
 * reverse mode (__enzyme_register_gradient_*) and forward mode
 * (__enzyme_register_derivative_*); both kinds of rule are registered for
 * the same functions.
 *   mysin(x)    sin through a volatile function pointer (opaque). Its aug
 *               rule returns a fresh heap tape holding x and a magic number;
 *               the rev rule checks it got the tape of the SAME call (its x
 *               equals the tape's), uses the tape's x and frees the tape:
 *               the tool must keep one tape per loop iteration.
 *   mylog1p(x)  log1p through a volatile function pointer, NULL tapes.
 *   chain(x, n): s = 0.3; for i < n: s = 1.5 mysin(s + x_i); returns s
 *   lsum(x, n)  = sum_i mylog1p(x_i^2) x_i
 * n = 1, 7, 50. Every dynamic call of f runs aug_f and rev_f exactly once
 * (reverse) or fwd_f exactly once (forward): the counts are checked.
 * Build with -DNO_AD to replace the AD calls by hand-written sweeps that
 * call the same rules. */
#include <math.h>
#include <stdlib.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

static int n_aug, n_rev, n_fwd, n_bad_tape, n_live_tapes;
static void reset_counts(void) { n_aug = n_rev = n_fwd = n_bad_tape = n_live_tapes = 0; }

/* ---- mysin ---- */
#define SIN_MAGIC 0xC0FFEE11u
typedef struct {
  unsigned magic;
  double x;
} sin_tape;
static double (*volatile sin_impl)(double) = sin;
__attribute__((noinline)) double mysin(double x) { return sin_impl(x); }
void *aug_mysin(double x) {
  sin_tape *t = (sin_tape *)malloc(sizeof *t);
  n_aug++;
  n_live_tapes++;
  t->magic = SIN_MAGIC;
  t->x = x;
  return t;
}
double rev_mysin(double x, double dret, void *tape) {
  sin_tape *t = (sin_tape *)tape;
  n_rev++;
  if (!t || t->magic != SIN_MAGIC) {
    n_bad_tape++;
    return dret * cos(x);
  }
  if (t->x != x)
    n_bad_tape++;
  double d = dret * cos(t->x);
  t->magic = 0;
  free(t);
  n_live_tapes--;
  return d;
}
double fwd_mysin(double x, double dx) {
  n_fwd++;
  return cos(x) * dx;
}
void *__enzyme_register_gradient_mysin[3] = {(void *)mysin, (void *)aug_mysin,
                                             (void *)rev_mysin};
void *__enzyme_register_derivative_mysin[2] = {(void *)mysin, (void *)fwd_mysin};

/* ---- mylog1p ---- */
static double (*volatile log1p_impl)(double) = log1p;
__attribute__((noinline)) double mylog1p(double x) { return log1p_impl(x); }
void *aug_mylog1p(double x) {
  (void)x;
  n_aug++;
  return NULL;
}
double rev_mylog1p(double x, double dret, void *tape) {
  n_rev++;
  if (tape)
    n_bad_tape++;
  return dret / (1.0 + x);
}
double fwd_mylog1p(double x, double dx) {
  n_fwd++;
  return dx / (1.0 + x);
}
void *__enzyme_register_gradient_mylog1p[3] = {
    (void *)mylog1p, (void *)aug_mylog1p, (void *)rev_mylog1p};
void *__enzyme_register_derivative_mylog1p[2] = {(void *)mylog1p, (void *)fwd_mylog1p};

/* ---- the differentiated functions ---- */
static double chain(double *x, int n) {
  double s = 0.3;
  for (int i = 0; i < n; i++)
    s = 1.5 * mysin(s + x[i]);
  return s;
}
static double lsum(double *x, int n) {
  double r = 0.0;
  for (int i = 0; i < n; i++)
    r += mylog1p(x[i] * x[i]) * x[i];
  return r;
}

#define NMAX 50

/* reference gradient and tangent of chain */
static void chain_ref(const double *x, int n, double *g, const double *v, double *t) {
  double s[NMAX + 1], a = 1.0, ds = 0.0;
  s[0] = 0.3;
  for (int i = 0; i < n; i++) {
    ds = 1.5 * cos(s[i] + x[i]) * (ds + v[i]);
    s[i + 1] = 1.5 * sin(s[i] + x[i]);
  }
  *t = ds;
  for (int i = n - 1; i >= 0; i--) {
    a = a * 1.5 * cos(s[i] + x[i]);
    g[i] = a;
  }
}
static double lsum_d(double x) { return 2.0 * x * x / (1.0 + x * x) + log1p(x * x); }

#ifdef NO_AD
static void emul_chain_rev(double *x, double *dx, int n) {
  double s[NMAX + 1], a = 1.0;
  void *tapes[NMAX];
  s[0] = 0.3;
  for (int i = 0; i < n; i++) {
    tapes[i] = aug_mysin(s[i] + x[i]);
    s[i + 1] = 1.5 * mysin(s[i] + x[i]);
  }
  for (int i = n - 1; i >= 0; i--) {
    a = rev_mysin(s[i] + x[i], 1.5 * a, tapes[i]);
    dx[i] += a;
  }
}
static double emul_chain_fwd(double *x, double *dx, int n) {
  double s = 0.3, ds = 0.0;
  for (int i = 0; i < n; i++) {
    ds = 1.5 * fwd_mysin(s + x[i], ds + dx[i]);
    s = 1.5 * mysin(s + x[i]);
  }
  return ds;
}
static void emul_lsum_rev(double *x, double *dx, int n) {
  for (int i = n - 1; i >= 0; i--) {
    void *t = aug_mylog1p(x[i] * x[i]);
    dx[i] += mylog1p(x[i] * x[i]) + rev_mylog1p(x[i] * x[i], x[i], t) * 2.0 * x[i];
  }
}
static double emul_lsum_fwd(double *x, double *dx, int n) {
  double t = 0.0;
  for (int i = 0; i < n; i++)
    t += fwd_mylog1p(x[i] * x[i], 2.0 * x[i] * dx[i]) * x[i] +
         mylog1p(x[i] * x[i]) * dx[i];
  return t;
}
#endif

int main(void) {
  const int ns[3] = {1, 7, NMAX};
  check_seed(5150);
  for (int q = 0; q < 3; q++) {
    int n = ns[q];
    double x[NMAX], dx[NMAX], g[NMAX], fd[NMAX], v[NMAX], want[NMAX], tw;
    for (int i = 0; i < n; i++)
      x[i] = 0.9 * sin(1.7 * i + 0.4 * q) + 0.1;
    check_rand_dir(v, n);
    chain_ref(x, n, g, v, &tw);

    /* chain, reverse */
    for (int i = 0; i < n; i++)
      dx[i] = 0.0;
    reset_counts();
    check_at("chain reverse n=%d", n);
#ifdef NO_AD
    emul_chain_rev(x, dx, n);
#else
    __enzyme_autodiff_v((void *)chain, enzyme_dup, x, dx, n);
#endif
    for (int i = 0; i < n; i++)
      fd[i] = fdpn(chain, x, n, i);
    check_close_arr("dx vs reference", dx, g, n, TOL_AD);
    check_close_arr("dx vs FD", dx, fd, n, TOL_FD);
    check_close("aug_mysin calls", n_aug, n, 0.0);
    check_close("rev_mysin calls", n_rev, n, 0.0);
    check_close("each rev_mysin got its own call's tape", n_bad_tape, 0, 0.0);
    check_close("every tape freed", n_live_tapes, 0, 0.0);

    /* chain, forward */
    reset_counts();
    check_at("chain forward n=%d", n);
#ifdef NO_AD
    double t = emul_chain_fwd(x, v, n);
#else
    double t = __enzyme_fwddiff((void *)chain, enzyme_dup, x, v, n);
#endif
    check_close("tangent vs reference", t, tw, TOL_AD);
    check_close("tangent vs FD", t, fddirn(chain, x, v, n), TOL_FD);
    check_close("fwd_mysin calls", n_fwd, n, 0.0);
    check_close("no reverse rule ran", n_aug + n_rev, 0, 0.0);

    /* lsum, reverse */
    for (int i = 0; i < n; i++) {
      dx[i] = 1.0; /* accumulates */
      want[i] = 1.0 + lsum_d(x[i]);
      fd[i] = 1.0 + fdpn(lsum, x, n, i);
    }
    reset_counts();
    check_at("lsum reverse n=%d", n);
#ifdef NO_AD
    emul_lsum_rev(x, dx, n);
#else
    __enzyme_autodiff_v((void *)lsum, x, dx, n);
#endif
    check_close_arr("dx vs analytic (accumulated)", dx, want, n, TOL_AD);
    check_close_arr("dx vs FD", dx, fd, n, TOL_FD);
    check_close("aug_mylog1p calls", n_aug, n, 0.0);
    check_close("rev_mylog1p calls", n_rev, n, 0.0);
    check_close("NULL tapes passed through", n_bad_tape, 0, 0.0);

    /* lsum, forward */
    double tl = 0.0;
    for (int i = 0; i < n; i++)
      tl += lsum_d(x[i]) * v[i];
    reset_counts();
    check_at("lsum forward n=%d", n);
#ifdef NO_AD
    double t2 = emul_lsum_fwd(x, v, n);
#else
    double t2 = __enzyme_fwddiff((void *)lsum, x, v, n);
#endif
    check_close("tangent vs analytic", t2, tl, TOL_AD);
    check_close("tangent vs FD", t2, fddirn(lsum, x, v, n), TOL_FD);
    check_close("fwd_mylog1p calls", n_fwd, n, 0.0);
  }
  return check_report();
}
