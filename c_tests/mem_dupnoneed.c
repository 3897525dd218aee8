/* mem_dupnoneed.c: a void function writing two results through a pointer.
 * With enzyme_dupnoneed on the output the primal result need not be
 * computed: only the shadows are checked. The caller seeds the output shadow
 * with w; afterwards dx holds w^T J and the output shadow is zero (the
 * function overwrites out, so the adjoint of out's initial contents is 0).
 * The same with enzyme_dup, where the primal output must be written too.
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

static void f(double *x, double *out) {
  out[0] = x[0] * x[1] + sin(x[2]);
  out[1] = x[0] * x[2] * x[2];
}

/* d/dx of w0*out0 + w1*out1 */
static void vjp(const double *x, const double *w, double *g) {
  g[0] = w[0] * x[1] + w[1] * x[2] * x[2];
  g[1] = w[0] * x[0];
  g[2] = w[0] * cos(x[2]) + w[1] * 2.0 * x[0] * x[2];
}

#ifdef NO_AD
static void emul(double *x, double *dx, double *out, double *dout, int need) {
  double g[3];
  vjp(x, dout, g);
  if (need)
    f(x, out);
  for (int k = 0; k < 3; k++)
    dx[k] += g[k];
  dout[0] = dout[1] = 0.0;
}
#endif

int main(void) {
  const double pts[2][3] = {{0.7, -1.3, 2.1}, {-1.6, 0.45, -0.8}};
  const double seeds[2][2] = {{1.0, 0.0}, {0.75, -2.5}};
  for (int p = 0; p < 2; p++) {
    for (int s = 0; s < 2; s++) {
      const double *w = seeds[s];
      double x[3], dx[3] = {0}, out[2] = {0}, dout[2], g[3];
      for (int k = 0; k < 3; k++)
        x[k] = pts[p][k];
      dout[0] = w[0];
      dout[1] = w[1];
      vjp(x, w, g);
      check_at("f dupnoneed point %d seed %d", p, s);
#ifdef NO_AD
      emul(x, dx, out, dout, 0);
#else
      __enzyme_autodiff_v((void *)f, enzyme_dup, x, dx, enzyme_dupnoneed, out, dout);
#endif
      for (int k = 0; k < 3; k++) {
        check_close_i("dx vs analytic", k, dx[k], g[k], TOL_AD);
        check_close_i("dx vs FD", k, dx[k], fdvjp(f, pts[p], 3, k, w, 2), TOL_FD);
      }
      check_close("dout[0] zeroed", dout[0], 0.0, TOL_AD);
      check_close("dout[1] zeroed", dout[1], 0.0, TOL_AD);

      double dx2[3] = {0}, out2[2] = {0}, dout2[2] = {w[0], w[1]};
      check_at("f dup point %d seed %d", p, s);
#ifdef NO_AD
      emul(x, dx2, out2, dout2, 1);
#else
      __enzyme_autodiff_v((void *)f, enzyme_dup, x, dx2, enzyme_dup, out2, dout2);
#endif
      for (int k = 0; k < 3; k++)
        check_close_i("dx vs analytic", k, dx2[k], g[k], TOL_AD);
      check_close("dout[0] zeroed", dout2[0], 0.0, TOL_AD);
      check_close("dout[1] zeroed", dout2[1], 0.0, TOL_AD);
      check_close("primal out[0]", out2[0], x[0] * x[1] + sin(x[2]), TOL_AD);
      check_close("primal out[1]", out2[1], x[0] * x[2] * x[2], TOL_AD);
    }
  }
  return check_report();
}
