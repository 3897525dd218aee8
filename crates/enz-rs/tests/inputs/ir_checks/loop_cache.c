// Inputs of ir_checks.rs `loop_invariant_values_need_no_cache_array`.
//
// f: the reverse of iteration i adds a[i] * ds to the adjoint of sin(x);
// a[i] is constant memory (reloaded) and sin(x) does not change in the
// loop, so no per-iteration cache array is needed.
//
// g: Horner's scheme, s = s * x + a[i]: the reverse of iteration i needs
// that iteration's incoming s (d(s*x)/dx = s), a different value every
// iteration, so a per-iteration cache (heap array) is needed. This is the
// positive control of the check.
#include <math.h>

#include "enzyme.h"

double f(double x, const double *a, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += sin(x) * a[i];
  return s;
}

double g(double x, const double *a, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s = s * x + a[i];
  return s;
}

double df(double x, const double *a, int n) {
  return __enzyme_autodiff((void *)f, x, enzyme_const, a, n);
}

double dg(double x, const double *a, int n) {
  return __enzyme_autodiff((void *)g, x, enzyme_const, a, n);
}
