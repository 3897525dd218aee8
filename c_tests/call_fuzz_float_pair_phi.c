/* call_fuzz_float_pair_phi.c: found by `enz-fuzz diff --seed 100724` (a
 * generated program, kept as generated). At -O2 clang reads the pair of
 * floats a `memcpy(t, x, 8)` copies as one `load i64`, in two branches,
 * and GVN merges the two loads with `phi i64` before taking the floats
 * apart (`lshr`, `trunc`, `bitcast`): the derivatives through that phi were
 * lost (3 of 12 checks wrong). Preprocessing now loads such floats as
 * floats, merged by float phis. fz_f(x, a, b, n) is differentiated in every
 * mode main checks; fz_f_ref is the same function in double, instrumented,
 * whose central finite differences are the reference (points near a kink
 * are skipped). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "enzyme.h"
#include "check.h"

#define NX 2
#define NZ (NX + 2)
typedef float fz_real;
#define FZ_TOL 0.005
#define FZ_LIM 1000.0
#define FZ_MARGIN 0.01

typedef struct { fz_real da, db; } fz_grad2;
fz_grad2 __enzyme_autodiff_fzg2(void *, ...);
fz_real __enzyme_autodiff_fz1(void *, ...);
fz_grad2 __enzyme_reverse_fzg2(void *, ...);
fz_real __enzyme_fwddiff_fz(void *, ...);
typedef struct { fz_real d[2]; } fz_tan2;
fz_tan2 __enzyme_fwddiff_fzw2(void *, ...);

typedef float fz_v2 __attribute__((vector_size(2 * sizeof(float))));
typedef double fz_v2_ref __attribute__((vector_size(16)));
typedef struct { float u, v; } fz_pt;
typedef struct { double u, v; } fz_pt_ref;

/* Instrumentation of the reference copy: the largest assigned magnitude,
 * the smallest distance of a branch quantity (or an int truncation) to its
 * kink, and a hash of the path taken. */
static double fz_margin, fz_maxabs;
static unsigned long long fz_path;
static void fz_reset(void) {
  fz_margin = 1e300;
  fz_maxabs = 0.0;
  fz_path = 1469598103934665603ull;
}
static double fz_val(double v) {
  double m = fabs(v);
  if (!(m <= fz_maxabs))
    fz_maxabs = m;
  return v;
}
static double fz_cond(double v) {
  double m = fabs(v);
  if (m < fz_margin)
    fz_margin = m;
  fz_path = (fz_path ^ (v > 0 ? 2u : 1u)) * 1099511628211ull;
  return v;
}
static double fz_fmax(double a, double b) {
  fz_cond(a - b);
  return fmax(a, b);
}
static double fz_fmin(double a, double b) {
  fz_cond(a - b);
  return fmin(a, b);
}
static int fz_itr(double v) {
  int k = (int)v;
  double m = fabs(v - nearbyint(v));
  if (m < fz_margin)
    fz_margin = m;
  fz_path = (fz_path ^ (unsigned)(k + 7)) * 1099511628211ull;
  return k;
}

/* ---- the function under test ---- */

static __attribute__((noinline)) float h0(float u, float v) {
  float w = (0.476f + expf(-(-0.928f) * (-0.928f)));
  return (w / (1.0f + w * w));
}

static __attribute__((noinline)) float h1(float u, float v) {
  float w = (0.525f + atanf(u));
  return tanhf(w);
}

static __attribute__((noinline)) void p0(float *p, float u) {
  p[0] = ((0.774f * p[0]) + expf(-(u * p[1]) * (u * p[1])));
  p[1] = (p[1] - (0.191f * sqrtf(1.0f + p[0] * p[0])));
}

