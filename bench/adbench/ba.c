/*
 * ba.c -- ADBench's bundle adjustment, written from its definition.
 *
 * A camera has 11 parameters: rotation r (axis-angle, 3), centre C (3),
 * focal length f (1), principal point x0 (2), radial distortion k (2).
 * For observation i of point X by camera cam with weight w and feature u:
 *
 *   Y = Rodrigues(r) (X - C)            (first order X + r x X when r = 0)
 *   p = (Y_0 / Y_2, Y_1 / Y_2)
 *   p = p (1 + k_0 |p|^2 + k_1 |p|^4)
 *   reproj_i = w (f p + x0 - u)         (2 residuals)
 *   werr_i   = 1 - w^2                  (1 residual)
 *
 * The Jacobian is block sparse: each reprojection residual depends only on
 * its observation's camera (11), point (3) and weight (1). Its rows are
 * computed per observation by reverse mode: one __enzyme_autodiff call per
 * residual component (the output shadow seeded with a unit vector), and one
 * for the weight residual. 31 numbers per observation: the 2 x 15 block of
 * d reproj / d (cam, X, w), then d werr / d w.
 *
 * -DAD_ENZYME (bench.sh's Enzyme build): only the per-observation functions
 * and the Jacobian wrapper, renamed with an _enzyme suffix; the driver calls
 * ba_jacobian_enzyme through its weak declaration in adbench.h.
 */
#ifdef AD_ENZYME
#define ba_reproj ba_reproj_enzyme
#define ba_werr ba_werr_enzyme
#define ba_jacobian_enz ba_jacobian_enzyme
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "adbench.h"
#include "enzyme.h"

void __enzyme_autodiff_v(void *, ...);

#ifndef AD_ENZYME
/* read by main.c: 1 when this file was compiled without enz-rs */
#ifdef NO_ENZ
int ba_no_enz = 1;
#else
int ba_no_enz = 0;
#endif
#endif

#define NCAM 11
#define JROW 31

static void rodrigues(const double *r, const double *v, double *out) {
  double t2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
  if (t2 != 0.0) {
    double t = sqrt(t2), ct = cos(t), st = sin(t), it = 1.0 / t;
    double a[3] = {r[0] * it, r[1] * it, r[2] * it};
    double axv[3] = {a[1] * v[2] - a[2] * v[1], a[2] * v[0] - a[0] * v[2],
                     a[0] * v[1] - a[1] * v[0]};
    double k = (a[0] * v[0] + a[1] * v[1] + a[2] * v[2]) * (1.0 - ct);
    for (int j = 0; j < 3; j++)
      out[j] = v[j] * ct + axv[j] * st + a[j] * k;
  } else {
    out[0] = v[0] + r[1] * v[2] - r[2] * v[1];
    out[1] = v[1] + r[2] * v[0] - r[0] * v[2];
    out[2] = v[2] + r[0] * v[1] - r[1] * v[0];
  }
}

/* The per-observation function: err[0..2) for camera cam, point X, weight
 * *w and feature feat. */
__attribute__((noinline)) void ba_reproj(const double *cam, const double *X,
                                         const double *w, const double *feat,
                                         double *err) {
  double v[3] = {X[0] - cam[3], X[1] - cam[4], X[2] - cam[5]};
  double y[3];
  rodrigues(cam, v, y);
  double p0 = y[0] / y[2], p1 = y[1] / y[2];
  double r2 = p0 * p0 + p1 * p1;
  double dist = 1.0 + cam[9] * r2 + cam[10] * r2 * r2;
  err[0] = *w * (cam[6] * dist * p0 + cam[7] - feat[0]);
  err[1] = *w * (cam[6] * dist * p1 + cam[8] - feat[1]);
}

__attribute__((noinline)) double ba_werr(double w) { return 1.0 - w * w; }

#ifndef AD_ENZYME
/* All residuals: reproj_err[2p], w_err[p]. */
void ba_objective(int n, int m, int p, const double *cams, const double *X,
                  const double *w, const int *obs, const double *feats,
                  double *reproj_err, double *w_err) {
  (void)n, (void)m;
  for (int i = 0; i < p; i++)
    ba_reproj(cams + (size_t)obs[2 * i] * NCAM, X + (size_t)obs[2 * i + 1] * 3,
              w + i, feats + 2 * i, reproj_err + 2 * i);
  for (int i = 0; i < p; i++)
    w_err[i] = ba_werr(w[i]);
}

