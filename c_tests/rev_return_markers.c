/* rev_return_markers.c: Enzyme's return markers, anywhere after the
 * function.
 *   enzyme_primal_return  the call returns the primal result first:
 *                         reverse {f, adjoints...}, forward {f, tangents...}
 *   enzyme_const_return   the return is inactive: reverse mode does not
 *                         seed it (only memory adjoints flow), forward mode
 *                         returns no tangent, split mode takes no dret
 *   enzyme_active_return  the (floating) return is active: the default
 *   enzyme_dup_return     forward mode returns the tangents, also the
 *                         shadow of a returned pointer; split mode's
 *                         __enzyme_augmentfwd returns {tape, r, shadow of r}
 *                         for a returned pointer
 *   enzyme_noret          the primal result is not needed: no change here
 *   f(x, y)  = x^2 y + sin(x y)
 *   w(p, x)  = sin(x), and writes p[0] = x^2   (dp[0] seeded with 1)
 *   pick(a, b, c) = c > 0 ? a : b               (a pointer)
 * Checked against the analytic derivatives and central differences.
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

typedef struct { double f, dx; } prim1;
typedef struct { double f, dx, dy; } prim2;
typedef struct { double f, d[2]; } prim_w2;
prim1 __enzyme_autodiff_p1(void *, ...);
prim2 __enzyme_autodiff_p2(void *, ...);
prim1 __enzyme_fwddiff_p1(void *, ...);
prim_w2 __enzyme_fwddiff_pw2(void *, ...);
void __enzyme_fwddiff_v(void *, ...);
double *__enzyme_fwddiff_ptr(void *, ...);
double __enzyme_reverse_d(void *, ...);
typedef struct { void *tape; double *r, *shadow; } aug_ptr;
aug_ptr __enzyme_augmentfwd_ptr(void *, ...);

static double f(double x, double y) { return x * x * y + sin(x * y); }
static double f_v(const double *v) { return f(v[0], v[1]); }
static double fx(double x, double y) { return 2.0 * x * y + y * cos(x * y); }
static double fy(double x, double y) { return x * x + x * cos(x * y); }

__attribute__((noinline)) double w(double *p, double x) {
  p[0] = x * x;
  return sin(x);
}
/* the written value as a function of x, for finite differences */
static double w_mem(const double *v) {
  double p[1];
  w(p, v[0]);
  return p[0];
}
static double sq_v(const double *v) { return v[0] * v[0]; }
static double w_ret(const double *v) {
  double p[1];
  return w(p, v[0]);
}

__attribute__((noinline)) double *pick(double *a, double *b, double c) {
  return c > 0 ? a : b;
}

/* writes x^2 into out[0] and returns out */
__attribute__((noinline)) double *square_into(double *out, double x) {
  out[0] = x * x;
  return out;
}

