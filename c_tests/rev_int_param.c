/* rev_int_param.c: int params mixed with doubles (const by default, in any
 * position, i32 and i64) and int<->fp casts (sitofp, uitofp, fptosi,
 * fptoui), which carry no derivative. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

static double f(double x, int n) { return (double)n * x * x + sin(x * n); }
static double g(int k, double x, long m) { return x * k - m / x; }
static double h(double x) { return x * (double)(int)(3.0 * x); }
static double u(double x, unsigned q) { return x / (double)q + (double)(unsigned)(x * x); }
static int cur_n;
static double f_1(double x) { return f(x, cur_n); }
static double g_1(double x) { return g(cur_n, x, 5L * cur_n); }
static double u_1(double x) { return u(x, (unsigned)(cur_n + 4)); }

int main(void) {
  const double xs[] = {0.5, 1.1, -0.9};
  const int ns[] = {3, -2, 7};
  for (int i = 0; i < 3; i++) {
    double x = xs[i];
    int n = ns[i];
    cur_n = n;
    check_at("f x=%g n=%d", x, n);
    double d = __enzyme_autodiff((void *)f, x, n);
    check_close("dx vs analytic", d, 2.0 * n * x + n * cos(n * x), TOL_AD);
    check_close("dx vs FD", d, fd1(f_1, x), TOL_FD);

    check_at("g k=%d x=%g m=%ld", n, x, 5L * n);
    d = __enzyme_autodiff((void *)g, n, x, 5L * n);
    check_close("dx vs analytic", d, n + 5.0 * n / (x * x), TOL_AD);
    check_close("dx vs FD", d, fd1(g_1, x), TOL_FD);

    check_at("h x=%g", x);
    d = __enzyme_autodiff((void *)h, x);
    check_close("dx vs analytic", d, (double)(int)(3.0 * x), TOL_AD);
    check_close("dx vs FD", d, fd1(h, x), TOL_FD);

    double y = 1.3 + 0.8 * i; /* x*x not near an integer */
    unsigned q = (unsigned)(n + 4);
    check_at("u x=%g q=%u", y, q);
    d = __enzyme_autodiff((void *)u, y, q);
    check_close("dx vs analytic", d, 1.0 / q, TOL_AD);
    check_close("dx vs FD", d, fd1(u_1, y), TOL_FD);
  }
  return check_report();
}
