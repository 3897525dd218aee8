/* custom_fwd.c: custom forward-mode derivatives,
 *   void *__enzyme_register_derivative_NAME[2] = {f, fwd_f};
 * fwd_f takes f's parameters, each floating-point or pointer parameter
 * followed by its tangent (a tangent pointer for pointers), and returns the
 * tangent of f's result (void for a void f; output tangents are written
 * through the tangent pointers). The functions with rules are noinline and
 * externally visible; the tool must call the rules instead of
 * differentiating their bodies:
 *   mylog1p(x)        log1p through a volatile function pointer (opaque);
 *   grad_scale(x) = x with a rule that deliberately returns 0.5 dx, so the
 *                     result shows the rule was used;
 *   mydot(a, b, n)    pointers + int: da . b + a . db;
 *   myhypot(x, y)     two scalars;
 *   myscale(a, x, y, n) void, y_i = a x_i: the rule writes dy_i =
 *                     da x_i + a dx_i (and the primal y_i, idempotently).
 * Each rule counts its calls: one per dynamic call of f.
 * Build with -DNO_AD to replace the AD calls by hand-written tangent
 * sweeps that call the same rules. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_fwddiff_v(void *, ...);

static int n_fwd;

/* ---- mylog1p: opaque ---- */
static double (*volatile log1p_impl)(double) = log1p;
__attribute__((noinline)) double mylog1p(double x) { return log1p_impl(x); }
double fwd_mylog1p(double x, double dx) {
  n_fwd++;
  return dx / (1.0 + x);
}
void *__enzyme_register_derivative_mylog1p[2] = {(void *)mylog1p, (void *)fwd_mylog1p};

/* ---- grad_scale ---- */
/* a volatile round trip, so that -O2 cannot see that the result is x and
 * drop the call before the tool runs */
__attribute__((noinline)) double grad_scale(double x) {
  volatile double v = x;
  return v;
}
double fwd_grad_scale(double x, double dx) {
  (void)x;
  n_fwd++;
  return 0.5 * dx;
}
void *__enzyme_register_derivative_grad_scale[2] = {(void *)grad_scale,
                                                    (void *)fwd_grad_scale};

/* ---- mydot ---- */
__attribute__((noinline)) double mydot(const double *a, const double *b, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += a[i] * b[i];
  return s;
}
double fwd_mydot(const double *a, const double *da, const double *b,
                 const double *db, int n) {
  double t = 0.0;
  n_fwd++;
  for (int i = 0; i < n; i++)
    t += da[i] * b[i] + a[i] * db[i];
  return t;
}
void *__enzyme_register_derivative_mydot[2] = {(void *)mydot, (void *)fwd_mydot};

/* ---- myhypot ---- */
static double (*volatile hypot_impl)(double, double) = hypot;
__attribute__((noinline)) double myhypot(double x, double y) { return hypot_impl(x, y); }
double fwd_myhypot(double x, double dx, double y, double dy) {
  n_fwd++;
  return (x * dx + y * dy) / hypot(x, y);
}
void *__enzyme_register_derivative_myhypot[2] = {(void *)myhypot, (void *)fwd_myhypot};

/* ---- myscale: void ---- */
__attribute__((noinline)) void myscale(double a, const double *x, double *y, int n) {
  for (int i = 0; i < n; i++)
    y[i] = a * x[i];
}
void fwd_myscale(double a, double da, const double *x, const double *dx,
                 double *y, double *dy, int n) {
  n_fwd++;
  for (int i = 0; i < n; i++) {
    y[i] = a * x[i];
    dy[i] = da * x[i] + a * dx[i];
  }
}
void *__enzyme_register_derivative_myscale[2] = {(void *)myscale, (void *)fwd_myscale};

/* ---- the differentiated functions ---- */
static double big(double x, double y) { return mylog1p(x * x) * y + sin(mylog1p(y)); }
static double big_v(double *v) { return log1p(v[0] * v[0]) * v[1] + sin(log1p(v[1])); }
static double big_dir(double x, double y, double dx, double dy) {
  return 2.0 * x / (1.0 + x * x) * y * dx +
         (log1p(x * x) + cos(log1p(y)) / (1.0 + y)) * dy;
}

static double st(double x) { return grad_scale(x * x) + x; }

#define ND 6
static double outer_dot(double *a, double *b, int n) {
  double s = mydot(a, b, n);
  a[0] = 5.0 * a[0];
  return s * a[0];
}

static double hyp(double x, double y) { return myhypot(x, y) * x; }
static double hyp_v(double *v) { return hypot(v[0], v[1]) * v[0]; }

static double outer_scale(double a, double *x, double *y, int n) {
  myscale(a, x, y, n);
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += 0.5 * y[i] * y[i];
  return s;
}

#ifdef NO_AD
static double emul_big(double x, double dx, double y, double dy) {
  double u = mylog1p(x * x), du = fwd_mylog1p(x * x, 2.0 * x * dx);
  double v = mylog1p(y), dv = fwd_mylog1p(y, dy);
  return du * y + u * dy + cos(v) * dv;
}
static double emul_st(double x, double dx) {
  return fwd_grad_scale(x * x, 2.0 * x * dx) + dx;
}
static double emul_outer_dot(double *a, double *da, double *b, double *db, int n) {
  double s = mydot(a, b, n), ds = fwd_mydot(a, da, b, db, n);
  double a0 = a[0], da0 = da[0];
  a[0] = 5.0 * a0;
  da[0] = 5.0 * da0;
  return ds * a[0] + s * da[0];
}
static double emul_hyp(double x, double dx, double y, double dy) {
  return fwd_myhypot(x, dx, y, dy) * x + myhypot(x, y) * dx;
}
static double emul_outer_scale(double a, double da, double *x, double *dx,
                               double *y, double *dy, int n) {
  double t = 0.0;
  fwd_myscale(a, da, x, dx, y, dy, n);
  for (int i = 0; i < n; i++)
    t += y[i] * dy[i];
  return t;
}
#endif

