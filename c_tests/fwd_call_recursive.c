/* fwd_call_recursive.c: forward mode through recursive functions.
 *   fib(a, b, n): Fibonacci-shaped recursion whose leaves (n < 2) return
 *     *a + *b; L(n) leaves (L(n) = F(n+1)): tangent L(n) (da + db).
 *   fibw(a, b, n): value-dependent leaves: *a * *b at n == 1, sin(*a) at
 *     n <= 0: tangent F1 (b da + a db) + F0 cos(a) da.
 *   pw(x, n) = x * pw(x, n-1), pw(x, 0) = 1: x duplicated by value,
 *     tangent n x^(n-1) dx.
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include <stdlib.h>
#include "enzyme.h"
#include "check.h"

static double fib(double *a, double *b, int n) {
  if (n < 2)
    return *a + *b;
  return fib(a, b, n - 1) + fib(a, b, n - 2);
}
static double fibw(double *a, double *b, int n) {
  if (n == 1)
    return *a * *b;
  if (n <= 0)
    return sin(*a);
  return fibw(a, b, n - 1) + fibw(a, b, n - 2);
}
static double pw(double x, int n) { return n == 0 ? 1.0 : x * pw(x, n - 1); }

static int g_n;
static double fib_v(double *v) { return fib(v, v + 1, g_n); }
static double fibw_v(double *v) { return fibw(v, v + 1, g_n); }
static double pw_x(double x) { return pw(x, g_n); }

/* leaves of the recursion tree at n: c0 of n <= 0, c1 of n == 1 */
static void leaves(int n, long *c0, long *c1) {
  long a0 = 1, a1 = 0, b0 = 0, b1 = 1;
  if (n <= 0) {
    *c0 = 1;
    *c1 = 0;
    return;
  }
  for (int k = 2; k <= n; k++) {
    long t0 = a0 + b0, t1 = a1 + b1;
    a0 = b0;
    a1 = b1;
    b0 = t0;
    b1 = t1;
  }
  *c0 = b0;
  *c1 = b1;
}

#ifdef NO_AD
static double emul_fib(double *a, double *da, double *b, double *db, int n) {
  long c0, c1;
  leaves(n, &c0, &c1);
  (void)a;
  (void)b;
  return (double)(c0 + c1) * (*da + *db);
}
static double emul_fibw(double *a, double *da, double *b, double *db, int n) {
  long c0, c1;
  leaves(n, &c0, &c1);
  return c1 * (*b * *da + *a * *db) + c0 * cos(*a) * *da;
}
static double emul_pw(double x, double dx, int n) { return n * pow(x, n - 1) * dx; }
#endif

int main(void) {
  const double pts[2][2] = {{0.7, -1.3}, {-0.4, 2.1}};
  const int ns[2] = {5, 6};
  long c0, c1;
  check_seed(55);
  for (int p = 0; p < 2; p++) {
    int n = ns[p];
    g_n = n;
    leaves(n, &c0, &c1);
    double a = pts[p][0], b = pts[p][1], v[2];
    check_rand_dir(v, 2);
    double da = v[0], db = v[1];
    check_at("fib n=%d point %d", n, p);
#ifdef NO_AD
    double t = emul_fib(&a, &da, &b, &db, n);
#else
    double t = __enzyme_fwddiff((void *)fib, enzyme_dup, &a, &da, enzyme_dup, &b, &db, n);
#endif
    check_close("tangent vs analytic", t, (double)(c0 + c1) * (v[0] + v[1]), TOL_AD);
    check_close("tangent vs FD", t, fddir(fib_v, pts[p], v, 2), TOL_FD);

    check_at("fibw n=%d point %d", n, p);
#ifdef NO_AD
    double tw = emul_fibw(&a, &da, &b, &db, n);
#else
    double tw = __enzyme_fwddiff((void *)fibw, &a, &da, &b, &db, n);
#endif
    check_close("tangent vs analytic", tw, c1 * (b * v[0] + a * v[1]) + c0 * cos(a) * v[0], TOL_AD);
    check_close("tangent vs FD", tw, fddir(fibw_v, pts[p], v, 2), TOL_FD);
    check_close("da unchanged", da, v[0], 0.0);
    check_close("db unchanged", db, v[1], 0.0);

    for (int m = 1; m <= 7; m += 3) {
      double x = pts[p][0] + 0.5 * pts[p][1], dx = 2.0 * check_rand();
      g_n = m;
      check_at("pw n=%d x=%g dx=%g", m, x, dx);
#ifdef NO_AD
      double tp = emul_pw(x, dx, m);
#else
      double tp = __enzyme_fwddiff((void *)pw, x, dx, m);
#endif
      check_close("tangent vs analytic", tp, m * pow(x, m - 1) * dx, TOL_AD);
      check_close("tangent vs FD", tp, fd1(pw_x, x) * dx, TOL_FD);
    }
  }
  return check_report();
}
