/* unmarked_unused_pointer.c: an unmarked pointer parameter the function
 * never reads, passed with no shadow after it (the next value is an
 * integer), as Enzyme's ForwardMode/omp/omp3.c passes an unused `int *`.
 * Unmarked pointers default to enzyme_dup, so the integer was taken for
 * the pointer's shadow and the call refused ("passes i32 as the shadow").
 * Such a pointer has no derivative: it is now taken as enzyme_const, also
 * at -O0, where the parameter is stored into a stack slot nothing loads.
 * A pointer that is read, or one followed by a pointer, keeps the default
 * (`scale` below still gets its shadow).
 * Checked: reverse and forward derivatives of sum_i s * x_i^2 against the
 * analytic values and central differences. */
#include "enzyme.h"
#include "check.h"

#define N 5

__attribute__((noinline)) double loss(double *x, double *scale, int *unused,
                                      int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += *scale * x[i] * x[i];
  return s;
}

static double loss_x0(const double *v) {
  double x[N] = {v[0], 0.5, -1.5, 2.0, 0.25}, scale = 1.5;
  return loss(x, &scale, 0, N);
}

int main(void) {
  double x[N] = {1.0, 0.5, -1.5, 2.0, 0.25}, dx[N] = {0};
  double scale = 1.5, dscale = 0;
  int counts[N] = {0};
  __enzyme_autodiff((void *)loss, x, dx, &scale, &dscale, counts, N);
  double sumsq = 0;
  for (int i = 0; i < N; i++) {
    check_at("reverse, d/dx[%d]", i);
    check_close("vs analytic", dx[i], 2 * scale * x[i], TOL_AD);
    sumsq += x[i] * x[i];
  }
  check_at("reverse, d/dscale");
  check_close("vs analytic", dscale, sumsq, TOL_AD);
  check_at("reverse, d/dx[0]");
  check_close("vs FD", dx[0], fdn(loss_x0, x, 1, 0), TOL_FD);

  double tx[N] = {1, 0, 0, 0, 1}, tscale = 0;
  double t = __enzyme_fwddiff((void *)loss, x, tx, &scale, &tscale, counts, N);
  check_at("forward, direction e0 + e4");
  check_close("vs analytic", t, 2 * scale * (x[0] + x[4]), TOL_AD);
  return check_report();
}