int main(void) {
  const double pts[3][2] = {{0.7, -1.3}, {-1.1, 0.4}, {1.6, 0.9}};
  for (int i = 0; i < 3; i++) {
    double x = pts[i][0], y = pts[i][1];
    double v[2] = {x, y};
    double fv = f(x, y), wx = fx(x, y), wy = fy(x, y);
    double fdx = fdn(f_v, v, 2, 0), fdy = fdn(f_v, v, 2, 1);
#ifdef NO_AD
    prim2 r = {fv, wx, wy};
    prim1 r1 = {fv, wy};
    double n = wx, act = wx;
    prim1 t = {fv, wx + 0.5 * wy};
    prim_w2 tw = {fv, {wx, wy}};
#else
    prim2 r = __enzyme_autodiff_p2((void *)f, enzyme_primal_return, x, y);
    prim1 r1 = __enzyme_autodiff_p1((void *)f, enzyme_const, x, y,
                                    enzyme_primal_return);
    double n = __enzyme_autodiff((void *)f, x, enzyme_noret, enzyme_const, y);
    double act =
        __enzyme_autodiff((void *)f, enzyme_active_return, x, enzyme_const, y);
    prim1 t = __enzyme_fwddiff_p1((void *)f, x, 1.0, enzyme_primal_return, y,
                                  0.5);
    prim_w2 tw = __enzyme_fwddiff_pw2((void *)f, enzyme_width, 2, x, 1.0, 0.0,
                                      y, 0.0, 1.0, enzyme_primal_return,
                                      enzyme_dup_return);
#endif
    check_at("f point %d", i);
    check_close("rev primal", r.f, fv, TOL_AD);
    check_close("rev primal dx", r.dx, wx, TOL_AD);
    check_close("rev primal dy", r.dy, wy, TOL_AD);
    check_close("rev primal dx vs FD", r.dx, fdx, TOL_FD);
    check_close("rev primal dy vs FD", r.dy, fdy, TOL_FD);
    check_close("rev primal, one out: primal", r1.f, fv, TOL_AD);
    check_close("rev primal, one out: dy", r1.dx, wy, TOL_AD);
    check_close("noret dx", n, wx, TOL_AD);
    check_close("active_return dx", act, wx, TOL_AD);
    check_close("fwd primal", t.f, fv, TOL_AD);
    check_close("fwd primal tangent", t.dx, wx + 0.5 * wy, TOL_AD);
    check_close("fwd primal tangent vs FD", t.dx, fdx + 0.5 * fdy, TOL_FD);
    check_close("fwd width 2 primal", tw.f, fv, TOL_AD);
    check_close("fwd width 2 lane 0", tw.d[0], wx, TOL_AD);
    check_close("fwd width 2 lane 1", tw.d[1], wy, TOL_AD);
  }

  const double xs[3] = {0.6, -1.2, 1.9};
  for (int i = 0; i < 3; i++) {
    double x = xs[i];
    double p[1] = {0}, dp[1] = {1.0};
    double fd_mem = fdn(w_mem, &x, 1, 0), fd_ret = fdn(w_ret, &x, 1, 0);
#ifdef NO_AD
    double c = 2.0 * x;
    double dp_c = 1.0, a = 2.0 * x + cos(x);
    prim1 cp = {sin(x), 2.0 * x};
    double tan_mem = 2.0 * x;
    double prim_only = sin(x);
    double s = 2.0 * x;
#else
    double c = __enzyme_autodiff((void *)w, enzyme_const_return, enzyme_dup,
                                 p, dp, x);
    double dp_c = dp[0]; /* zeroed by the reverse sweep, then reseeded */
    dp[0] = 1.0;
    double a = __enzyme_autodiff((void *)w, enzyme_dup, p, dp, x);
    dp[0] = 1.0;
    prim1 cp = __enzyme_autodiff_p1((void *)w, enzyme_dup, p, dp, x,
                                    enzyme_const_return, enzyme_primal_return);
    double tp[1] = {0};
    __enzyme_fwddiff_v((void *)w, enzyme_const_return, p, tp, x, 1.0);
    double tan_mem = tp[0];
    double tp2[1] = {0};
    double prim_only = __enzyme_fwddiff((void *)w, p, tp2, x, 1.0,
                                        enzyme_primal_return,
                                        enzyme_const_return);
    dp[0] = 1.0;
    void *tape = __enzyme_augmentfwd((void *)w, enzyme_const_return,
                                     enzyme_dup, p, dp, x);
    double s = __enzyme_reverse_d((void *)w, enzyme_dup, p, dp, x, tape,
                                  enzyme_const_return);
    dp_c = dp_c == 0.0 ? 1.0 : 0.0;
#endif
    check_at("w x=%g", x);
    check_close("const_return: memory adjoint only", c, 2.0 * x, TOL_AD);
    check_close("const_return vs FD", c, fd_mem, TOL_FD);
    check_close("shadow consumed", dp_c, 1.0, TOL_AD);
    check_close("active return and memory", a, 2.0 * x + cos(x), TOL_AD);
    check_close("active return and memory vs FD", a, fd_mem + fd_ret, TOL_FD);
    check_close("const_return + primal: primal", cp.f, sin(x), TOL_AD);
    check_close("const_return + primal: dx", cp.dx, 2.0 * x, TOL_AD);
    check_close("fwd const_return: tangent memory", tan_mem, 2.0 * x, TOL_AD);
    check_close("fwd const_return + primal", prim_only, sin(x), TOL_AD);
    check_close("split const_return (no dret)", s, 2.0 * x, TOL_AD);
  }

  double a[2] = {1.5, 2.5}, b[2] = {-0.5, 3.0};
  double da[2] = {0.1, 0.2}, db[2] = {0.3, 0.4};
  for (int i = 0; i < 2; i++) {
    double c = i ? -0.7 : 0.8;
#ifdef NO_AD
    double *s = c > 0 ? da : db;
#else
    double *s = __enzyme_fwddiff_ptr((void *)pick, a, da, b, db,
                                     enzyme_const, c, enzyme_dup_return);
#endif
    check_at("pick c=%g", c);
    check_close("shadow of the returned pointer", s == (c > 0 ? da : db), 1.0,
                0.0);
  }

  for (int i = 0; i < 2; i++) {
    double x = i ? -1.3 : 0.6;
    double out[1] = {0}, dout[1] = {0};
#ifdef NO_AD
    aug_ptr a = {0, out, dout};
    out[0] = x * x;
    a.shadow[0] = 1.0;
    double dx = 2.0 * x;
#else
    aug_ptr a = __enzyme_augmentfwd_ptr((void *)square_into, enzyme_dup_return,
                                        out, dout, x);
    a.shadow[0] = 1.0; /* seed through the returned shadow */
    double dx = __enzyme_reverse_d((void *)square_into, out, dout, x, a.tape,
                                   enzyme_dup_return);
#endif
    check_at("square_into x=%g", x);
    check_close("split: primal result is out", a.r == out, 1.0, 0.0);
    check_close("split: returned shadow is dout", a.shadow == dout, 1.0, 0.0);
    check_close("split: primal ran", out[0], x * x, TOL_AD);
    check_close("split: dx through the returned shadow", dx, 2.0 * x, TOL_AD);
    check_close("split: dx vs FD", dx, fdn(sq_v, &x, 1, 0), TOL_FD);
  }
  return check_report();
}