static float fz_f(float *x, float a, float b, int n) {
  float s0 = a, s1 = b, s2 = (a * x[1]), s3 = (a * x[1]);
  (void)n;
  s1 *= (0.5f + (0.4f * sinf(atan2f(s1, 1.0f + b * b))));
  x[1] += (0.593f * ((s3 + s0) / (1.0f + (s3 + s0) * (s3 + s0))));
  s1 *= (0.5f + (0.4f * sinhf(0.5f * sinf(cosf(b)))));
  s3 += (0.444f * cosf((s1 * erff(s2))));
  if ((fminf((x[1] + b), ((x[1] * expf(0.5f * tanhf(0.687f))) + 0.3f)) - 0.614f) > 0) {
    for (int w1 = 0; w1 < 5 && (fminf(hypotf(s3, 0.5f + (-1.41f) * (-1.41f)), ((s2 * sinhf(0.5f * sinf(s3))) + 0.3f)) - (-0.511f)) > 0; w1++) {
      s1 += (0.261f * expf(-b * b));
    }
    {
      fz_pt pt;
      pt.u = ((s3 / (1.5f + sinf(s1))) + h0(x[0], s3));
      pt.v = (pt.u * expf(-s2 * s2));
      s0 = (pt.v + erff(pt.u));
    }
  } else {
    {
      float t[2];
      memcpy(t, x, 2 * sizeof(float));
      t[0] *= tanhf(s3);
      t[1] = (t[0] * (s3 / (1.0f + s3 * s3)));
      p0(t, s3);
      s1 = (t[0] + (t[1] * cbrtf(1.0f + s1 * s1)));
    }
  }
  {
    fz_v2 q = {x[1], (h0(b, x[1]) + s2)};
    fz_v2 r = q * q + (fz_v2){0.703f, (-0.195f)};
    s0 = (tanhf(r[0]) + cbrtf(1.0f + r[1] * r[1]));
  }
  {
    float t[2];
    memcpy(t, x, 2 * sizeof(float));
    t[1] *= expf(-s2 * s2);
    t[0] = (t[1] * asinf(0.5f * tanhf(a)));
    p0(t, s1);
    s3 = (t[0] + (t[1] * tanhf(b)));
  }
  if ((x[0] - (-0.104f)) > 0)
    return (s2 + atanf(b));
  if ((powf(1.0f + expf(-(-0.403f) * (-0.403f)) * expf(-(-0.403f) * (-0.403f)), (-0.5f)) - 0.499f) > 0) {
    p0(x, s1);
    x[0] += (0.249f * logf(1.0f + (s0 + x[0]) * (s0 + x[0])));
    if ((x[1] - 0.439f) > 0) {
      s1 += (0.121f * tanhf(b));
    }
  } else {
    s1 += (0.47f * erff(s1));
    for (int w4 = 0; w4 < 4 && ((s3 + s2) - (-0.674f)) > 0; w4++) {
      s3 = ((0.55f * s3) + sinf(h0(s3, x[1])));
    }
  }
  return (((s0 + ((-0.282f) * s1)) + ((-0.098f) * s2)) + ((-0.977f) * s3));
}

/* ---- the same in double, instrumented, for finite differences ---- */

static __attribute__((noinline)) double h0_ref(double u, double v) {
  double w = fz_val((0.476 + exp(-(-0.928) * (-0.928))));
  return fz_val((w / (1.0 + w * w)));
}

static __attribute__((noinline)) double h1_ref(double u, double v) {
  double w = fz_val((0.525 + atan(u)));
  return fz_val(tanh(w));
}

static __attribute__((noinline)) void p0_ref(double *p, double u) {
  p[0] = fz_val(((0.774 * p[0]) + exp(-(u * p[1]) * (u * p[1]))));
  p[1] = fz_val((p[1] - (0.191 * sqrt(1.0 + p[0] * p[0]))));
}

