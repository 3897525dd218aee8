/* loop_while_newton.c: while loops whose trip count is not known before
 * they start.
 *   nsqrt(a): Newton's iteration for sqrt(a) from x = max(a, 1), until
 *     |x^2 - a| < 1e-14 (5 to 7 iterations here, depending on a):
 *     d/da = 1 / (2 sqrt(a)) (the derivative of the iterates converges as
 *     fast as the iterates).
 *   hyp(a, b) = b * nsqrt(a b + 1): the while loop inside an expression, two
 *     `out` scalars.
 *   sentinel(x): sum_i log(x_i) * (i + 1) over the x_i before the first
 *     x_i <= 0 (a sentinel-terminated scan of a dup array):
 *     d/dx_i = (i + 1) / x_i before the sentinel, 0 from it on.
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

typedef struct {
  double da, db;
} grad2;
grad2 __enzyme_autodiff_grad2(void *, ...);
void __enzyme_autodiff_v(void *, ...);

static double nsqrt(double a) {
  double x = a > 1.0 ? a : 1.0;
  while (fabs(x * x - a) >= 1e-14)
    x = 0.5 * (x + a / x);
  return x;
}

/* the same loop, counting its iterations (for the test's labels) */
static int nsqrt_iters(double a) {
  double x = a > 1.0 ? a : 1.0;
  int it = 0;
  while (fabs(x * x - a) >= 1e-14) {
    x = 0.5 * (x + a / x);
    it++;
  }
  return it;
}

static double hyp(double a, double b) { return b * nsqrt(a * b + 1.0); }

static double sentinel(double *x) {
  double s = 0.0;
  int i = 0;
  while (x[i] > 0.0) {
    s += log(x[i]) * (i + 1);
    i++;
  }
  return s;
}
static double sentinel_n(double *x, int n) { /* for fdpn; n unused */
  (void)n;
  return sentinel(x);
}

static double dnsqrt(double a) { return 0.5 / sqrt(a); }
static grad2 dhyp(double a, double b) {
  double r = sqrt(a * b + 1.0);
  grad2 g = {b * b / (2.0 * r), r + a * b / (2.0 * r)};
  return g;
}
static double g_b;
static double hyp_a(double a) { return hyp(a, g_b); }
static double g_a;
static double hyp_b(double b) { return hyp(g_a, b); }

#ifdef NO_AD
static void emul_sentinel(double *x, double *dx) {
  for (int i = 0; x[i] > 0.0; i++)
    dx[i] += (i + 1) / x[i];
}
#endif

#define N 40

int main(void) {
  const double as[4] = {0.3, 2.0, 7.5, 10.0};
  for (int p = 0; p < 4; p++) {
    double a = as[p], b = 0.4 + 0.3 * p;
    check_at("nsqrt a=%g (%d iterations)", a, nsqrt_iters(a));
#ifdef NO_AD
    double d = dnsqrt(a);
#else
    double d = __enzyme_autodiff((void *)nsqrt, a);
#endif
    check_close("da vs analytic", d, dnsqrt(a), TOL_AD);
    check_close("da vs FD", d, fd1(nsqrt, a), TOL_FD);

    check_at("hyp a=%g b=%g", a, b);
    grad2 want = dhyp(a, b);
#ifdef NO_AD
    grad2 g = want;
#else
    grad2 g = __enzyme_autodiff_grad2((void *)hyp, a, b);
#endif
    g_a = a;
    g_b = b;
    check_close("da vs analytic", g.da, want.da, TOL_AD);
    check_close("db vs analytic", g.db, want.db, TOL_AD);
    check_close("da vs FD", g.da, fd1(hyp_a, a), TOL_FD);
    check_close("db vs FD", g.db, fd1(hyp_b, b), TOL_FD);
  }

  /* the sentinel at 23, then at 0 (no iteration), then at N - 1 */
  const int stop[3] = {23, 0, N - 1};
  for (int p = 0; p < 3; p++) {
    double x[N], dx[N] = {0}, want[N], fd[N];
    for (int i = 0; i < N; i++)
      x[i] = 1.0 + 0.5 * sin(0.8 * i + p);
    x[stop[p]] = -1.0;
    for (int i = 0; i < N; i++)
      want[i] = i < stop[p] ? (i + 1) / x[i] : 0.0;
    check_at("sentinel at %d", stop[p]);
#ifdef NO_AD
    emul_sentinel(x, dx);
#else
    __enzyme_autodiff_v((void *)sentinel, enzyme_dup, x, dx);
#endif
    check_close_arr("dx vs analytic", dx, want, N, TOL_AD);
    for (int i = 0; i < N; i++)
      fd[i] = fdpn(sentinel_n, x, N, i);
    check_close_arr("dx vs FD", dx, fd, N, TOL_FD);
  }
  return check_report();
}
