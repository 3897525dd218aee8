/* fwd_switch.c: forward mode through a switch over an int computed from x
 * ((int)floor(x): inactive) and over an int parameter (const: no tangent
 * follows it, unmarked and with enzyme_const).
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include <stdlib.h>
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
  check_seed(3);
  for (int i = 0; i < 6; i++)
    CHECK_FWD1(region, dregion, xs[i], 2.0 * check_rand());
  const int modes[] = {0, 1, 7, 3};
  for (int i = 0; i < 4; i++) {
    int m = modes[i];
    double x = 0.8 + 0.3 * i, dx = 2.0 * check_rand();
    cur_mode = m;
    check_at("mode_fn mode=%d x=%g dx=%g", m, x, dx);
#ifdef NO_AD
    double t1 = dmode(x, m) * dx, t2 = t1;
#else
    double t1 = __enzyme_fwddiff((void *)mode_fn, x, dx, m);
    double t2 = __enzyme_fwddiff((void *)mode_fn, enzyme_dup, x, dx, enzyme_const, m);
#endif
    check_close("tangent vs analytic", t1, dmode(x, m) * dx, TOL_AD);
    check_close("tangent vs FD", t1, fd1(mode_1, x) * dx, TOL_FD);
    check_close("tangent (enzyme_const int) vs analytic", t2, dmode(x, m) * dx, TOL_AD);
  }
  return check_report();
}
