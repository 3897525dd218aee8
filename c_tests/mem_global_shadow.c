/* mem_global_shadow.c: a global made active by giving it a shadow:
 *   void *__enzyme_register_global_g[2] = {&g, &d_g};
 * f(x) = g*x + sin(g) + g*g*tab[1] reads the global g (and an inactive
 * constant table); __enzyme_autodiff returns df/dx and accumulates df/dg
 * into d_g (+=, like any shadow). A second function writes the global:
 * h(x) = (g = g*x, g*g): dh/dx = 2 g0^2 x, and the old g's adjoint
 * 2 g0 x^2 goes to d_g. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

double g = 0.7;
double d_g = 0.0;
static const double tab[2] = {2.0, 3.0};
void *__enzyme_register_global_g[2] = {(void *)&g, (void *)&d_g};

static double f(double x) { return g * x + sin(g) + g * g * tab[1]; }
static double h(double x) {
  g = g * x;
  return g * g;
}

static double g_for_fd;
static double f_of_g(double gv) {
  double keep = g, r;
  g = gv;
  r = f(g_for_fd);
  g = keep;
  return r;
}

int main(void) {
  const double xs[2] = {1.3, -0.4};
  for (int k = 0; k < 2; k++) {
    double x = xs[k];
    check_at("f x=%g", x);
    g = 0.7;
    d_g = 0.25; /* accumulated into */
    double dx = __enzyme_autodiff((void *)f, x);
    check_close("df/dx vs analytic", dx, g, TOL_AD);
    check_close("df/dx vs FD", dx, fd1(f, x), TOL_FD);
    double want_dg = x + cos(g) + 2.0 * g * tab[1];
    check_close("d_g = 0.25 + df/dg", d_g, 0.25 + want_dg, TOL_AD);
    g_for_fd = x;
    check_close("df/dg vs FD", d_g - 0.25, fd1(f_of_g, g), TOL_FD);

    check_at("h x=%g", x);
    double g0 = 0.9;
    g = g0;
    d_g = 0.0;
    double dhx = __enzyme_autodiff((void *)h, x);
    check_close("dh/dx", dhx, 2.0 * g0 * g0 * x, TOL_AD);
    check_close("global updated", g, g0 * x, TOL_AD);
    check_close("d_g = dh/dg0", d_g, 2.0 * g0 * x * x, TOL_AD);
  }
  return check_report();
}
