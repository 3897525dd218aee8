/* call_inactive_fn.c: a user function declared inactive the Enzyme way, by
 * listing it in a global array named __enzyme_inactivefn. Its result is a
 * pure function of an active value, but the derivative must treat it as a
 * constant: the derivative does NOT include its dependence on x.
 *   scale(u) = 1 + u^2 (inactive, noinline so the call survives -O2)
 *   f(x) = x0 scale(x1) + sin(x1) x0
 *   df/dx0 = scale(x1) + sin x1,  df/dx1 = cos(x1) x0   (no 2 x0 x1 term)
 * The FD reference freezes scale at its value at the point.
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

__attribute__((noinline)) double call_inactive_scale(double u) { return 1.0 + u * u; }
void *__enzyme_inactivefn[] = {(void *)call_inactive_scale};

static double f(double *x) { return x[0] * call_inactive_scale(x[1]) + sin(x[1]) * x[0]; }

static double g_frozen;
/* f with scale frozen at g_frozen */
static double f_frozen(double *x) { return x[0] * g_frozen + sin(x[1]) * x[0]; }

#ifdef NO_AD
static void emul(double *x, double *dx) {
  dx[0] += call_inactive_scale(x[1]) + sin(x[1]);
  dx[1] += cos(x[1]) * x[0];
}
#endif

int main(void) {
  const double pts[2][2] = {{0.9, -1.4}, {-0.6, 0.8}};
  for (int p = 0; p < 2; p++) {
    double x[2] = {pts[p][0], pts[p][1]}, dx[2] = {0};
    double s = 1.0 + x[1] * x[1];
    g_frozen = s;
    check_at("f point %d", p);
#ifdef NO_AD
    emul(x, dx);
#else
    __enzyme_autodiff_v((void *)f, enzyme_dup, x, dx);
#endif
    check_close("dx[0] vs analytic", dx[0], s + sin(x[1]), TOL_AD);
    check_close("dx[1] vs analytic (scale inactive)", dx[1], cos(x[1]) * x[0], TOL_AD);
    check_close("dx[0] vs FD (scale frozen)", dx[0], fdp(f_frozen, pts[p], 2, 0), TOL_FD);
    check_close("dx[1] vs FD (scale frozen)", dx[1], fdp(f_frozen, pts[p], 2, 1), TOL_FD);
    /* sanity: the true derivative differs, so the test can tell them apart */
    double full = fdp(f, pts[p], 2, 1);
    check_close("full derivative has the extra 2 x0 x1 term", full,
                cos(x[1]) * x[0] + 2.0 * x[0] * x[1], TOL_FD);
  }
  return check_report();
}