int main(void) {
  const double pts[3][2] = {{0.7, 0.4}, {-1.3, 1.8}, {2.2, 0.05}};
  check_seed(909);
  for (int p = 0; p < 3; p++) {
    double x = pts[p][0], y = pts[p][1], pt[2] = {x, y}, v[2];
    check_rand_dir(v, 2);

    n_fwd = 0;
    check_at("big point %d", p);
#ifdef NO_AD
    double t = emul_big(x, v[0], y, v[1]);
#else
    double t = __enzyme_fwddiff((void *)big, x, v[0], y, v[1]);
#endif
    check_close("tangent vs analytic", t, big_dir(x, y, v[0], v[1]), TOL_AD);
    check_close("tangent vs FD", t, fddir(big_v, pt, v, 2), TOL_FD);
    check_close("fwd_mylog1p calls", n_fwd, 2, 0.0);
    check_close("primal big", big(x, y), big_v(pt), TOL_AD);

    n_fwd = 0;
    check_at("straight-through point %d", p);
#ifdef NO_AD
    double ts = emul_st(x, v[0]);
#else
    double ts = __enzyme_fwddiff((void *)st, x, v[0]);
#endif
    check_close("tangent = rule's value (x + 1) dx", ts, (x + 1.0) * v[0], TOL_AD);
    check_close("fwd_grad_scale calls", n_fwd, 1, 0.0);
    check_close("primal st", st(x), x * x + x, TOL_AD);

    n_fwd = 0;
    check_at("hyp point %d", p);
#ifdef NO_AD
    double th = emul_hyp(x, v[0], y, v[1]);
#else
    double th = __enzyme_fwddiff((void *)hyp, x, v[0], y, v[1]);
#endif
    double hh = hypot(x, y);
    check_close("tangent vs analytic", th,
                (x * x / hh + hh) * v[0] + (y * x / hh) * v[1], TOL_AD);
    check_close("tangent vs FD", th, fddir(hyp_v, pt, v, 2), TOL_FD);
    check_close("fwd_myhypot calls", n_fwd, 1, 0.0);
    check_close("primal hyp", hyp(x, y), hyp_v(pt), TOL_AD);

    /* mydot, a[0] overwritten after the call */
    double a[ND], b[ND], da[ND], db[ND];
    double s0 = 0.0, ds0 = 0.0;
    check_rand_dir(da, ND);
    check_rand_dir(db, ND);
    for (int i = 0; i < ND; i++) {
      a[i] = sin(1.3 * i + p) + 0.2;
      b[i] = cos(0.7 * i - p);
      s0 += a[i] * b[i];
      ds0 += da[i] * b[i] + a[i] * db[i];
    }
    double a0 = a[0], da0 = da[0];
    n_fwd = 0;
    check_at("outer_dot point %d", p);
#ifdef NO_AD
    double td = emul_outer_dot(a, da, b, db, ND);
#else
    double td = __enzyme_fwddiff((void *)outer_dot, enzyme_dup, a, da, enzyme_dup, b, db, ND);
#endif
    check_close("tangent vs analytic", td, 5.0 * (ds0 * a0 + s0 * da0), TOL_AD);
    check_close("da[0] = tangent of the new a[0]", da[0], 5.0 * da0, TOL_AD);
    check_close("primal a[0] overwritten", a[0], 5.0 * a0, TOL_AD);
    check_close("fwd_mydot calls", n_fwd, 1, 0.0);

    /* myscale: void, y's tangent written by the rule */
    double xs[ND], dxs[ND], ys[ND], dys[ND], wdy[ND], wy[ND];
    double sc = 0.8 - 0.5 * p, dsc = 0.5 * check_rand(), want = 0.0;
    check_rand_dir(dxs, ND);
    for (int i = 0; i < ND; i++) {
      xs[i] = 0.5 * sin(2.1 * i + p) - 0.1;
      ys[i] = 100.0;
      dys[i] = -100.0;
      wy[i] = sc * xs[i];
      wdy[i] = dsc * xs[i] + sc * dxs[i];
      want += wy[i] * wdy[i];
    }
    n_fwd = 0;
    check_at("outer_scale point %d", p);
#ifdef NO_AD
    double tsc = emul_outer_scale(sc, dsc, xs, dxs, ys, dys, ND);
#else
    double tsc = __enzyme_fwddiff((void *)outer_scale, sc, dsc, enzyme_dup, xs, dxs,
                                  enzyme_dup, ys, dys, ND);
#endif
    check_close("tangent vs analytic", tsc, want, TOL_AD);
    check_close_arr("dy vs analytic", dys, wdy, ND, TOL_AD);
    check_close_arr("primal y", ys, wy, ND, TOL_AD);
    check_close("fwd_myscale calls", n_fwd, 1, 0.0);
    double cy[ND], ca[ND], cb[ND], ss = 0.0;
    for (int i = 0; i < ND; i++) {
      ss += 0.5 * wy[i] * wy[i];
      ca[i] = sin(1.3 * i + p) + 0.2;
      cb[i] = cos(0.7 * i - p);
    }
    check_close("primal outer_scale", outer_scale(sc, xs, cy, ND), ss, TOL_AD);
    check_close("primal outer_dot", outer_dot(ca, cb, ND), 5.0 * a0 * s0, TOL_AD);
  }
  return check_report();
}