static double fz_f_ref(double *x, double a, double b, int n) {
  double s0 = a, s1 = b, s2 = (a * x[1]), s3 = (a * x[1]);
  (void)n;
  s1 *= fz_val((0.5 + (0.4 * sin(atan2(s1, 1.0 + b * b)))));
  x[1] += fz_val((0.593 * ((s3 + s0) / (1.0 + (s3 + s0) * (s3 + s0)))));
  s1 *= fz_val((0.5 + (0.4 * sinh(0.5 * sin(cos(b))))));
  s3 += fz_val((0.444 * cos((s1 * erf(s2)))));
  if (fz_cond((fz_fmin((x[1] + b), ((x[1] * exp(0.5 * tanh(0.687))) + 0.3)) - 0.614)) > 0) {
    for (int w1 = 0; w1 < 5 && fz_cond((fz_fmin(hypot(s3, 0.5 + (-1.41) * (-1.41)), ((s2 * sinh(0.5 * sin(s3))) + 0.3)) - (-0.511))) > 0; w1++) {
      s1 += fz_val((0.261 * exp(-b * b)));
    }
    {
      fz_pt_ref pt;
      pt.u = fz_val(((s3 / (1.5 + sin(s1))) + h0_ref(x[0], s3)));
      pt.v = fz_val((pt.u * exp(-s2 * s2)));
      s0 = fz_val((pt.v + erf(pt.u)));
    }
  } else {
    {
      double t[2];
      memcpy(t, x, 2 * sizeof(double));
      t[0] *= fz_val(tanh(s3));
      t[1] = fz_val((t[0] * (s3 / (1.0 + s3 * s3))));
      p0_ref(t, s3);
      s1 = fz_val((t[0] + (t[1] * cbrt(1.0 + s1 * s1))));
    }
  }
  {
    fz_v2_ref q = {fz_val(x[1]), fz_val((h0_ref(b, x[1]) + s2))};
    fz_v2_ref r = q * q + (fz_v2_ref){0.703, (-0.195)};
    s0 = fz_val((tanh(r[0]) + cbrt(1.0 + r[1] * r[1])));
  }
  {
    double t[2];
    memcpy(t, x, 2 * sizeof(double));
    t[1] *= fz_val(exp(-s2 * s2));
    t[0] = fz_val((t[1] * asin(0.5 * tanh(a))));
    p0_ref(t, s1);
    s3 = fz_val((t[0] + (t[1] * tanh(b))));
  }
  if (fz_cond((x[0] - (-0.104))) > 0)
    return fz_val((s2 + atan(b)));
  if (fz_cond((pow(1.0 + exp(-(-0.403) * (-0.403)) * exp(-(-0.403) * (-0.403)), (-0.5)) - 0.499)) > 0) {
    p0_ref(x, s1);
    x[0] += fz_val((0.249 * log(1.0 + (s0 + x[0]) * (s0 + x[0]))));
    if (fz_cond((x[1] - 0.439)) > 0) {
      s1 += fz_val((0.121 * tanh(b)));
    }
  } else {
    s1 += fz_val((0.47 * erf(s1)));
    for (int w4 = 0; w4 < 4 && fz_cond(((s3 + s2) - (-0.674))) > 0; w4++) {
      s3 = fz_val(((0.55 * s3) + sin(h0_ref(s3, x[1]))));
    }
  }
  return fz_val((((s0 + ((-0.282) * s1)) + ((-0.098) * s2)) + ((-0.977) * s3)));
}

static const double FZ_P[12][NZ] = {
  {-0.849, 0.672, 0.662, -0.376},
  {0.779, 0.243, -1.016, 0.705},
  {-0.463, 1.064, 0.209, -1.237},
  {0.753, 0.824, 0.952, -0.995},
  {-1.053, 1.243, -1.156, -1.271},
  {-0.705, 0.957, -0.385, -0.125},
  {-1.06, -0.421, -0.814, -0.262},
  {0.613, -0.077, 0.751, -0.729},
  {-0.736, -0.473, -0.66, 0.363},
  {0.73, 1.104, -1.137, -0.7},
  {1.056, -0.512, 0.176, -0.47},
  {1.09, 0.601, -0.499, -0.913},
};
static const fz_real FZ_W[NX] = {-0.065, 0.286};
static const fz_real FZ_V[3][NZ] = {
  {0.696, -0.333, 0.24, 0.448},
  {-0.923, -0.159, -0.32, 0.152},
  {0.254, -0.739, 0.029, 0.069},
};
#define FZ_DRET -0.75

