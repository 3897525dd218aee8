/* rev_switch.c: switch over an int computed from x ((int)floor(x): fptosi,
 * inactive) and over an int parameter (const by default and with an
 * explicit enzyme_const marker). */
#include <math.h>
#include "enzyme.h"
#include "check.h"

static double region(double x) {
  switch ((int)floor(x)) {
  case -1: return exp(x);
  case 0: return x * x;
  case 1: return 3.0 * x - 1.0;
  case 2: return sin(x);
  default: return 0.5 * x;
  }
}
static double dregion(double x) {
  switch ((int)floor(x)) {
  case -1: return exp(x);
  case 0: return 2.0 * x;
  case 1: return 3.0;
  case 2: return cos(x);
  default: return 0.5;
  }
}

static double mode_fn(double x, int mode) {
  switch (mode) {
  case 0: return x * x * x;
  case 1: return 1.0 / x;
  case 7: return cos(x) * x;
  default: return x;
  }
}
static int cur_mode;
static double mode_1(double x) { return mode_fn(x, cur_mode); }
static double dmode(double x, int mode) {
  switch (mode) {
  case 0: return 3.0 * x * x;
  case 1: return -1.0 / (x * x);
  case 7: return cos(x) - sin(x) * x;
  default: return 1.0;
  }
}

int main(void) {
  const double xs[] = {-0.5, 0.5, 1.5, 2.5, 4.2, -3.3};
  for (int i = 0; i < 6; i++) {
    double x = xs[i];
    check_at("region x=%g", x);
    double d = __enzyme_autodiff((void *)region, x);
    check_close("d/dx vs analytic", d, dregion(x), TOL_AD);
    check_close("d/dx vs FD", d, fd1(region, x), TOL_FD);
  }
  const int modes[] = {0, 1, 7, 3};
  for (int i = 0; i < 4; i++) {
    int m = modes[i];
    double x = 0.8 + 0.3 * i;
    cur_mode = m;
    check_at("mode_fn mode=%d x=%g", m, x);
    double d1 = __enzyme_autodiff((void *)mode_fn, x, m);
    double d2 = __enzyme_autodiff((void *)mode_fn, x, enzyme_const, m);
    check_close("d/dx vs analytic", d1, dmode(x, m), TOL_AD);
    check_close("d/dx vs FD", d1, fd1(mode_1, x), TOL_FD);
    check_close("d/dx (enzyme_const int) vs analytic", d2, dmode(x, m), TOL_AD);
  }
  return check_report();
}
