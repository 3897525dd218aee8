/* mem_stencil.c: a 3-point 1D stencil on 5 points, dup input and output
 * arrays (void function), written out without loops:
 *   v[k] = C (u[k-1] - 2 u[k] + u[k+1]) + 0.5 u[k]^2,  k = 1..3
 *   v[0] = v[4] = 0 (constant boundary: stores of constants)
 * The caller seeds v's shadow with w; afterwards du holds w^T J and dv is
 * zero (all of v is overwritten). Also a second step on the result (two
 * applications, through a local array).
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

#define C 0.8

static void stencil(double *u, double *v) {
  v[0] = 0.0;
  v[1] = C * (u[0] - 2.0 * u[1] + u[2]) + 0.5 * u[1] * u[1];
  v[2] = C * (u[1] - 2.0 * u[2] + u[3]) + 0.5 * u[2] * u[2];
  v[3] = C * (u[2] - 2.0 * u[3] + u[4]) + 0.5 * u[3] * u[3];
  v[4] = 0.0;
}
static void two_steps(double *u, double *v) {
  double t[5];
  stencil(u, t);
  t[0] = u[0]; /* keep the boundary values for the second step */
  t[4] = u[4];
  stencil(t, v);
}

/* du = w^T J for one step */
static void vjp1(const double *u, const double *w, double *du) {
  for (int j = 0; j < 5; j++)
    du[j] = 0.0;
  for (int k = 1; k <= 3; k++) {
    du[k - 1] += C * w[k];
    du[k] += (-2.0 * C + u[k]) * w[k];
    du[k + 1] += C * w[k];
  }
}
static void vjp2(const double *u, const double *w, double *du) {
  double t[5], dt[5];
  stencil((double *)u, t);
  t[0] = u[0];
  t[4] = u[4];
  vjp1(t, w, dt);
  vjp1(u, dt, du);
  du[0] += dt[0];
  du[4] += dt[4];
}

#ifdef NO_AD
static void emul(void (*fn)(double *, double *), double *u, double *du, double *v,
                 double *dv) {
  double g[5];
  if (fn == stencil)
    vjp1(u, dv, g);
  else
    vjp2(u, dv, g);
  fn(u, v);
  for (int j = 0; j < 5; j++) {
    du[j] += g[j];
    dv[j] = 0.0;
  }
}
#endif

/* One test body per function (a macro, so that each __enzyme_autodiff call
 * names its function directly: a shared call with a select of callees is
 * what clang -O2 makes of two calls in an if/else). */
#ifdef NO_AD
#define AUTODIFF(FN, u, du, v, dv) emul(FN, u, du, v, dv)
#else
#define AUTODIFF(FN, u, du, v, dv)                                             \
  __enzyme_autodiff_v((void *)FN, enzyme_dup, u, du, enzyme_dup, v, dv)
#endif
#define DEFINE_TEST(FN, VJP)                                                   \
  static void test_##FN(const double *pt, const double *w, int p, int s) {     \
    double u[5], du[5] = {0}, v[5], dv[5], g[5], vw[5];                         \
    for (int j = 0; j < 5; j++) {                                              \
      u[j] = pt[j];                                                            \
      v[j] = 7.0;                                                              \
      dv[j] = w[j];                                                            \
    }                                                                          \
    VJP(u, w, g);                                                              \
    check_at(#FN " point %d seed %d", p, s);                                   \
    AUTODIFF(FN, u, du, v, dv);                                                \
    for (int j = 0; j < 5; j++) {                                              \
      check_close_i("du vs analytic", j, du[j], g[j], TOL_AD);                 \
      check_close_i("du vs FD", j, du[j], fdvjp(FN, pt, 5, j, w, 5), TOL_FD);  \
      check_close_i("dv consumed", j, dv[j], 0.0, TOL_AD);                     \
    }                                                                          \
    for (int j = 0; j < 5; j++)                                                \
      u[j] = pt[j];                                                            \
    FN(u, vw);                                                                 \
    for (int j = 0; j < 5; j++)                                                \
      check_close_i("primal v", j, v[j], vw[j], TOL_AD);                       \
  }

DEFINE_TEST(stencil, vjp1)
DEFINE_TEST(two_steps, vjp2)

int main(void) {
  const double pts[2][5] = {{0.3, -0.7, 1.2, 0.5, -0.2}, {1.1, 0.4, -0.9, 1.6, 0.8}};
  const double seeds[2][5] = {{1.0, 1.0, 1.0, 1.0, 1.0}, {0.2, -1.0, 0.5, 2.0, -0.3}};
  for (int p = 0; p < 2; p++)
    for (int s = 0; s < 2; s++)
      test_stencil(pts[p], seeds[s], p, s);
  for (int p = 0; p < 2; p++)
    for (int s = 0; s < 2; s++)
      test_two_steps(pts[p], seeds[s], p, s);
  return check_report();
}
