/* loop_memory_10m.c: the memory cost of a long loop. f integrates the
 * logistic equation
 *   ds/dt = a s (1 - s), s(0) = x, t in [0, 1]
 * with n = 10^7 explicit Euler steps (h = 1/n):
 *   s_(i+1) = s_i + h a s_i (1 - s_i);   f(x, a, n) = s_n
 * x and a are `out` scalars; the reverse sweep needs s_i once per iteration,
 * in reverse order (s goes from 0.2 to 0.53: the order matters): one double
 * per iteration, 80 MB of cache. Nothing else in the program is big, so its
 * peak resident set, read with getrusage right after the gradient call, must
 * stay under 200 MB.
 *   ds_n/dx = prod_i (1 + h a (1 - 2 s_i)),  ds_n/da = sum_i h s_i (1 - s_i)
 *   * (the product over the later steps). Reference: a hand-written reverse
 *   sweep over a stored trajectory, run after the memory was measured. Also
 *   checked: central FD through all 10^7 steps, and the exact solution
 *   s(1) = 1 / (1 + (1/x - 1) e^-a) (Euler is O(h) from it: 1e-5 tolerance).
 * Build with -DNO_AD to replace the AD calls by the analytic derivative (the
 * hand-written reverse sweep, whose 80 MB tape then shows in the peak). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include "enzyme.h"
#include "check.h"

typedef struct {
  double dx, da;
} grad2;
grad2 __enzyme_autodiff_grad2(void *, ...);

#define NSTEPS 10000000
#define LIMIT_KB (200L * 1024L)

static double f(double x, double a, int n) {
  double h = 1.0 / n, s = x;
  for (int i = 0; i < n; i++)
    s = s + h * a * s * (1.0 - s);
  return s;
}

/* the reverse sweep by hand, with a tape of the n + 1 states */
static grad2 ref_grad(double x, double a, int n) {
  grad2 g = {NAN, NAN};
  double h = 1.0 / n, ds = 1.0, da = 0.0;
  double *s = (double *)malloc(((size_t)n + 1) * sizeof(double));
  if (!s)
    return g;
  s[0] = x;
  for (int i = 0; i < n; i++)
    s[i + 1] = s[i] + h * a * s[i] * (1.0 - s[i]);
  for (int i = n - 1; i >= 0; i--) {
    da += ds * h * s[i] * (1.0 - s[i]);
    ds *= 1.0 + h * a * (1.0 - 2.0 * s[i]);
  }
  free(s);
  g.dx = ds;
  g.da = da;
  return g;
}

/* the exact flow of ds/dt = a s (1 - s) at t = 1:
 * s(1) = 1 / (1 + q), q = (1/x - 1) e^-a */
static grad2 ode_grad(double x, double a) {
  double e = exp(-a), q = (1.0 / x - 1.0) * e, d = 1.0 / ((1.0 + q) * (1.0 + q));
  grad2 g = {d * e / (x * x), d * q};
  return g;
}

static long peak_kb(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss; /* kB on Linux */
}

static double g_a, g_x;
static double f_x(double x) { return f(x, g_a, NSTEPS); }
static double f_a(double a) { return f(g_x, a, NSTEPS); }

int main(void) {
  const double x = 0.2, a = 1.5;
  int n = NSTEPS;

  long before = peak_kb();
#ifdef NO_AD
  grad2 g = ref_grad(x, a, n);
#else
  grad2 g = __enzyme_autodiff_grad2((void *)f, x, a, n);
#endif
  long after = peak_kb();
  check_at("n=%d peak RSS %ld kB before, %ld kB after the gradient", n,
           before, after);
  check_close("peak RSS under 200 MB (1 = yes)", after <= LIMIT_KB, 1.0, 0.0);

  /* only now the references, which need memory of their own */
  grad2 r = ref_grad(x, a, n), e = ode_grad(x, a);
  g_a = a;
  g_x = x;
  check_at("x=%g a=%g n=%d", x, a, n);
  check_close("dx vs reference", g.dx, r.dx, TOL_AD);
  check_close("da vs reference", g.da, r.da, TOL_AD);
  check_close("dx vs FD", g.dx, fd1(f_x, x), TOL_FD);
  check_close("da vs FD", g.da, fd1(f_a, a), TOL_FD);
  check_close("dx vs exact ODE derivative", g.dx, e.dx, 1e-5);
  check_close("da vs exact ODE derivative", g.da, e.da, 1e-5);
  return check_report();
}
