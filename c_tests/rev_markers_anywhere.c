/* rev_markers_anywhere.c: whole-call markers anywhere in the argument list.
 * As in Enzyme, `enzyme_width, N`, `enzyme_allocated, SIZE` and
 * `enzyme_tape, PTR` configure the whole call and may come before, between
 * or after the values of the function's parameters.
 *   f(x, y)     = x^2 y + sin(x y)         (reverse, forward, vector forward)
 *   g(p, c, n)  = c * sum_k p[k]^2         (split, caller-allocated tape)
 * Checked against the analytic derivatives and central differences:
 *   - __enzyme_fwddiff with enzyme_width 2 first, between x's tangents and
 *     y, and last;
 *   - __enzyme_augmentfwd/__enzyme_reverse with enzyme_allocated and
 *     enzyme_tape between the arguments and after them (different places
 *     in the two calls);
 *   - __enzyme_autodiff with enzyme_width 1 last (and the hint
 *     enzyme_not_overwritten, accepted and ignored).
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include <string.h>
#include "enzyme.h"
#include "check.h"

typedef struct { double d[2]; } tan2;
tan2 __enzyme_fwddiff_w2(void *, ...);
typedef struct { double dx, dy; } grad2;
grad2 __enzyme_autodiff_grad2(void *, ...);
void __enzyme_augmentfwd_v(void *, ...);
double __enzyme_reverse_d(void *, ...);

static double f(double x, double y) { return x * x * y + sin(x * y); }
static double f_v(const double *v) { return f(v[0], v[1]); }
static double fx(double x, double y) { return 2.0 * x * y + y * cos(x * y); }
static double fy(double x, double y) { return x * x + x * cos(x * y); }

__attribute__((noinline)) double g(double *p, double c, int n) {
  double s = 0.0;
  for (int k = 0; k < n; k++)
    s += p[k] * p[k];
  return c * s;
}
static double g_c(const double *v) {
  double p[3] = {0.3, -1.2, 0.8};
  return g(p, v[0], 3);
}

int main(void) {
  const double pts[3][2] = {{0.7, -1.3}, {-1.1, 0.4}, {1.6, 0.9}};
  for (int i = 0; i < 3; i++) {
    double x = pts[i][0], y = pts[i][1];
    double v[2] = {x, y};
    double wx = fx(x, y), wy = fy(x, y);
    double fdx = fdn(f_v, v, 2, 0), fdy = fdn(f_v, v, 2, 1);
    /* lane 0: d/dx, lane 1: d/dx + 2 d/dy */
    double w0 = wx, w1 = wx + 2.0 * wy;
#ifdef NO_AD
    tan2 a = {{w0, w1}}, b = a, c = a;
    grad2 r = {wx, wy};
#else
    tan2 a = __enzyme_fwddiff_w2((void *)f, enzyme_width, 2, x, 1.0, 1.0, y,
                                 0.0, 2.0);
    tan2 b = __enzyme_fwddiff_w2((void *)f, x, 1.0, 1.0, enzyme_width, 2, y,
                                 0.0, 2.0);
    tan2 c = __enzyme_fwddiff_w2((void *)f, x, 1.0, 1.0, y, 0.0, 2.0,
                                 enzyme_width, 2);
    grad2 r = __enzyme_autodiff_grad2((void *)f, enzyme_not_overwritten, x, y,
                                      enzyme_width, 1);
#endif
    check_at("f point %d", i);
    check_close("width first, lane 0", a.d[0], w0, TOL_AD);
    check_close("width first, lane 1", a.d[1], w1, TOL_AD);
    check_close("width between, lane 0", b.d[0], w0, TOL_AD);
    check_close("width between, lane 1", b.d[1], w1, TOL_AD);
    check_close("width last, lane 0", c.d[0], w0, TOL_AD);
    check_close("width last, lane 1", c.d[1], w1, TOL_AD);
    check_close("width last, lane 1 vs FD", c.d[1], fdx + 2.0 * fdy, TOL_FD);
    check_close("autodiff dx", r.dx, wx, TOL_AD);
    check_close("autodiff dy", r.dy, wy, TOL_AD);
    check_close("autodiff dx vs FD", r.dx, fdx, TOL_FD);
    check_close("autodiff dy vs FD", r.dy, fdy, TOL_FD);
  }

  const double cs[2] = {0.6, -1.7};
  for (int i = 0; i < 2; i++) {
    double p[3] = {0.3, -1.2, 0.8}, dp[3] = {0, 0, 0};
    double c = cs[i], dret = 1.5;
    double s = p[0] * p[0] + p[1] * p[1] + p[2] * p[2];
    _Alignas(16) char buf[4096];
    memset(buf, 0, sizeof buf);
#ifdef NO_AD
    double dc = s * dret;
    for (int k = 0; k < 3; k++)
      dp[k] = 2.0 * c * p[k] * dret;
#else
    __enzyme_augmentfwd_v((void *)g, enzyme_dup, p, dp, enzyme_allocated,
                          4096, c, enzyme_tape, buf, 3);
    double dc = __enzyme_reverse_d((void *)g, enzyme_dup, p, dp, c, 3,
                                   enzyme_tape, buf, enzyme_allocated, 4096,
                                   dret);
#endif
    double cv[1] = {c};
    check_at("g c=%g", c);
    check_close("dc", dc, s * dret, TOL_AD);
    check_close("dc vs FD", dc, fdn(g_c, cv, 1, 0) * dret, TOL_FD);
    for (int k = 0; k < 3; k++)
      check_close("dp[k]", dp[k], 2.0 * c * p[k] * dret, TOL_AD);
  }
  return check_report();
}
