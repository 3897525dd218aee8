/* custom_grad.c: custom reverse-mode derivatives,
 *   void *__enzyme_register_gradient_NAME[3] = {f, aug_f, rev_f};
 * aug_f takes f's parameters (a shadow pointer after each pointer) and
 * returns a tape (void *, may be NULL); rev_f takes f's parameters (shadows
 * after pointers), then `double dret` if f returns a double, then the tape,
 * and returns the adjoints of f's floating-point scalar parameters (double
 * for one, a struct for several, void for none), accumulating pointer
 * adjoints into the shadows. The functions with rules are noinline and
 * externally visible; the tool must call the rules instead of
 * differentiating their bodies:
 *   mylog1p(x)        log1p through a volatile function pointer (opaque:
 *                     not differentiable without the rule);
 *   grad_scale(x) = x a straight-through function whose rule deliberately
 *                     returns 0.5 dret, so the result shows the rule was
 *                     used (AD != the true derivative, on purpose);
 *   mydot(a, b, n)    pointers + int; aug returns a heap tape with copies
 *                     of a and b (and a magic number), rev uses the tape
 *                     and frees it; the caller overwrites a[0] afterwards;
 *   myhypot(x, y)     two scalars: rev returns a struct of 2 doubles;
 *   myscale(a, x, y, n) void, y_i = a x_i: rev returns da (double),
 *                     accumulates dx, consumes dy.
 * Each rule counts its calls: every dynamic call of f in the differentiated
 * code must run aug_f once and rev_f once.
 * Build with -DNO_AD to replace the AD calls by hand-written reverse sweeps
 * that call the same rules. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "enzyme.h"
#include "check.h"

typedef struct { double dx, dy; } grad2;
grad2 __enzyme_autodiff_grad2(void *, ...);
void __enzyme_autodiff_v(void *, ...);

static int n_aug, n_rev, n_bad_tape;
static void reset_counts(void) { n_aug = n_rev = n_bad_tape = 0; }

/* ---- mylog1p: opaque ---- */
static double (*volatile log1p_impl)(double) = log1p;
__attribute__((noinline)) double mylog1p(double x) { return log1p_impl(x); }
void *aug_mylog1p(double x) {
  (void)x;
  n_aug++;
  return NULL;
}
double rev_mylog1p(double x, double dret, void *tape) {
  n_rev++;
  if (tape != NULL)
    n_bad_tape++;
  return dret / (1.0 + x);
}
void *__enzyme_register_gradient_mylog1p[3] = {
    (void *)mylog1p, (void *)aug_mylog1p, (void *)rev_mylog1p};

/* ---- grad_scale: identity with a halved gradient ---- */
/* a volatile round trip, so that -O2 cannot see that the result is x and
 * drop the call before the tool runs */
__attribute__((noinline)) double grad_scale(double x) {
  volatile double v = x;
  return v;
}
void *aug_grad_scale(double x) {
  (void)x;
  n_aug++;
  return NULL;
}
double rev_grad_scale(double x, double dret, void *tape) {
  (void)x;
  (void)tape;
  n_rev++;
  return 0.5 * dret;
}
void *__enzyme_register_gradient_grad_scale[3] = {
    (void *)grad_scale, (void *)aug_grad_scale, (void *)rev_grad_scale};