#endif /* !AD_ENZYME */

/* enz-rs (Enzyme with -DAD_ENZYME): the Jacobian rows, 31 per observation. */
void ba_jacobian_enz(int n, int m, int p, const double *cams, const double *X,
                     const double *w, const int *obs, const double *feats,
                     double *J) {
  (void)n, (void)m;
  for (int i = 0; i < p; i++) {
    const double *cam = cams + (size_t)obs[2 * i] * NCAM;
    const double *pt = X + (size_t)obs[2 * i + 1] * 3;
    double *Ji = J + (size_t)i * JROW;
    for (int r = 0; r < 2; r++) {
      double *row = Ji + 15 * r;
      double err[2], derr[2] = {r == 0, r == 1};
      for (int j = 0; j < 15; j++)
        row[j] = 0.0;
#ifdef NO_ENZ
      (void)cam, (void)pt, (void)err, (void)derr, (void)feats, (void)w;
#else
      __enzyme_autodiff_v((void *)ba_reproj, enzyme_dup, cam, row, enzyme_dup,
                          pt, row + 11, enzyme_dup, w + i, row + 14,
                          enzyme_const, feats + 2 * i, enzyme_dupnoneed, err,
                          derr);
#endif
    }
#ifdef NO_ENZ
    Ji[30] = 0.0;
#else
    Ji[30] = __enzyme_autodiff((void *)ba_werr, w[i]);
#endif
  }
}

#ifndef AD_ENZYME
/* central finite differences of the same rows */
static void ba_jacobian_fd(int p, const double *cams, const double *X,
                           const double *w, const int *obs, const double *feats,
                           double *J) {
  for (int i = 0; i < p; i++) {
    double in[15], ep[2], em[2];
    memcpy(in, cams + (size_t)obs[2 * i] * NCAM, sizeof(double) * NCAM);
    memcpy(in + 11, X + (size_t)obs[2 * i + 1] * 3, sizeof(double) * 3);
    in[14] = w[i];
    double *Ji = J + (size_t)i * JROW;
    for (int j = 0; j < 15; j++) {
      double v = in[j], h = 1e-6 * (1.0 + fabs(v));
      in[j] = v + h;
      double hp = in[j];
      ba_reproj(in, in + 11, in + 14, feats + 2 * i, ep);
      in[j] = v - h;
      double hm = in[j];
      ba_reproj(in, in + 11, in + 14, feats + 2 * i, em);
      in[j] = v;
      Ji[j] = (ep[0] - em[0]) / (hp - hm);
      Ji[15 + j] = (ep[1] - em[1]) / (hp - hm);
    }
    double h = 1e-6 * (1.0 + fabs(w[i]));
    double wp = w[i] + h, wm = w[i] - h;
    Ji[30] = (ba_werr(wp) - ba_werr(wm)) / (wp - wm);
  }
}

/* ---- driver ------------------------------------------------------------ */

typedef struct {
  int n, m, p;
  double *cams, *X, *w, *feats, *reproj, *werr, *J;
  int *obs;
} ba_t;

static void b_primal(void *v) {
  ba_t *s = (ba_t *)v;
  ba_objective(s->n, s->m, s->p, s->cams, s->X, s->w, s->obs, s->feats,
               s->reproj, s->werr);
}
static void b_enz(void *v) {
  ba_t *s = (ba_t *)v;
  ba_jacobian_enz(s->n, s->m, s->p, s->cams, s->X, s->w, s->obs, s->feats,
                  s->J);
}
static void b_enzyme(void *v) {
  ba_t *s = (ba_t *)v;
  ba_jacobian_enzyme(s->n, s->m, s->p, s->cams, s->X, s->w, s->obs, s->feats,
                     s->J);
}
static void b_adolc(void *v) {
  ba_t *s = (ba_t *)v;
  adolc_ba_jacobian(1, s->n, s->m, s->p, s->cams, s->X, s->w, s->obs,
                    s->feats, s->J);
}
static void b_adolc_re(void *v) {
  ba_t *s = (ba_t *)v;
  adolc_ba_jacobian(0, s->n, s->m, s->p, s->cams, s->X, s->w, s->obs,
                    s->feats, s->J);
}
static void b_fd(void *v) {
  ba_t *s = (ba_t *)v;
  ba_jacobian_fd(s->p, s->cams, s->X, s->w, s->obs, s->feats, s->J);
}

