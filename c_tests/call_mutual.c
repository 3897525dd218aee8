/* call_mutual.c: mutual recursion, depth from an int argument:
 *   ev(x, n) = n == 0 ? x : sin(od(x, n-1)) * x
 *   od(x, n) = n == 0 ? x : cos(ev(x, n-1))
 * x is `out` (scalar adjoint returned). Also a pointer version, where the
 * scalar comes from and the result goes through memory at every level:
 *   evp(x, n) = n == 0 ? x[0] : sin(odp(x, n-1)) * x[1]
 *   odp(x, n) = n == 0 ? x[0] : cos(evp(x, n-1)) + x[1]
 * The reference derivative is computed by a forward recurrence (a loop in
 * the harness). Build with -DNO_AD to replace the AD calls by the analytic
 * derivative. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

double call_mutual_od(double x, int n);
double call_mutual_ev(double x, int n) {
  return n == 0 ? x : sin(call_mutual_od(x, n - 1)) * x;
}
double call_mutual_od(double x, int n) { return n == 0 ? x : cos(call_mutual_ev(x, n - 1)); }

static double odp(double *x, int n);
static double evp(double *x, int n) { return n == 0 ? x[0] : sin(odp(x, n - 1)) * x[1]; }
static double odp(double *x, int n) { return n == 0 ? x[0] : cos(evp(x, n - 1)) + x[1]; }

static int g_n;
static double ev_x(double x) { return call_mutual_ev(x, g_n); }
static double od_x(double x) { return call_mutual_od(x, g_n); }
static double evp_v(double *x) { return evp(x, g_n); }
static double odp_v(double *x) { return odp(x, g_n); }

/* value and derivative (w.r.t. x, or w.r.t. (x0, x1) in the pointer form)
 * of the top function (top_ev: 1 for ev, 0 for od) at depth n */
static void reference(int top_ev, int n, double x0, double x1, int ptr, double *val,
                      double *d0, double *d1) {
  double v = x0, g0 = 1.0, g1 = 0.0; /* depth 0 */
  for (int k = 1; k <= n; k++) {
    /* the function applied at depth k: top if (n - k) is even */
    int is_ev = ((n - k) % 2 == 0) ? top_ev : !top_ev;
    double m = ptr ? x1 : x0; /* the multiplier / addend */
    if (is_ev) {
      double s = sin(v), c = cos(v);
      double n0 = c * g0 * m + (ptr ? 0.0 : s);
      double n1 = c * g1 * m + (ptr ? s : 0.0);
      v = s * m;
      g0 = n0;
      g1 = n1;
    } else {
      double s = sin(v);
      g0 = -s * g0;
      g1 = -s * g1 + (ptr ? 1.0 : 0.0);
      v = cos(v) + (ptr ? m : 0.0);
    }
  }
  *val = v;
  *d0 = g0;
  *d1 = g1;
}

#ifdef NO_AD
static double emul_s(int top_ev, double x, int n) {
  double v, d0, d1;
  reference(top_ev, n, x, 0.0, 0, &v, &d0, &d1);
  return d0;
}
static void emul_p(int top_ev, double *x, double *dx, int n) {
  double v, d0, d1;
  reference(top_ev, n, x[0], x[1], 1, &v, &d0, &d1);
  dx[0] += d0;
  dx[1] += d1;
}
#endif

int main(void) {
  const double pts[2][2] = {{0.7, 1.3}, {-1.1, 0.6}};
  const int ns[2] = {5, 4};
  double v, d0, d1;
  /* the reference recurrence reproduces the primal */
  check_at("reference");
  reference(1, 5, 0.7, 0.0, 0, &v, &d0, &d1);
  check_close("ev(0.7, 5)", v, call_mutual_ev(0.7, 5), 1e-14);
  reference(0, 4, -1.1, 0.6, 1, &v, &d0, &d1);
  check_close("odp({-1.1, 0.6}, 4)", v, odp((double[]){-1.1, 0.6}, 4), 1e-14);

  for (int p = 0; p < 2; p++) {
    for (int t = 0; t < 2; t++) {
      int n = ns[p] + t;
      double x = pts[p][0];
      g_n = n;
      check_at("ev x=%g n=%d", x, n);
#ifdef NO_AD
      double dx = emul_s(1, x, n);
#else
      double dx = __enzyme_autodiff((void *)call_mutual_ev, x, n);
#endif
      reference(1, n, x, 0.0, 0, &v, &d0, &d1);
      check_close("dx vs analytic", dx, d0, TOL_AD);
      check_close("dx vs FD", dx, fd1(ev_x, x), TOL_FD);

      check_at("od x=%g n=%d", x, n);
#ifdef NO_AD
      double dxo = emul_s(0, x, n);
#else
      double dxo = __enzyme_autodiff((void *)call_mutual_od, x, n);
#endif
      reference(0, n, x, 0.0, 0, &v, &d0, &d1);
      check_close("dx vs analytic", dxo, d0, TOL_AD);
      check_close("dx vs FD", dxo, fd1(od_x, x), TOL_FD);

      double xp[2] = {pts[p][0], pts[p][1]}, dxp[2] = {0}, dxq[2] = {0};
      check_at("evp x=(%g,%g) n=%d", xp[0], xp[1], n);
#ifdef NO_AD
      emul_p(1, xp, dxp, n);
#else
      __enzyme_autodiff_v((void *)evp, enzyme_dup, xp, dxp, n);
#endif
      reference(1, n, xp[0], xp[1], 1, &v, &d0, &d1);
      check_close("dx[0] vs analytic", dxp[0], d0, TOL_AD);
      check_close("dx[1] vs analytic", dxp[1], d1, TOL_AD);
      check_close("dx[0] vs FD", dxp[0], fdp(evp_v, pts[p], 2, 0), TOL_FD);
      check_close("dx[1] vs FD", dxp[1], fdp(evp_v, pts[p], 2, 1), TOL_FD);

      check_at("odp x=(%g,%g) n=%d", xp[0], xp[1], n);
#ifdef NO_AD
      emul_p(0, xp, dxq, n);
#else
      __enzyme_autodiff_v((void *)odp, enzyme_dup, xp, dxq, n);
#endif
      reference(0, n, xp[0], xp[1], 1, &v, &d0, &d1);
      check_close("dx[0] vs analytic", dxq[0], d0, TOL_AD);
      check_close("dx[1] vs analytic", dxq[1], d1, TOL_AD);
      check_close("dx[0] vs FD", dxq[0], fdp(odp_v, pts[p], 2, 0), TOL_FD);
      check_close("dx[1] vs FD", dxq[1], fdp(odp_v, pts[p], 2, 1), TOL_FD);
    }
  }
  return check_report();
}