/* ---- mydot: pointers, a heap tape ---- */
#define DOT_MAGIC 0x5EEDF00Du
typedef struct {
  unsigned magic;
  int n;
  double ab[];
} dot_tape;
__attribute__((noinline)) double mydot(const double *a, const double *b, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += a[i] * b[i];
  return s;
}
void *aug_mydot(const double *a, double *da, const double *b, double *db, int n) {
  dot_tape *t = (dot_tape *)malloc(sizeof(dot_tape) + 2 * (size_t)n * sizeof(double));
  (void)da;
  (void)db;
  n_aug++;
  t->magic = DOT_MAGIC;
  t->n = n;
  memcpy(t->ab, a, (size_t)n * sizeof(double));
  memcpy(t->ab + n, b, (size_t)n * sizeof(double));
  return t;
}
void rev_mydot(const double *a, double *da, const double *b, double *db, int n,
               double dret, void *tape) {
  dot_tape *t = (dot_tape *)tape;
  (void)a;
  (void)b;
  n_rev++;
  if (!t || t->magic != DOT_MAGIC || t->n != n) {
    n_bad_tape++;
    return;
  }
  for (int i = 0; i < n; i++) {
    da[i] += dret * t->ab[n + i];
    db[i] += dret * t->ab[i];
  }
  t->magic = 0;
  free(t);
}
void *__enzyme_register_gradient_mydot[3] = {
    (void *)mydot, (void *)aug_mydot, (void *)rev_mydot};

/* ---- myhypot: two scalars ---- */
static double (*volatile hypot_impl)(double, double) = hypot;
__attribute__((noinline)) double myhypot(double x, double y) { return hypot_impl(x, y); }
void *aug_myhypot(double x, double y) {
  (void)x;
  (void)y;
  n_aug++;
  return NULL;
}
grad2 rev_myhypot(double x, double y, double dret, void *tape) {
  double h = hypot(x, y);
  grad2 g = {dret * x / h, dret * y / h};
  (void)tape;
  n_rev++;
  return g;
}
void *__enzyme_register_gradient_myhypot[3] = {
    (void *)myhypot, (void *)aug_myhypot, (void *)rev_myhypot};

/* ---- myscale: void, writes y (idempotent: the rule may write it too) ---- */
__attribute__((noinline)) void myscale(double a, const double *x, double *y, int n) {
  for (int i = 0; i < n; i++)
    y[i] = a * x[i];
}
void *aug_myscale(double a, const double *x, double *dx, double *y, double *dy, int n) {
  (void)dx;
  (void)dy;
  n_aug++;
  for (int i = 0; i < n; i++)
    y[i] = a * x[i];
  return NULL;
}
double rev_myscale(double a, const double *x, double *dx, double *y, double *dy,
                   int n, void *tape) {
  double da = 0.0;
  (void)y;
  (void)tape;
  n_rev++;
  for (int i = 0; i < n; i++) {
    da += dy[i] * x[i];
    dx[i] += a * dy[i];
    dy[i] = 0.0;
  }
  return da;
}
void *__enzyme_register_gradient_myscale[3] = {
    (void *)myscale, (void *)aug_myscale, (void *)rev_myscale};

/* ---- the differentiated functions ---- */
static double big(double x, double y) { return mylog1p(x * x) * y + sin(mylog1p(y)); }
static double big_v(const double *v) {
  return log1p(v[0] * v[0]) * v[1] + sin(log1p(v[1]));
}
static grad2 big_grad(double x, double y) {
  grad2 g = {2.0 * x / (1.0 + x * x) * y, log1p(x * x) + cos(log1p(y)) / (1.0 + y)};
  return g;
}

static double st(double x) { return grad_scale(x * x) + x; }

#define ND 6
static double outer_dot(double *a, double *b, int n) {
  double s = mydot(a, b, n);
  a[0] = 5.0 * a[0];
  return s * a[0];
}

static double hyp(double x, double y) { return myhypot(x, y) * x; }
static double hyp_v(const double *v) { return hypot(v[0], v[1]) * v[0]; }

static double outer_scale(double a, double *x, double *y, int n) {
  myscale(a, x, y, n);
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += 0.5 * y[i] * y[i];
  return s;
}