/* Cameras on a ring looking at a cloud of points around the origin: each
 * camera's rotation turns the direction to the origin onto +z. */
static void ba_generate(ba_t *s, uint64_t seed) {
  lcg_t r;
  lcg_seed(&r, seed);
  for (int c = 0; c < s->n; c++) {
    double *cam = s->cams + (size_t)c * NCAM;
    double ang = 6.283185307179586 * c / s->n + lcg_range(&r, -0.1, 0.1);
    double R = 10.0 + lcg_range(&r, -1.0, 1.0);
    /* rotation about y by phi maps the direction d = (-sin a, 0, -cos a)
     * (from the camera at C = R (sin a, 0, cos a) to the origin) onto +z:
     * phi = pi - a (mod 2 pi), plus a little noise on every axis */
    double phi = 3.141592653589793 - ang;
    cam[0] = lcg_range(&r, -0.05, 0.05);
    cam[1] = phi + lcg_range(&r, -0.05, 0.05);
    cam[2] = lcg_range(&r, -0.05, 0.05);
    cam[3] = R * sin(ang);
    cam[4] = lcg_range(&r, -0.5, 0.5);
    cam[5] = R * cos(ang);
    cam[6] = lcg_range(&r, 400.0, 600.0);
    cam[7] = lcg_range(&r, -5.0, 5.0);
    cam[8] = lcg_range(&r, -5.0, 5.0);
    cam[9] = lcg_range(&r, -0.2, 0.2);
    cam[10] = lcg_range(&r, -0.05, 0.05);
  }
  for (int j = 0; j < 3 * s->m; j++)
    s->X[j] = lcg_range(&r, -2.0, 2.0);
  for (int i = 0; i < s->p; i++) {
    s->obs[2 * i] = i < s->n ? i : lcg_int(&r, s->n);
    s->obs[2 * i + 1] = i % s->m;
    s->w[i] = lcg_range(&r, 0.5, 1.5);
  }
  /* features: the projection plus noise */
  for (int i = 0; i < s->p; i++) {
    double one = 1.0, e[2], zero[2] = {0.0, 0.0};
    ba_reproj(s->cams + (size_t)s->obs[2 * i] * NCAM,
              s->X + (size_t)s->obs[2 * i + 1] * 3, &one, zero, e);
    s->feats[2 * i] = e[0] + lcg_normal(&r);
    s->feats[2 * i + 1] = e[1] + lcg_normal(&r);
  }
}

