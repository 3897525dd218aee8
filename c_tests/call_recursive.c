/* call_recursive.c: recursive functions.
 *   fib(a, b, n): Fibonacci-shaped recursion whose leaves (n < 2) return
 *     *a + *b. The number of leaves is L(n) = L(n-1) + L(n-2), L(0) = L(1) =
 *     1, i.e. L(n) = F(n+1) with F(1) = F(2) = 1; d/da = d/db = L(n).
 *   fibw(a, b, n): the same shape with value-dependent leaves: *a * *b at
 *     n == 1 and sin(*a) at n == 0, so d/da = F1 b + F0 cos a and
 *     d/db = F1 a, with F1, F0 the numbers of n == 1 and n == 0 leaves.
 *   pw(x, n) = x * pw(x, n-1), pw(x, 0) = 1: x is `out`, d/dx = n x^(n-1).
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

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

/* leaves of the recursion tree at n: count[0] of n <= 0, count[1] of n == 1 */
static void leaves(int n, long *c0, long *c1) {
  /* harness-side loop: L(n) by iteration */
  long a0 = 1, a1 = 0; /* n == 0: one "n<=0" leaf */
  long b0 = 0, b1 = 1; /* n == 1: one "n==1" leaf */
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
static void emul_fib(double *a, double *da, double *b, double *db, int n) {
  long c0, c1;
  leaves(n, &c0, &c1);
  *da += (double)(c0 + c1);
  *db += (double)(c0 + c1);
  (void)a;
  (void)b;
}
static void emul_fibw(double *a, double *da, double *b, double *db, int n) {
  long c0, c1;
  leaves(n, &c0, &c1);
  *da += c1 * *b + c0 * cos(*a);
  *db += c1 * *a;
}
static double emul_pw(double x, int n) { return n * pow(x, n - 1); }
#endif

int main(void) {
  const double pts[2][2] = {{0.7, -1.3}, {-0.4, 2.1}};
  const int ns[2] = {5, 6};
  /* sanity of the leaf count: L(5) = 8, L(6) = 13 */
  long c0, c1;
  leaves(5, &c0, &c1);
  check_at("leaf count");
  check_close("L(5) = 8", (double)(c0 + c1), 8.0, 0.0);
  leaves(6, &c0, &c1);
  check_close("L(6) = 13", (double)(c0 + c1), 13.0, 0.0);

  for (int p = 0; p < 2; p++) {
    int n = ns[p];
    g_n = n;
    leaves(n, &c0, &c1);
    double a = pts[p][0], b = pts[p][1], da = 0.0, db = 0.0;
    check_at("fib n=%d point %d", n, p);
#ifdef NO_AD
    emul_fib(&a, &da, &b, &db, n);
#else
    __enzyme_autodiff_v((void *)fib, enzyme_dup, &a, &da, enzyme_dup, &b, &db, n);
#endif
    check_close("da vs analytic", da, (double)(c0 + c1), TOL_AD);
    check_close("db vs analytic", db, (double)(c0 + c1), TOL_AD);
    check_close("da vs FD", da, fdp(fib_v, pts[p], 2, 0), TOL_FD);
    check_close("db vs FD", db, fdp(fib_v, pts[p], 2, 1), TOL_FD);

    double da2 = 0.0, db2 = 0.0;
    check_at("fibw n=%d point %d", n, p);
#ifdef NO_AD
    emul_fibw(&a, &da2, &b, &db2, n);
#else
    __enzyme_autodiff_v((void *)fibw, &a, &da2, &b, &db2, n);
#endif
    check_close("da vs analytic", da2, c1 * b + c0 * cos(a), TOL_AD);
    check_close("db vs analytic", db2, c1 * a, TOL_AD);
    check_close("da vs FD", da2, fdp(fibw_v, pts[p], 2, 0), TOL_FD);
    check_close("db vs FD", db2, fdp(fibw_v, pts[p], 2, 1), TOL_FD);

    for (int m = 1; m <= 7; m += 3) {
      double x = pts[p][0] + 0.5 * pts[p][1];
      g_n = m;
      check_at("pw n=%d x=%g", m, x);
#ifdef NO_AD
      double dx = emul_pw(x, m);
#else
      double dx = __enzyme_autodiff((void *)pw, x, m);
#endif
      check_close("dx vs analytic", dx, m * pow(x, m - 1), TOL_AD);
      check_close("dx vs FD", dx, fd1(pw_x, x), TOL_FD);
    }
  }
  return check_report();
}