#ifdef NO_AD
static grad2 emul_big(double x, double y) {
  void *t1 = aug_mylog1p(x * x), *t2 = aug_mylog1p(y);
  double u = mylog1p(x * x), v = mylog1p(y);
  grad2 g;
  double dy_v = rev_mylog1p(y, cos(v), t2);
  g.dx = rev_mylog1p(x * x, y, t1) * 2.0 * x;
  g.dy = u + dy_v;
  return g;
}
static double emul_st(double x) {
  void *t = aug_grad_scale(x * x);
  return rev_grad_scale(x * x, 1.0, t) * 2.0 * x + 1.0;
}
static void emul_outer_dot(double *a, double *da, double *b, double *db, int n) {
  void *t = aug_mydot(a, da, b, db, n);
  double s = mydot(a, b, n), a0 = a[0];
  a[0] = 5.0 * a0;
  /* L = s * 5 a0 */
  rev_mydot(a, da, b, db, n, 5.0 * a0, t);
  da[0] += 5.0 * s;
}
static grad2 emul_hyp(double x, double y) {
  void *t = aug_myhypot(x, y);
  double h = myhypot(x, y);
  grad2 g = rev_myhypot(x, y, x, t);
  g.dx += h;
  return g;
}
static double emul_outer_scale(double a, double *x, double *dx, double *y,
                               double *dy, int n) {
  void *t = aug_myscale(a, x, dx, y, dy, n);
  myscale(a, x, y, n);
  for (int i = 0; i < n; i++)
    dy[i] += y[i];
  return rev_myscale(a, x, dx, y, dy, n, t);
}
#endif

