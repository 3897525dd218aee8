/* rev_frexp_ldexp_modf.c: reverse mode of the libm functions that take
 * floats apart by exponent: ldexp, scalbn, scalbln (x 2^n: adjoint
 * dret 2^n), frexp (mantissa m = x 2^-e, e written through an int pointer:
 * an inactive integer write; adjoint dret 2^-e), modf (fractional part,
 * derivative 1; the integer part is written through a double pointer with
 * derivative 0, so the adjoint waiting in its shadow is dropped), logb and
 * ilogb (derivative 0), in double and float. modf is called as libm
 * (-fno-builtin-modf: it writes through the pointer) and as
 * __builtin_modf (the intrinsic llvm.modf, returning {frac, int}); the
 * memory variants write the integer part over an element of a dup'd
 * array, whose input then has derivative 0.
 *   f_ld(x) = ldexp(x^2, 3) + scalbn(sin x, -2) + scalbln(x, 5)
 *   f_fr(x) = (e + 1) m,  m 2^e = x^3 + 1
 *   f_mf(x) = fr^2 + ip x,  fr + ip = 3x
 *   f_lb(x) = x logb(x^2 + 2) + ilogb(x + 5) x^2
 *   g(v)    = fr v0 + v1'^2 v0, fr + v1' = 2.5 v0 (v1' overwrites v1)
 * Points keep 3x, 2.5 v0 away from integers and x^3 + 1, x^2 + 2, x + 5
 * away from powers of two, so the finite differences hold.
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
// enz-cflags: -fno-builtin-modf -fno-builtin-modff
#include <math.h>
#include "enzyme.h"
#include "check.h"

float __enzyme_autodiff_f32(void *, ...);
void __enzyme_autodiff_v(void *, ...);

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
#define GRAD(F, DF, X) (DF)(X)
#define GRADF(F, DF, X) ((float)(DF)((double)(X)))
#else
#define GRAD(F, DF, X) __enzyme_autodiff((void *)(F), (double)(X))
#define GRADF(F, DF, X) __enzyme_autodiff_f32((void *)(F), (float)(X))
#endif
#define CHECK(F, DF, X)                                                        \
  do {                                                                         \
    double x_ = (X);                                                           \
    check_at(#F " x=%g", x_);                                                  \
    double d_ = GRAD(F, DF, x_);                                               \
    check_close("d/dx vs analytic", d_, (DF)(x_), TOL_AD);                     \
    check_close("d/dx vs FD", d_, fd1((F), x_), TOL_FD);                       \
  } while (0)
#define CHECKF(F, DF, X)                                                       \
  do {                                                                         \
    float x_ = (float)(X);                                                     \
    check_at(#F " x=%g", x_);                                                  \
    float d_ = GRADF(F, DF, x_);                                               \
    check_close("d/dx vs analytic", d_, (DF)((double)x_), TOL_AD_F);           \
    check_close("d/dx vs FD", d_, fd1f((F), x_), TOL_FD_F);                    \
  } while (0)

#ifdef NO_AD
#define GRAD_G(FN, V, DV) g_grad(V, DV)
#else
#define GRAD_G(FN, V, DV) __enzyme_autodiff_v((void *)(FN), enzyme_dup, V, DV)
#endif
#define CHECK_G(FN, V0)                                                        \
  do {                                                                         \
    double v[2] = {(V0)[0], (V0)[1]}, dv[2] = {0, 0}, gr[2];                   \
    g_grad(V0, gr);                                                            \
    check_at(#FN " v=(%g, %g)", v[0], v[1]);                                   \
    GRAD_G(FN, v, dv);                                                         \
    for (int k = 0; k < 2; k++) {                                              \
      check_close_i("dv vs analytic", k, dv[k], gr[k], TOL_AD);                \
      check_close_i("dv vs FD", k, dv[k], fdp(FN, V0, 2, k), TOL_FD);          \
    }                                                                          \
  } while (0)

int main(void) {
  const double xs[] = {0.7, 1.3, -0.6};
  for (int i = 0; i < 3; i++) {
    CHECK(f_ld, d_ld, xs[i]);
    CHECK(f_fr, d_fr, xs[i]);
    CHECK(f_mf, d_mf, xs[i]);
    CHECK(f_bmf, d_mf, xs[i]);
    CHECK(f_lb, d_lb, xs[i]);
    CHECKF(ff_ld, dd_ld, xs[i]);
    CHECKF(ff_fr, dd_fr, xs[i]);
    CHECKF(ff_mf, dd_mf, xs[i]);
  }
  const double vs[2][2] = {{0.7, 3.0}, {-1.3, 0.4}};
  for (int p = 0; p < 2; p++) {
    CHECK_G(g, vs[p]);
    CHECK_G(gb, vs[p]);
  }
  return check_report();
}
