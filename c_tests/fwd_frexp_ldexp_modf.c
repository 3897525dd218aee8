/* fwd_frexp_ldexp_modf.c: forward mode of the functions of
 * rev_frexp_ldexp_modf.c: ldexp, scalbn, scalbln (tangent dx 2^n), frexp
 * (its exponent written through an int pointer: no tangent), modf as libm
 * (-fno-builtin-modf: the integer part written through a double pointer,
 * whose shadow must receive the tangent 0) and as the intrinsic
 * llvm.modf, logb and ilogb (tangent 0), in double and float.
 *   f_ld(x) = ldexp(x^2, 3) + scalbn(sin x, -2) + scalbln(x, 5)
 *   f_fr(x) = (e + 1) m,  m 2^e = x^3 + 1
 *   f_mf(x) = fr^2 + ip x,  fr + ip = 3x
 *   f_lb(x) = x logb(x^2 + 2) + ilogb(x + 5) x^2
 *   g(v)    = fr v0 + v1'^2 v0, fr + v1' = 2.5 v0 (v1' overwrites v1):
 *             the tangent of g along (d0, d1) is dg/dv0 d0, and the shadow
 *             of v1 holds 0 afterwards (the tangent of the integer part)
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
// enz-cflags: -fno-builtin-modf -fno-builtin-modff
#include <math.h>
#include "enzyme.h"
#include "check.h"

float __enzyme_fwddiff_f32(void *, ...);
double __enzyme_fwddiff_d(void *, ...);

static double f_ld(double x) { return ldexp(x * x, 3) + scalbn(sin(x), -2) + scalbln(x, 5); }
static double d_ld(double x) { return 16.0 * x + cos(x) / 4.0 + 32.0; }

static double f_fr(double x) {
  int e;
  double m = frexp(x * x * x + 1.0, &e);
  return m * e + m;
}
static double d_fr(double x) {
  int e;
  frexp(x * x * x + 1.0, &e);
  return (e + 1) * 3.0 * x * x * ldexp(1.0, -e);
}

static double f_mf(double x) {
  double ip;
  double fr = modf(3.0 * x, &ip);
  return fr * fr + ip * x;
}
static double f_bmf(double x) {
  double ip;
  double fr = __builtin_modf(3.0 * x, &ip);
  return fr * fr + ip * x;
}
static double d_mf(double x) {
  double ip = trunc(3.0 * x), fr = 3.0 * x - ip;
  return 6.0 * fr + ip;
}

static double f_lb(double x) { return x * logb(x * x + 2.0) + ilogb(x + 5.0) * x * x; }
static double d_lb(double x) { return logb(x * x + 2.0) + 2.0 * x * ilogb(x + 5.0); }

static float ff_ld(float x) { return ldexpf(x * x, 2) + scalbnf(x, -1); }
static double dd_ld(double x) { return 8.0 * x + 0.5; }
static float ff_fr(float x) {
  int e;
  float m = frexpf(x * x + 1.0f, &e);
  return m * (float)e;
}
static double dd_fr(double x) {
  int e;
  frexpf((float)(x * x) + 1.0f, &e);
  return e * 2.0 * x * ldexp(1.0, -e);
}
static float ff_mf(float x) {
  float ip;
  float fr = modff(2.0f * x, &ip);
  return fr * x + ip;
}
static double dd_mf(double x) {
  double ip = trunc(2.0 * x);
  return (2.0 * x - ip) + 2.0 * x;
}

/* The integer part overwrites v[1]: d/dv1 = 0. */
static double g(double *v) {
  double fr = modf(v[0] * 2.5, &v[1]);
  return fr * v[0] + v[1] * v[1] * v[0];
}
static double gb(double *v) {
  double fr = __builtin_modf(v[0] * 2.5, &v[1]);
  return fr * v[0] + v[1] * v[1] * v[0];
}
static void g_grad(const double *v, double *gr) {
  double ip = trunc(2.5 * v[0]), fr = 2.5 * v[0] - ip;
  gr[0] = 2.5 * v[0] + fr + ip * ip;
  gr[1] = 0.0;
}

#ifdef NO_AD
#define FWD_G(FN, V, DV) (DV[1] = 0.0, gr[0] * DV[0])
#else
#define FWD_G(FN, V, DV) __enzyme_fwddiff_d((void *)(FN), enzyme_dup, V, DV)
#endif
#define CHECK_G(FN, V0)                                                        \
  do {                                                                         \
    double v[2] = {(V0)[0], (V0)[1]}, dv[2] = {0.6, -1.7}, gr[2];              \
    double want = 0.6 * (gr[0] = 0, g_grad(V0, gr), gr[0]);                    \
    double fd = 0.6 * fdp(FN, V0, 2, 0) - 1.7 * fdp(FN, V0, 2, 1);             \
    check_at(#FN " v=(%g, %g)", v[0], v[1]);                                   \
    double t = FWD_G(FN, v, dv);                                               \
    check_close("tangent vs analytic", t, want, TOL_AD);                       \
    check_close("tangent vs FD", t, fd, TOL_FD);                               \
    check_close("tangent of the integer part", dv[1], 0.0, TOL_AD);            \
  } while (0)

int main(void) {
  const double xs[] = {0.7, 1.3, -0.6};
  for (int i = 0; i < 3; i++) {
    double dx = 1.0 - 0.75 * i;
    CHECK_FWD1(f_ld, d_ld, xs[i], dx);
    CHECK_FWD1(f_fr, d_fr, xs[i], dx);
    CHECK_FWD1(f_mf, d_mf, xs[i], dx);
    CHECK_FWD1(f_bmf, d_mf, xs[i], dx);
    CHECK_FWD1(f_lb, d_lb, xs[i], dx);
    CHECK_FWD1F(ff_ld, dd_ld, xs[i], dx);
    CHECK_FWD1F(ff_fr, dd_fr, xs[i], dx);
    CHECK_FWD1F(ff_mf, dd_mf, xs[i], dx);
  }
  const double vs[2][2] = {{0.7, 3.0}, {-1.3, 0.4}};
  for (int p = 0; p < 2; p++) {
    CHECK_G(g, vs[p]);
    CHECK_G(gb, vs[p]);
  }
  return check_report();
}
