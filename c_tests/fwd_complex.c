/* fwd_complex.c: forward mode of the functions of rev_complex.c (cabs,
 * carg, cexp, complex product and quotient through __muldc3/__divdc3 and
 * __mulsc3/__divsc3, whatever clang makes of them at -O0..-O3): the
 * tangent of each objective along a direction dv is the gradient of
 * rev_complex.c dotted with dv, checked against the analytic gradient and
 * central finite differences.
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <complex.h>
#include <math.h>
#include "enzyme.h"
#include "check.h"

#define N 4
#define CX(re, im) __builtin_complex((double)(re), (double)(im))
#define CXF(re, im) __builtin_complex((float)(re), (float)(im))

double __enzyme_fwddiff_d(void *, ...);
float __enzyme_fwddiff_f(void *, ...);

static double f_abs(double *v) {
  double complex z = CX(v[0], v[1]), w = CX(v[2], v[3]);
  return cabs(z) + carg(w);
}
static void g_abs(const double *v, double *g) {
  double r = hypot(v[0], v[1]), s = v[2] * v[2] + v[3] * v[3];
  g[0] = v[0] / r;
  g[1] = v[1] / r;
  g[2] = -v[3] / s;
  g[3] = v[2] / s;
}

static double f_mul(double *v) {
  double complex z = CX(v[0], v[1]), w = CX(v[2], v[3]);
  double complex p = z * w;
  return creal(p) + 2.0 * cimag(p);
}
static double f_div(double *v) {
  double complex z = CX(v[0], v[1]), w = CX(v[2], v[3]);
  double complex q = z / w;
  return creal(q) + 3.0 * cimag(q);
}
static double f_exp(double *v) {
  double complex z = CX(v[0], v[1]), w = CX(v[2], v[3]);
  double complex e = cexp(z), u = cexp(w) * w;
  return creal(e) + 2.0 * cimag(e) + creal(u);
}

/* Gradient of Re(a h(z)) for holomorphic h with h'(z) = dh, into g[0..1]. */
static void holo(double complex a, double complex dh, double *g) {
  g[0] = creal(a * dh);
  g[1] = -cimag(a * dh);
}
static void g_mul(const double *v, double *g) {
  double complex z = CX(v[0], v[1]), w = CX(v[2], v[3]), a = CX(1.0, -2.0);
  holo(a, w, g);
  holo(a, z, g + 2);
}
static void g_div(const double *v, double *g) {
  double complex z = CX(v[0], v[1]), w = CX(v[2], v[3]), a = CX(1.0, -3.0);
  double complex q = z / w;
  holo(a, 1.0 / w, g);
  holo(a, -q / w, g + 2);
}
static void g_exp(const double *v, double *g) {
  double complex z = CX(v[0], v[1]), w = CX(v[2], v[3]);
  holo(CX(1.0, -2.0), cexp(z), g);
  holo(1.0, cexp(w) * (w + 1.0), g + 2);
}

static float f_flt(float *v) {
  float complex z = CXF(v[0], v[1]), w = CXF(v[2], v[3]);
  float complex p = z * w, q = z / w;
  return cabsf(z) + crealf(p) + cimagf(q);
}
static void g_flt(const float *vf, double *g) {
  double v[N] = {vf[0], vf[1], vf[2], vf[3]};
  double complex z = CX(v[0], v[1]), w = CX(v[2], v[3]);
  double complex q = z / w;
  double r = hypot(v[0], v[1]), t[2];
  /* Re(z w) + Re(-i z / w) */
  holo(1.0, w, t);
  g[0] = v[0] / r + t[0];
  g[1] = v[1] / r + t[1];
  holo(CX(0.0, -1.0), 1.0 / w, t);
  g[0] += t[0];
  g[1] += t[1];
  holo(1.0, z, g + 2);
  holo(CX(0.0, -1.0), -q / w, t);
  g[2] += t[0];
  g[3] += t[1];
}

static const double dir[N] = {0.4, -1.3, 0.7, 0.25};

#ifdef NO_AD
#define FWD(F, V, DV) want
#define FWDF(F, V, DV) (float)want
#else
#define FWD(F, V, DV) __enzyme_fwddiff_d((void *)(F), enzyme_dup, V, DV)
#define FWDF(F, V, DV) __enzyme_fwddiff_f((void *)(F), enzyme_dup, V, DV)
#endif
#define CHECK(F, G, P)                                                         \
  do {                                                                         \
    double v[N] = {(P)[0], (P)[1], (P)[2], (P)[3]}, gr[N], want = 0, fd = 0;   \
    double dv[N] = {dir[0], dir[1], dir[2], dir[3]};                           \
    G(P, gr);                                                                  \
    for (int k = 0; k < N; k++) {                                              \
      want += gr[k] * dir[k];                                                  \
      fd += fdp(F, P, N, k) * dir[k];                                          \
    }                                                                          \
    check_at(#F " v=(%g, %g, %g, %g)", v[0], v[1], v[2], v[3]);                \
    double t = FWD(F, v, dv);                                                  \
    check_close("tangent vs analytic", t, want, TOL_AD);                       \
    check_close("tangent vs FD", t, fd, TOL_FD);                               \
  } while (0)

int main(void) {
  const double pts[3][N] = {{0.7, -0.4, 1.1, 0.6}, {-1.2, 0.9, -0.5, 1.3}, {0.3, 1.4, 0.8, -0.9}};
  for (int p = 0; p < 3; p++) {
    CHECK(f_abs, g_abs, pts[p]);
    CHECK(f_mul, g_mul, pts[p]);
    CHECK(f_div, g_div, pts[p]);
    CHECK(f_exp, g_exp, pts[p]);
    float vf[N], dvf[N];
    double gr[N], want = 0, fd = 0;
    for (int k = 0; k < N; k++) {
      vf[k] = (float)pts[p][k];
      dvf[k] = (float)dir[k];
    }
    g_flt(vf, gr);
    for (int k = 0; k < N; k++) {
      want += gr[k] * dvf[k];
      fd += fdpf(f_flt, vf, N, k) * dvf[k];
    }
    check_at("f_flt point %d", p);
    float t = FWDF(f_flt, vf, dvf);
    check_close("tangent vs analytic", t, want, TOL_AD_F);
    check_close("tangent vs FD", t, fd, TOL_FD_F);
  }
  return check_report();
}
