/* fwd_dupnoneed.c: forward mode of a void function writing two results
 * through a pointer (declared through a void-returning entry point
 * __enzyme_fwddiff_v). The output's tangent memory receives J v (its
 * previous contents are overwritten); the input tangent stays as given.
 * With enzyme_dupnoneed on the output the primal result need not be
 * computed: only the tangents are checked. With enzyme_dup (and unmarked)
 * the primal output must be written too.
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include <stdlib.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_fwddiff_v(void *, ...);

static void f(double *x, double *out) {
  out[0] = x[0] * x[1] + sin(x[2]);
  out[1] = x[0] * x[2] * x[2];
}

/* J v */
static void jvp(const double *x, const double *v, double *t) {
  t[0] = v[0] * x[1] + x[0] * v[1] + cos(x[2]) * v[2];
  t[1] = v[0] * x[2] * x[2] + 2.0 * x[0] * x[2] * v[2];
}

#ifdef NO_AD
static void emul(double *x, double *dx, double *out, double *dout, int need) {
  jvp(x, dx, dout);
  if (need)
    f(x, out);
}
#endif

int main(void) {
  const double pts[3][3] = {{0.7, -1.3, 2.1}, {-1.6, 0.45, -0.8}, {1.2, 0.3, 0.6}};
  check_seed(41);
  for (int p = 0; p < 3; p++) {
    double x[3], v[3], dx[3], t[3], fd[2];
    check_rand_dir(v, 3);
    if (p == 0)
      v[0] = 1.0, v[1] = v[2] = 0.0; /* a unit direction: column 0 of J */
    for (int k = 0; k < 3; k++) {
      x[k] = pts[p][k];
      dx[k] = v[k];
    }
    jvp(x, v, t);
    fdjvp(f, pts[p], 3, v, 2, fd);

    double out[2] = {0}, dout[2] = {123.0, -456.0};
    check_at("f dupnoneed point %d", p);
#ifdef NO_AD
    emul(x, dx, out, dout, 0);
#else
    __enzyme_fwddiff_v((void *)f, enzyme_dup, x, dx, enzyme_dupnoneed, out, dout);
#endif
    for (int j = 0; j < 2; j++) {
      check_close_i("dout vs analytic", j, dout[j], t[j], TOL_AD);
      check_close_i("dout vs FD", j, dout[j], fd[j], TOL_FD);
    }
    for (int k = 0; k < 3; k++) {
      check_close_i("x unchanged", k, x[k], pts[p][k], 0.0);
      check_close_i("dx unchanged", k, dx[k], v[k], 0.0);
    }

    double out2[2] = {0}, dout2[2] = {7.0, 8.0};
    check_at("f dup point %d", p);
#ifdef NO_AD
    emul(x, dx, out2, dout2, 1);
#else
    __enzyme_fwddiff_v((void *)f, enzyme_dup, x, dx, enzyme_dup, out2, dout2);
#endif
    for (int j = 0; j < 2; j++)
      check_close_i("dout vs analytic", j, dout2[j], t[j], TOL_AD);
    check_close("primal out[0]", out2[0], x[0] * x[1] + sin(x[2]), TOL_AD);
    check_close("primal out[1]", out2[1], x[0] * x[2] * x[2], TOL_AD);

    double out3[2] = {0}, dout3[2] = {0};
    check_at("f unmarked point %d", p);
#ifdef NO_AD
    emul(x, dx, out3, dout3, 1);
#else
    __enzyme_fwddiff_v((void *)f, x, dx, out3, dout3);
#endif
    for (int j = 0; j < 2; j++)
      check_close_i("dout vs analytic", j, dout3[j], t[j], TOL_AD);
    check_close("primal out[1]", out3[1], x[0] * x[2] * x[2], TOL_AD);
  }
  return check_report();
}