static void ba_size(int n, int m, int p) {
  char size[64], params[32];
  snprintf(size, sizeof size, "%d cams %d pts %d obs", n, m, p);
  snprintf(params, sizeof params, "%d x 15 + %d", 2 * p, p);
  ba_t s;
  s.n = n, s.m = m, s.p = p;
  s.cams = (double *)malloc(sizeof(double) * NCAM * n);
  s.X = (double *)malloc(sizeof(double) * 3 * m);
  s.w = (double *)malloc(sizeof(double) * p);
  s.feats = (double *)malloc(sizeof(double) * 2 * p);
  s.reproj = (double *)malloc(sizeof(double) * 2 * p);
  s.werr = (double *)malloc(sizeof(double) * p);
  s.J = (double *)malloc(sizeof(double) * JROW * p);
  touch_pages(s.J, sizeof(double) * JROW * p);
  s.obs = (int *)malloc(sizeof(int) * 2 * p);
  ba_generate(&s, 0xba0000ull + (uint64_t)p);

  result_t *res = result_new("BA", size, params);
  printf("BA %s (Jacobian rows: %s)\n", size, params);
  fflush(stdout);

  /* primal of the two implementations */
  double *r2 = (double *)malloc(sizeof(double) * 3 * p);
  b_primal(&s);
  cxx_ba_objective(n, m, p, s.cams, s.X, s.w, s.obs, s.feats, r2, r2 + 2 * p);
  check_grad("BA", size, "primal C vs C++ template (reproj)", r2, s.reproj,
             2 * (size_t)p, 1e-10);
  check_grad("BA", size, "primal C vs C++ template (werr)", r2 + 2 * p, s.werr,
             (size_t)p, 1e-10);
  /* every observation is in front of its camera */
  for (int i = 0; i < p; i++) {
    const double *cam = s.cams + (size_t)s.obs[2 * i] * NCAM;
    const double *X = s.X + (size_t)s.obs[2 * i + 1] * 3;
    double v[3] = {X[0] - cam[3], X[1] - cam[4], X[2] - cam[5]}, y[3];
    rodrigues(cam, v, y);
    if (!(y[2] > 1.0)) {
      fprintf(stderr, "error: BA generator: observation %d behind camera\n", i);
      exit(2);
    }
  }

  size_t nj = (size_t)JROW * p;
  double *je = (double *)malloc(sizeof(double) * nj);
  double *ja = (double *)malloc(sizeof(double) * nj);
  double *jf = (double *)malloc(sizeof(double) * nj);
  ba_jacobian_fd(p, s.cams, s.X, s.w, s.obs, s.feats, jf);
  const double *ref = jf;
  const char *refname = "FD";
  if (!enz_missing) {
    ba_jacobian_enz(n, m, p, s.cams, s.X, s.w, s.obs, s.feats, je);
    ref = je;
    refname = "enz-rs";
  }
  char what[64];
  if (ba_jacobian_enzyme) {
    double *jz = (double *)malloc(sizeof(double) * nj);
    ba_jacobian_enzyme(n, m, p, s.cams, s.X, s.w, s.obs, s.feats, jz);
    snprintf(what, sizeof what, "Enzyme vs %s", refname);
    check_grad("BA", size, what, jz, ref, nj, enz_missing ? FD_RTOL : AD_RTOL);
    free(jz);
  } else {
    result_skip_enzyme(res, "ba.c");
  }
  if (adolc_ba_jacobian(1, n, m, p, s.cams, s.X, s.w, s.obs, s.feats, ja) < 0) {
    fprintf(stderr, "error: BA %s: ADOL-C jacobian() failed\n", size);
    exit(3);
  }
  snprintf(what, sizeof what, "ADOL-C vs %s", refname);
  check_grad("BA", size, what, ja, ref, nj, enz_missing ? FD_RTOL : AD_RTOL);
  if (adolc_ba_jacobian(0, n, m, p, s.cams, s.X, s.w, s.obs, s.feats, ja) < 0) {
    fprintf(stderr, "error: BA %s: ADOL-C jacobian() on one tape failed (a "
            "branch changed)\n", size);
    exit(3);
  }
  snprintf(what, sizeof what, "ADOL-C one tape vs %s", refname);
  check_grad("BA", size, what, ja, ref, nj, enz_missing ? FD_RTOL : AD_RTOL);
  if (!enz_missing)
    check_grad("BA", size, "FD vs enz-rs", jf, je, nj, FD_RTOL);

  /* peak memory of one call each */
  res->mem_primal = peak_mb(b_primal, &s);
  if (!enz_missing)
    res->mem[TOOL_ENZ] = peak_mb(b_enz, &s);
  if (ba_jacobian_enzyme)
    res->mem[TOOL_ENZYME] = peak_mb(b_enzyme, &s);

  {
    /* primal, enz-rs, Enzyme: interleaved */
    bench_fn fns[4] = {b_primal, enz_missing ? NULL : b_enz,
                        ba_jacobian_enzyme ? b_enzyme : NULL, NULL};
    double t[4];
    time_interleaved(4, fns, &s, t);
    res->primal = t[0];
    if (enz_missing)
      result_skip(res, TOOL_ENZ, "FAIL: enz-rs could not build ba.c");
    else
      res->grad[TOOL_ENZ] = t[1];
    if (ba_jacobian_enzyme)
      res->grad[TOOL_ENZYME] = t[2];

  }
  res->grad[TOOL_ADOLC] = time_median(b_adolc, &s);
  res->grad[TOOL_ADOLC_RE] = time_median(b_adolc_re, &s);
  res->grad[TOOL_FD] = time_median(b_fd, &s);

  free(s.cams);
  free(s.X);
  free(s.w);
  free(s.feats);
  free(s.reproj);
  free(s.werr);
  free(s.J);
  free(s.obs);
  free(r2);
  free(je);
  free(ja);
  free(jf);
}

/* One size, from its row of the table below. */
static void ba_at(const int *s) { ba_size(s[0], s[1], s[2]); }

void run_ba(void) {
  /* cameras, points, observations, in --quick */
  static const int sizes[][4] = {
      {5, 50, 200, 1}, {20, 2000, 10000, 1}, {49, 7776, 31843, 0}};
  for (int i = 0; i < 3; i++)
    if (size_selected(i, sizes[i][3]))
      run_size(ba_at, sizes[i]);
}
#endif /* !AD_ENZYME */