/* The checked quantity: c * f(x, a, b) + W . (x after the call). */
static double fz_eval(const double *z, double c) {
  double xc[NX], s;
  for (int i = 0; i < NX; i++)
    xc[i] = z[i];
  s = c * fz_val(fz_f_ref(xc, z[NX], z[NX + 1], NX));
  for (int i = 0; i < NX; i++)
    s += (double)FZ_W[i] * fz_val(xc[i]);
  return s;
}

/* Central FD gradient of fz_eval at z; 0 when z is unusable: values too
 * large, a branch too close to its kink, or a step that changes the path. */
static int fz_fd(const double *z, double c, double *g) {
  double zz[NZ], r;
  unsigned long long path;
  fz_reset();
  r = fz_eval(z, c);
  path = fz_path;
  if (!isfinite(r) || !(fz_maxabs <= FZ_LIM) || fz_margin < FZ_MARGIN)
    return 0;
  for (int i = 0; i < NZ; i++) {
    double h = 1e-6 * (1.0 + fabs(z[i])), fp, fm, step;
    memcpy(zz, z, sizeof zz);
    zz[i] = z[i] + h;
    step = zz[i];
    fz_reset();
    fp = fz_eval(zz, c);
    if (fz_path != path || !(fz_maxabs <= FZ_LIM))
      return 0;
    zz[i] = z[i] - h;
    step -= zz[i];
    fz_reset();
    fm = fz_eval(zz, c);
    if (fz_path != path || !(fz_maxabs <= FZ_LIM))
      return 0;
    g[i] = (fp - fm) / step;
    if (!isfinite(g[i]) || fabs(g[i]) > 1e6)
      return 0;
  }
  return 1;
}

/* reverse mode: x dup (its shadow seeded with W), a and b out */
static void fz_check_rev(const double *z, const double *g) {
  fz_real xa[NX], dxa[NX];
  for (int i = 0; i < NX; i++) {
    xa[i] = (fz_real)z[i];
    dxa[i] = FZ_W[i];
  }
  fz_grad2 r = __enzyme_autodiff_fzg2((void *)fz_f, xa, dxa, (fz_real)z[NX], (fz_real)z[NX + 1], NX);
  for (int i = 0; i < NX; i++)
    check_close_i("rev dx", i, dxa[i], g[i], FZ_TOL);
  check_close("rev da", r.da, g[NX], FZ_TOL);
  check_close("rev db", r.db, g[NX + 1], FZ_TOL);
}

/* forward mode along direction d: the tangent of the result plus W . (tangent of x after) */
static void fz_check_fwd(const double *z, const double *g, int d) {
  fz_real xa[NX], dxa[NX];
  double got, want = 0.0;
  for (int i = 0; i < NX; i++) {
    xa[i] = (fz_real)z[i];
    dxa[i] = FZ_V[d][i];
  }
  got = __enzyme_fwddiff_fz((void *)fz_f, xa, dxa, (fz_real)z[NX], FZ_V[d][NX], (fz_real)z[NX + 1], FZ_V[d][NX + 1], NX);
  for (int i = 0; i < NX; i++)
    got += (double)FZ_W[i] * dxa[i];
  for (int i = 0; i < NZ; i++)
    want += g[i] * FZ_V[d][i];
  check_close_i("fwd direction", d, got, want, FZ_TOL);
}

int main(void) {
  int used = 0;
  for (int p = 0; p < (int)(sizeof FZ_P / sizeof FZ_P[0]) && used < 2; p++) {
    double z[NZ], g[NZ], gs[NZ];
    for (int i = 0; i < NZ; i++)
      z[i] = (double)(fz_real)FZ_P[p][i];
    if (!fz_fd(z, 1.0, g) || !fz_fd(z, FZ_DRET, gs))
      continue;
    used++;
    check_at("point %d", p);
    fz_check_rev(z, g);
    fz_check_fwd(z, g, 0);
    fz_check_fwd(z, g, 1);
    (void)gs;
  }
  if (!used) {
    printf("no usable point\n");
    return 77;
  }
  return check_report();
}
