/* call_function_choice.c: the function handed to __enzyme_* chosen at run
 * time between functions the module defines. clang merges the calls of
 *   if (k == 0) __enzyme_autodiff((void *)f, ...); else if (k == 1) ... g
 * into one call whose function is a phi (or a select), and
 * __enzyme_fwddiff((void *)(k ? g : h), ...) passes a select as written,
 * and __enzyme_autodiff((void *)fns[k], ...) a function read from a
 * constant table of them; each is differentiated per function it can be.
 *   f(x, y) = sin(x) y      g(x, y) = x^2 e^y      h(x, y) = x / (1 + y^2)
 * Reverse (both partials, enzyme_out) and forward mode; checked against
 * the analytic derivatives and central finite differences. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

double f(double x, double y) { return sin(x) * y; }
double g(double x, double y) { return x * x * exp(y); }
double h(double x, double y) { return x / (1 + y * y); }

typedef struct { double dx, dy; } grad2;
grad2 __enzyme_autodiff_grad2(void *, ...);

static void want(int k, double x, double y, double *dx, double *dy) {
  switch (k) {
  case 0: *dx = cos(x) * y; *dy = sin(x); break;
  case 1: *dx = 2 * x * exp(y); *dy = x * x * exp(y); break;
  default: *dx = 1 / (1 + y * y); *dy = -2 * x * y / ((1 + y * y) * (1 + y * y)); break;
  }
}
static double (*const fns[3])(double, double) = {f, g, h};
static int k_g;
static double fk_v(const double *v) { return fns[k_g](v[0], v[1]); }

__attribute__((noinline)) static grad2 gradient_of(int k, double x, double y) {
  grad2 r;
  if (k == 0)
    r = __enzyme_autodiff_grad2((void *)f, x, y);
  else if (k == 1)
    r = __enzyme_autodiff_grad2((void *)g, x, y);
  else
    r = __enzyme_autodiff_grad2((void *)h, x, y);
  return r;
}

__attribute__((noinline)) static grad2 gradient_from_table(int k, double x, double y) {
  return __enzyme_autodiff_grad2((void *)fns[k], x, y);
}

__attribute__((noinline)) static double tangent_of(int k, double x, double y, double dx, double dy) {
  return __enzyme_fwddiff((void *)(k == 1 ? g : h), x, dx, y, dy);
}

int main(void) {
  const double pts[3][2] = {{0.7, -1.2}, {1.9, 0.4}, {-0.3, 2.1}};
  for (int k = 0; k < 3; k++) {
    for (int p = 0; p < 3; p++) {
      double x = pts[p][0], y = pts[p][1], wx, wy;
      want(k, x, y, &wx, &wy);
      k_g = k;
      check_at("k=%d x=%g y=%g", k, x, y);
      grad2 d = gradient_of(k, x, y);
      check_close("dx vs analytic", d.dx, wx, TOL_AD);
      check_close("dy vs analytic", d.dy, wy, TOL_AD);
      check_close("dx vs FD", d.dx, fdn(fk_v, pts[p], 2, 0), TOL_FD);
      check_close("dy vs FD", d.dy, fdn(fk_v, pts[p], 2, 1), TOL_FD);
      grad2 t = gradient_from_table(k, x, y);
      check_close("dx from the table vs analytic", t.dx, wx, TOL_AD);
      check_close("dy from the table vs analytic", t.dy, wy, TOL_AD);
      if (k > 0) {
        check_close("forward x vs analytic", tangent_of(k, x, y, 1, 0), wx, TOL_AD);
        check_close("forward y vs analytic", tangent_of(k, x, y, 0, 1), wy, TOL_AD);
      }
    }
  }
  return check_report();
}
