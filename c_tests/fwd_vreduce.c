/* fwd_vreduce.c: forward mode (scalar and vector, enzyme_width 2 and 4)
 * through llvm.vector.reduce.fadd / fmul / fmax / fmaximum, made by clang's
 * vectorisers under fast math (from -O2) or written with
 * __builtin_reduce_maximum on an <8 x double> (every level). Tangents along
 * random directions v:
 *   sumsq(x, n) = sum x_i^2        tangent 2 sum x_i v_i
 *   prod(x, n)  = prod x_i         tangent sum_k v_k prod_{j != k} x_j
 *   amax(x, n)  = fmax-loop of x_i tangent v_argmax
 *   vmax8(x)    = x_8 max(x_0..7)  tangent v_8 max + x_8 v_argmax
 * n = 1, 6, 37; each against the analytic JVP and central FD.
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
// enz-cflags: -ffast-math -fno-finite-math-only
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "enzyme.h"
#include "check.h"

typedef double v8d __attribute__((ext_vector_type(8)));
typedef struct { double d[2]; } tan2;
typedef struct { double d[4]; } tan4;
tan2 __enzyme_fwddiff_w2(void *, ...);
tan4 __enzyme_fwddiff_w4(void *, ...);

static double sumsq(double *x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += x[i] * x[i];
  return s;
}
static double prod(double *x, int n) {
  double p = 1.0;
  for (int i = 0; i < n; i++)
    p *= x[i];
  return p;
}
static double amax(double *x, int n) {
  double m = x[0];
  for (int i = 1; i < n; i++)
    m = fmax(m, x[i]);
  return m;
}
static double vmax8(double *x) {
  v8d v;
  memcpy(&v, x, sizeof v);
  return x[8] * __builtin_reduce_maximum(v);
}
static double vmax8_n(double *x, int n) { (void)n; return vmax8(x); }

static int argmax(const double *x, int n) {
  int k = 0;
  for (int i = 1; i < n; i++)
    if (x[i] > x[k])
      k = i;
  return k;
}

/* analytic tangents */
static double jvp(int which, const double *x, const double *v, int n) {
  double t = 0.0;
  switch (which) {
  case 0:
    for (int i = 0; i < n; i++)
      t += 2.0 * x[i] * v[i];
    return t;
  case 1:
    for (int k = 0; k < n; k++) {
      double p = v[k];
      for (int j = 0; j < n; j++)
        if (j != k)
          p *= x[j];
      t += p;
    }
    return t;
  case 2:
    return v[argmax(x, n)];
  default: {
    int k = argmax(x, 8);
    return v[8] * x[k] + x[8] * v[k];
  }
  }
}

static double (*const prim[4])(double *, int) = {sumsq, prod, amax, vmax8_n};
static const char *const names[4] = {"sumsq", "prod", "amax", "vmax8"};

#define NMAX 40
#define L2(a) (a)[0], (a)[1]
#define L4(a) (a)[0], (a)[1], (a)[2], (a)[3]

/* scalar forward mode of function `which` along v */
static double fwd1(int which, double *x, double *v, int n) {
#ifdef NO_AD
  return jvp(which, x, v, n);
#else
  switch (which) {
  case 0:
    return __enzyme_fwddiff((void *)sumsq, x, v, n);
  case 1:
    return __enzyme_fwddiff((void *)prod, x, v, n);
  case 2:
    return __enzyme_fwddiff((void *)amax, x, v, n);
  default:
    return __enzyme_fwddiff((void *)vmax8, x, v);
  }
#endif
}

/* vector forward mode, width 2 and 4, of sumsq and prod: one noinline
 * helper per function, so that the call sites name the function directly */
#ifdef NO_AD
#define FWD_W(F, WHICH)                                                        \
  __attribute__((noinline)) static void fwd_w_##F(int w, double *x,           \
                                                  double **V, int n,          \
                                                  double *out) {              \
    for (int j = 0; j < w; j++)                                                \
      out[j] = jvp(WHICH, x, V[j], n);                                         \
  }
#else
#define FWD_W(F, WHICH)                                                        \
  __attribute__((noinline)) static void fwd_w_##F(int w, double *x,           \
                                                  double **V, int n,          \
                                                  double *out) {              \
    if (w == 2) {                                                              \
      tan2 r = __enzyme_fwddiff_w2((void *)F, enzyme_width, 2, x, L2(V), n);  \
      memcpy(out, r.d, sizeof r.d);                                            \
    } else {                                                                   \
      tan4 r = __enzyme_fwddiff_w4((void *)F, enzyme_width, 4, x, L4(V), n);  \
      memcpy(out, r.d, sizeof r.d);                                            \
    }                                                                          \
  }
#endif
FWD_W(sumsq, 0)
FWD_W(prod, 1)

static void fwd_w(int which, int w, double *x, double **V, int n, double *out) {
  if (which == 0)
    fwd_w_sumsq(w, x, V, n, out);
  else
    fwd_w_prod(w, x, V, n, out);
}

int main(void) {
  const int sizes[3] = {1, 6, 37};
  double x[NMAX], dirs[4][NMAX];
  double *V[4] = {dirs[0], dirs[1], dirs[2], dirs[3]};
  check_seed(99);
  for (int s = 0; s < 3; s++) {
    int n = sizes[s];
    for (int i = 0; i < NMAX; i++)
      x[i] = 1.0 + 0.3 * sin(1.9 * i + 0.4) + 0.001 * i;
    for (int j = 0; j < 4; j++)
      check_rand_dir(dirs[j], NMAX);
    for (int f = 0; f < 4; f++) {
      int m = f == 3 ? 9 : n;
      if (f == 3 && s > 0)
        continue;
      check_at("%s n=%d", names[f], m);
      double t = fwd1(f, x, dirs[0], m);
      check_close("tangent vs analytic", t, jvp(f, x, dirs[0], m), TOL_AD);
      check_close("tangent vs FD", t, fddirn(prim[f], x, dirs[0], m), TOL_FD);
    }
    for (int f = 0; f < 2; f++)
      for (int w = 2; w <= 4; w += 2) {
        double out[4];
        check_at("%s width %d n=%d", names[f], w, n);
        fwd_w(f, w, x, V, n, out);
        for (int j = 0; j < w; j++) {
          check_close_i("tangent vs analytic", j, out[j], jvp(f, x, V[j], n),
                        TOL_AD);
          check_close_i("tangent vs FD", j, out[j],
                        fddirn(prim[f], x, V[j], n), TOL_FD);
        }
      }
  }
  return check_report();
}
