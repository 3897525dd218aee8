// Compiled with -g: the derivatives' code must carry the source lines of
// the statements it comes from (see ir_checks.rs, debug_locations).
#include <math.h>
#include "enzyme.h"

__attribute__((noinline)) double f(const double *x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    double a = x[i] * x[i];
    s += sin(a); // LINE_SIN
  }
  return s;
}

void grad_f(const double *x, double *dx, int n) {
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, n);
}

double tangent_f(const double *x, const double *dx, int n) {
  return __enzyme_fwddiff((void *)f, enzyme_dup, x, dx, enzyme_const, n);
}