int main(void) {
  const double pts[3][2] = {{0.7, 0.4}, {-1.3, 1.8}, {2.2, 0.05}};
  for (int p = 0; p < 3; p++) {
    double x = pts[p][0], y = pts[p][1];
    grad2 w = big_grad(x, y);

    reset_counts();
    check_at("big point %d", p);
#ifdef NO_AD
    grad2 g = emul_big(x, y);
#else
    grad2 g = __enzyme_autodiff_grad2((void *)big, x, y);
#endif
    check_close("dx vs analytic", g.dx, w.dx, TOL_AD);
    check_close("dy vs analytic", g.dy, w.dy, TOL_AD);
    check_close("dx vs FD", g.dx, fdn(big_v, pts[p], 2, 0), TOL_FD);
    check_close("dy vs FD", g.dy, fdn(big_v, pts[p], 2, 1), TOL_FD);
    check_close("aug_mylog1p calls", n_aug, 2, 0.0);
    check_close("rev_mylog1p calls", n_rev, 2, 0.0);
    check_close("rev_mylog1p saw its NULL tape", n_bad_tape, 0, 0.0);
    check_close("primal big", big(x, y), big_v(pts[p]), TOL_AD);

    reset_counts();
    check_at("straight-through point %d", p);
#ifdef NO_AD
    double ds = emul_st(x);
#else
    double ds = __enzyme_autodiff((void *)st, x);
#endif
    /* the rule halves the gradient of x^2: 0.5 * 2x + 1, not 2x + 1 */
    check_close("d/dx = rule's value x + 1", ds, x + 1.0, TOL_AD);
    check_close("aug_grad_scale calls", n_aug, 1, 0.0);
    check_close("rev_grad_scale calls", n_rev, 1, 0.0);

    reset_counts();
    check_at("hyp point %d", p);
#ifdef NO_AD
    grad2 gh = emul_hyp(x, y);
#else
    grad2 gh = __enzyme_autodiff_grad2((void *)hyp, x, y);
#endif
    double hh = hypot(x, y);
    check_close("dx vs analytic", gh.dx, x * x / hh + hh, TOL_AD);
    check_close("dy vs analytic", gh.dy, y * x / hh, TOL_AD);
    check_close("dx vs FD", gh.dx, fdn(hyp_v, pts[p], 2, 0), TOL_FD);
    check_close("dy vs FD", gh.dy, fdn(hyp_v, pts[p], 2, 1), TOL_FD);
    check_close("aug_myhypot calls", n_aug, 1, 0.0);
    check_close("rev_myhypot calls", n_rev, 1, 0.0);

    /* mydot with a heap tape, a[0] overwritten after the call */
    double a[ND], b[ND], da[ND] = {0}, db[ND] = {0}, ga[ND], gb[ND];
    for (int i = 0; i < ND; i++) {
      a[i] = sin(1.3 * i + p) + 0.2;
      b[i] = cos(0.7 * i - p);
    }
    double a0 = a[0], s0 = 0.0;
    for (int i = 0; i < ND; i++)
      s0 += a[i] * b[i];
    for (int i = 0; i < ND; i++) {
      ga[i] = 5.0 * a0 * b[i] + (i == 0 ? 5.0 * s0 : 0.0);
      gb[i] = 5.0 * a0 * a[i];
    }
    reset_counts();
    check_at("outer_dot point %d", p);
#ifdef NO_AD
    emul_outer_dot(a, da, b, db, ND);
#else
    __enzyme_autodiff_v((void *)outer_dot, enzyme_dup, a, da, enzyme_dup, b, db, ND);
#endif
    check_close_arr("da vs analytic", da, ga, ND, TOL_AD);
    check_close_arr("db vs analytic", db, gb, ND, TOL_AD);
    check_close("primal a[0] overwritten", a[0], 5.0 * a0, TOL_AD);
    check_close("aug_mydot calls", n_aug, 1, 0.0);
    check_close("rev_mydot calls", n_rev, 1, 0.0);
    check_close("rev_mydot got aug_mydot's tape", n_bad_tape, 0, 0.0);

    /* myscale: void, dy seeded with w */
    double xs[ND], dxs[ND] = {0}, ys[ND], dys[ND], wy[ND], gx[ND], zero[ND] = {0};
    double sc = 0.8 - 0.5 * p, gsc = 0.0;
    for (int i = 0; i < ND; i++) {
      xs[i] = 0.5 * sin(2.1 * i + p) - 0.1;
      ys[i] = 100.0;
      dys[i] = wy[i] = 0.3 - 0.1 * i;
      gsc += (sc * xs[i] + wy[i]) * xs[i];
      gx[i] = sc * (sc * xs[i] + wy[i]);
    }
    reset_counts();
    check_at("outer_scale point %d", p);
#ifdef NO_AD
    double dsc = emul_outer_scale(sc, xs, dxs, ys, dys, ND);
#else
    double dsc = __enzyme_autodiff((void *)outer_scale, sc, enzyme_dup, xs, dxs,
                                   enzyme_dup, ys, dys, ND);
#endif
    check_close("da vs analytic", dsc, gsc, TOL_AD);
    check_close_arr("dx vs analytic", dxs, gx, ND, TOL_AD);
    check_close_arr("dy consumed", dys, zero, ND, TOL_AD);
    for (int i = 0; i < ND; i++)
      check_close_i("primal y", i, ys[i], sc * xs[i], TOL_AD);
    check_close("aug_myscale calls", n_aug, 1, 0.0);
    check_close("rev_myscale calls", n_rev, 1, 0.0);

    /* the primal functions themselves (the rules are for derivatives only) */
    check_at("primals point %d", p);
    double ca[ND], cb[ND], cy[ND], cs = 0.0;
    for (int i = 0; i < ND; i++) {
      ca[i] = sin(1.3 * i + p) + 0.2;
      cb[i] = cos(0.7 * i - p);
    }
    check_close("st", st(x), x * x + x, TOL_AD);
    check_close("hyp", hyp(x, y), hyp_v(pts[p]), TOL_AD);
    check_close("outer_dot", outer_dot(ca, cb, ND), s0 * 5.0 * a0, TOL_AD);
    for (int i = 0; i < ND; i++)
      cs += 0.5 * (sc * xs[i]) * (sc * xs[i]);
    check_close("outer_scale", outer_scale(sc, xs, cy, ND), cs, TOL_AD);
  }
  return check_report();
}
