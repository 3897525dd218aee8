/*
 * hand.c -- ADBench's hand-tracking objective (the "simple" variant: every
 * point has a given vertex correspondence), written from its definition.
 *
 * Model: B = 22 bones in a parent chain (bone 0 the root, bone 1 the palm,
 * then 5 fingers of 4 bones each, every finger bone the child of the one
 * before it, the first of each finger the child of the palm); per bone its
 * base relative transform Rel_i (4 x 4, rigid) and the inverse of its base
 * absolute transform Inv_i (Abs_i = Abs_parent Rel_i at the rest pose); N
 * vertices with rest positions v (homogeneous) and skinning weights
 * w[B][N] (a vertex hangs on its bone and that bone's parent).
 *
 * Pose: theta[26] = global rotation (angle-axis, 3), global translation (3),
 * then per finger 4 joint angles: the first bone of the finger flexes (x)
 * and spreads (z), the second and third flex (x); the root, the palm and
 * the finger tips have no angles.
 *
 *   E_i   = Rz(c_i) Ry(b_i) Rx(a_i)        (the bone's Euler angles)
 *   R_i   = Rel_i [E_i 0; 0 1]             (posed relative transform)
 *   A_i   = A_parent(i) R_i, A_0 = R_0     (absolute transforms)
 *   p_v   = sum_i w[i][v] (A_i Inv_i v)    (linear blend skinning, xyz)
 *   q_v   = Rodrigues(theta[0..3)) p_v + theta[3..6)
 *   err_j = points_j - q_{corr_j}          (3 residuals per point)
 *
 * The Jacobian d err / d theta (3 npts x 26) is computed in forward mode:
 * one __enzyme_fwddiff sweep per parameter (the tangent of theta a unit
 * vector), by enz-rs, by Enzyme (-DAD_ENZYME, see adbench.h) and by central
 * finite differences (2 primal runs per parameter).
 */
#ifdef AD_ENZYME
#define hand_objective hand_objective_enzyme
#define hand_jacobian_enz hand_jacobian_enzyme
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "adbench.h"
#include "enzyme.h"

void __enzyme_fwddiff_v(void *, ...);

#ifndef AD_ENZYME
/* read by main.c: 1 when this file was compiled without enz-rs */
#ifdef NO_ENZ
int hand_no_enz = 1;
#else
int hand_no_enz = 0;
#endif
#endif

#define NBONES 22
#define NTHETA 26

/* 4 x 4 matrices, row-major: c = a b */
static void mat4_mul(const double *a, const double *b, double *c) {
  for (int r = 0; r < 4; r++)
    for (int k = 0; k < 4; k++) {
      double s = 0.0;
      for (int j = 0; j < 4; j++)
        s += a[4 * r + j] * b[4 * j + k];
      c[4 * r + k] = s;
    }
}

/* m (3 x 3, row-major) = Rz(z) Ry(y) Rx(x) */
static void euler_xyz(double x, double y, double z, double *m) {
  double cx = cos(x), sx = sin(x), cy = cos(y), sy = sin(y), cz = cos(z),
         sz = sin(z);
  m[0] = cz * cy;
  m[1] = cz * sy * sx - sz * cx;
  m[2] = cz * sy * cx + sz * sx;
  m[3] = sz * cy;
  m[4] = sz * sy * sx + cz * cx;
  m[5] = sz * sy * cx - cz * sx;
  m[6] = -sy;
  m[7] = cy * sx;
  m[8] = cy * cx;
}

/* m (3 x 3) = the rotation by the angle-axis vector r (Rodrigues) */
static void angle_axis(const double *r, double *m) {
  double t2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
  if (t2 < 1e-16) { /* first order: I + [r]x */
    m[0] = 1.0, m[1] = -r[2], m[2] = r[1];
    m[3] = r[2], m[4] = 1.0, m[5] = -r[0];
    m[6] = -r[1], m[7] = r[0], m[8] = 1.0;
    return;
  }
  double t = sqrt(t2), c = cos(t), s = sin(t), k = 1.0 - c;
  double x = r[0] / t, y = r[1] / t, z = r[2] / t;
  m[0] = c + x * x * k, m[1] = x * y * k - z * s, m[2] = x * z * k + y * s;
  m[3] = y * x * k + z * s, m[4] = c + y * y * k, m[5] = y * z * k - x * s;
  m[6] = z * x * k - y * s, m[7] = z * y * k + x * s, m[8] = c + z * z * k;
}

/* The Euler angles of every bone from theta: ang[3 * NBONES]. */
static void bone_angles(const double *theta, double *ang) {
  for (int i = 0; i < 3 * NBONES; i++)
    ang[i] = 0.0;
  int t = 6;
  for (int f = 0; f < 5; f++) {
    int b = 2 + 4 * f;
    ang[3 * b + 0] = theta[t++]; /* flex */
    ang[3 * b + 2] = theta[t++]; /* spread */
    ang[3 * (b + 1)] = theta[t++];
    ang[3 * (b + 2)] = theta[t++];
  }
}

/* The residuals err[3 npts] at theta[26]. base_rel, inv_base_abs:
 * [NBONES][16]; base_pos: [nverts][4]; weights: [NBONES][nverts]. */
__attribute__((noinline)) void
hand_objective(const double *theta, const int *parents, const double *base_rel,
               const double *inv_base_abs, int nverts, const double *base_pos,
               const double *weights, int npts, const int *corr,
               const double *points, double *err) {
  double *ang = (double *)malloc(sizeof(double) * 3 * NBONES);
  double *absm = (double *)malloc(sizeof(double) * 16 * NBONES);
  double *skin = (double *)malloc(sizeof(double) * 12 * NBONES);
  double *pos = (double *)malloc(sizeof(double) * 3 * (size_t)nverts);
  double rel[16], local[16], e[9], g[9];

  bone_angles(theta, ang);
  for (int i = 0; i < NBONES; i++) {
    /* R_i = Rel_i [E_i 0; 0 1] */
    euler_xyz(ang[3 * i], ang[3 * i + 1], ang[3 * i + 2], e);
    for (int r = 0; r < 4; r++)
      for (int c = 0; c < 4; c++)
        local[4 * r + c] = r < 3 && c < 3 ? e[3 * r + c] : (r == c ? 1.0 : 0.0);
    mat4_mul(base_rel + 16 * i, local, rel);
    /* A_i = A_parent R_i */
    if (parents[i] < 0)
      memcpy(absm + 16 * i, rel, sizeof rel);
    else
      mat4_mul(absm + 16 * parents[i], rel, absm + 16 * i);
    /* the skinning transform A_i Inv_i, its top 3 rows */
    double t[16];
    mat4_mul(absm + 16 * i, inv_base_abs + 16 * i, t);
    memcpy(skin + 12 * i, t, sizeof(double) * 12);
  }

  /* linear blend skinning */
  for (int v = 0; v < nverts; v++)
    pos[3 * v] = pos[3 * v + 1] = pos[3 * v + 2] = 0.0;
  for (int i = 0; i < NBONES; i++) {
    const double *m = skin + 12 * i;
    const double *w = weights + (size_t)i * nverts;
    for (int v = 0; v < nverts; v++) {
      const double *p = base_pos + 4 * (size_t)v;
      for (int r = 0; r < 3; r++)
        pos[3 * v + r] += w[v] * (m[4 * r] * p[0] + m[4 * r + 1] * p[1] +
                                  m[4 * r + 2] * p[2] + m[4 * r + 3] * p[3]);
    }
  }

  /* the global rotation and translation, then the residuals */
  angle_axis(theta, g);
  for (int j = 0; j < npts; j++) {
    const double *p = pos + 3 * (size_t)corr[j];
    for (int r = 0; r < 3; r++)
      err[3 * j + r] = points[3 * j + r] -
                       (g[3 * r] * p[0] + g[3 * r + 1] * p[1] +
                        g[3 * r + 2] * p[2] + theta[3 + r]);
  }
  free(ang);
  free(absm);
  free(skin);
  free(pos);
}

/* enz-rs (Enzyme with -DAD_ENZYME): the Jacobian, column k (J[k * 3 npts
 * ...]) from the forward sweep with theta's tangent e_k. */
void hand_jacobian_enz(const double *theta, const int *parents,
                       const double *base_rel, const double *inv_base_abs,
                       int nverts, const double *base_pos,
                       const double *weights, int npts, const int *corr,
                       const double *points, double *J) {
  double dtheta[NTHETA];
  double *err = (double *)malloc(sizeof(double) * 3 * (size_t)npts);
  for (int k = 0; k < NTHETA; k++) {
    for (int t = 0; t < NTHETA; t++)
      dtheta[t] = t == k;
    double *col = J + (size_t)k * 3 * npts;
#ifdef NO_ENZ
    (void)theta, (void)parents, (void)base_rel, (void)inv_base_abs;
    (void)nverts, (void)base_pos, (void)weights, (void)corr, (void)points;
    memset(col, 0, sizeof(double) * 3 * (size_t)npts);
#else
    __enzyme_fwddiff_v((void *)hand_objective, enzyme_dup, theta, dtheta,
                       enzyme_const, parents, enzyme_const, base_rel,
                       enzyme_const, inv_base_abs, enzyme_const, nverts,
                       enzyme_const, base_pos, enzyme_const, weights,
                       enzyme_const, npts, enzyme_const, corr, enzyme_const,
                       points, enzyme_dupnoneed, err, col);
#endif
  }
  free(err);
}

#ifndef AD_ENZYME
/* ---- driver ------------------------------------------------------------ */

typedef struct {
  int nverts, npts;
  int parents[NBONES];
  double theta[NTHETA];
  double *base_rel, *inv_base_abs, *base_pos, *weights, *points, *err, *J;
  int *corr;
} hand_t;

static void primal(hand_t *s, double *err) {
  hand_objective(s->theta, s->parents, s->base_rel, s->inv_base_abs,
                 s->nverts, s->base_pos, s->weights, s->npts, s->corr,
                 s->points, err);
}
static void b_primal(void *v) {
  hand_t *s = (hand_t *)v;
  primal(s, s->err);
}
static void b_enz(void *v) {
  hand_t *s = (hand_t *)v;
  hand_jacobian_enz(s->theta, s->parents, s->base_rel, s->inv_base_abs,
                    s->nverts, s->base_pos, s->weights, s->npts, s->corr,
                    s->points, s->J);
}
static void b_enzyme(void *v) {
  hand_t *s = (hand_t *)v;
  hand_jacobian_enzyme(s->theta, s->parents, s->base_rel, s->inv_base_abs,
                       s->nverts, s->base_pos, s->weights, s->npts, s->corr,
                       s->points, s->J);
}

/* central finite differences, column k from 2 primal runs */
static void hand_jacobian_fd(hand_t *s, double *J) {
  size_t ne = 3 * (size_t)s->npts;
  double *ep = (double *)malloc(sizeof(double) * ne);
  double *em = (double *)malloc(sizeof(double) * ne);
  for (int k = 0; k < NTHETA; k++) {
    double v = s->theta[k], h = 1e-6 * (1.0 + fabs(v));
    s->theta[k] = v + h;
    double hp = s->theta[k];
    primal(s, ep);
    s->theta[k] = v - h;
    double hm = s->theta[k];
    primal(s, em);
    s->theta[k] = v;
    for (size_t r = 0; r < ne; r++)
      J[(size_t)k * ne + r] = (ep[r] - em[r]) / (hp - hm);
  }
  free(ep);
  free(em);
}
static void b_fd(void *v) {
  hand_t *s = (hand_t *)v;
  hand_jacobian_fd(s, s->J);
}

/* 4 x 4 rigid transform from Euler angles and a translation */
static void rigid(double x, double y, double z, double tx, double ty,
                  double tz, double *m) {
  double e[9];
  euler_xyz(x, y, z, e);
  for (int r = 0; r < 3; r++) {
    for (int c = 0; c < 3; c++)
      m[4 * r + c] = e[3 * r + c];
  }
  m[3] = tx, m[7] = ty, m[11] = tz;
  m[12] = m[13] = m[14] = 0.0, m[15] = 1.0;
}

/* inverse of a rigid transform: [R^T, -R^T t] */
static void rigid_inverse(const double *m, double *inv) {
  for (int r = 0; r < 3; r++) {
    for (int c = 0; c < 3; c++)
      inv[4 * r + c] = m[4 * c + r];
    inv[4 * r + 3] = -(m[r] * m[3] + m[4 + r] * m[7] + m[8 + r] * m[11]);
  }
  inv[12] = inv[13] = inv[14] = 0.0, inv[15] = 1.0;
}

/* A synthetic hand: palm above the root, five fingers fanned out along y,
 * each bone slightly turned; vertices scattered around the bones, each
 * weighted between its bone and the bone's parent; the points are the
 * skinned vertices at a "true" pose plus noise, the objective is evaluated
 * at another pose. */
static void hand_generate(hand_t *s, uint64_t seed) {
  lcg_t r;
  lcg_seed(&r, seed);
  double absm[16 * NBONES];
  for (int i = 0; i < NBONES; i++) {
    double *m = s->base_rel + 16 * i;
    double ax = lcg_range(&r, -0.1, 0.1), ay = lcg_range(&r, -0.1, 0.1),
           az = lcg_range(&r, -0.1, 0.1);
    if (i == 0) {
      s->parents[i] = -1;
      rigid(ax, ay, az, 0.0, 0.0, 0.0, m);
    } else if (i == 1) {
      s->parents[i] = 0;
      rigid(ax, ay, az, 0.0, 0.4, 0.0, m);
    } else {
      int f = (i - 2) / 4, j = (i - 2) % 4;
      s->parents[i] = j == 0 ? 1 : i - 1;
      if (j == 0)
        rigid(ax, ay, az + 0.25 * (f - 2), -0.3 + 0.15 * f, 0.5, 0.0, m);
      else
        rigid(ax, ay, az, 0.0, 0.35 - 0.07 * j, 0.0, m);
    }
    if (s->parents[i] < 0)
      memcpy(absm + 16 * i, m, sizeof(double) * 16);
    else
      mat4_mul(absm + 16 * s->parents[i], m, absm + 16 * i);
    rigid_inverse(absm + 16 * i, s->inv_base_abs + 16 * i);
  }
  memset(s->weights, 0, sizeof(double) * NBONES * (size_t)s->nverts);
  for (int v = 0; v < s->nverts; v++) {
    int b = 1 + lcg_int(&r, NBONES - 1);
    double local[4] = {lcg_range(&r, -0.08, 0.08), lcg_range(&r, 0.0, 0.3),
                       lcg_range(&r, -0.08, 0.08), 1.0};
    double *p = s->base_pos + 4 * (size_t)v;
    for (int k = 0; k < 4; k++) {
      p[k] = 0.0;
      for (int c = 0; c < 4; c++)
        p[k] += absm[16 * b + 4 * k + c] * local[c];
    }
    double wb = lcg_range(&r, 0.5, 1.0);
    s->weights[(size_t)b * s->nverts + v] = wb;
    s->weights[(size_t)s->parents[b] * s->nverts + v] = 1.0 - wb;
  }
  for (int j = 0; j < s->npts; j++)
    s->corr[j] = lcg_int(&r, s->nverts);
  /* points: the model at a true pose, plus noise */
  for (int k = 0; k < NTHETA; k++)
    s->theta[k] = k < 3 ? lcg_range(&r, -0.6, 0.6)
                  : k < 6 ? lcg_range(&r, -1.0, 1.0)
                          : lcg_range(&r, -0.5, 0.5);
  memset(s->points, 0, sizeof(double) * 3 * (size_t)s->npts);
  primal(s, s->err); /* err = 0 - q */
  for (int j = 0; j < 3 * s->npts; j++)
    s->points[j] = -s->err[j] + 0.01 * lcg_normal(&r);
  /* the pose the objective is evaluated at */
  for (int k = 0; k < NTHETA; k++)
    s->theta[k] += k < 6 ? lcg_range(&r, -0.2, 0.2) : lcg_range(&r, -0.3, 0.3);
}

static void hand_size(int nverts, int npts) {
  char size[64], params[32];
  snprintf(size, sizeof size, "%d bones %d verts %d pts", NBONES, nverts,
           npts);
  snprintf(params, sizeof params, "%d x %d", 3 * npts, NTHETA);
  hand_t s;
  memset(&s, 0, sizeof s);
  s.nverts = nverts, s.npts = npts;
  size_t ne = 3 * (size_t)npts, nj = ne * NTHETA;
  s.base_rel = (double *)malloc(sizeof(double) * 16 * NBONES);
  s.inv_base_abs = (double *)malloc(sizeof(double) * 16 * NBONES);
  s.base_pos = (double *)malloc(sizeof(double) * 4 * (size_t)nverts);
  s.weights = (double *)malloc(sizeof(double) * NBONES * (size_t)nverts);
  s.points = (double *)malloc(sizeof(double) * ne);
  s.err = (double *)malloc(sizeof(double) * ne);
  s.J = (double *)malloc(sizeof(double) * nj);
  s.corr = (int *)malloc(sizeof(int) * (size_t)npts);
  touch_pages(s.J, sizeof(double) * nj);
  hand_generate(&s, 0x4a4dull + (uint64_t)nverts * 131u + (uint64_t)npts);

  result_t *res = result_new("Hand", size, params);
  printf("Hand %s (Jacobian %s)\n", size, params);
  fflush(stdout);

  /* Jacobians, checked before anything is timed */
  double *jf = (double *)malloc(sizeof(double) * nj);
  double *je = (double *)malloc(sizeof(double) * nj);
  hand_jacobian_fd(&s, jf);
  const double *ref = jf;
  const char *refname = "FD";
  double rtol = FD_RTOL;
  if (!enz_missing) {
    hand_jacobian_enz(s.theta, s.parents, s.base_rel, s.inv_base_abs, nverts,
                      s.base_pos, s.weights, npts, s.corr, s.points, je);
    check_grad("Hand", size, "FD vs enz-rs", jf, je, nj, FD_RTOL);
    ref = je;
    refname = "enz-rs";
    rtol = AD_RTOL;
  }
  char what[64];
  if (hand_jacobian_enzyme) {
    double *jz = (double *)malloc(sizeof(double) * nj);
    hand_jacobian_enzyme(s.theta, s.parents, s.base_rel, s.inv_base_abs,
                         nverts, s.base_pos, s.weights, npts, s.corr,
                         s.points, jz);
    snprintf(what, sizeof what, "Enzyme vs %s", refname);
    check_grad("Hand", size, what, jz, ref, nj, rtol);
    free(jz);
  } else {
    result_skip_enzyme(res, "hand.c");
  }
  result_skip(res, TOOL_ADOLC, "not run: no ADOL-C version of this objective");
  result_skip(res, TOOL_ADOLC_RE, "not run: no ADOL-C version of this "
              "objective");

  res->mem_primal = peak_mb(b_primal, &s);
  if (!enz_missing)
    res->mem[TOOL_ENZ] = peak_mb(b_enz, &s);
  if (hand_jacobian_enzyme)
    res->mem[TOOL_ENZYME] = peak_mb(b_enzyme, &s);

  {
    /* primal, enz-rs, Enzyme: interleaved */
    bench_fn fns[4] = {b_primal, enz_missing ? NULL : b_enz,
                        hand_jacobian_enzyme ? b_enzyme : NULL, NULL};
    double t[4];
    time_interleaved(4, fns, &s, t);
    res->primal = t[0];
    if (enz_missing)
      result_skip(res, TOOL_ENZ, "FAIL: enz-rs could not build hand.c");
    else
      res->grad[TOOL_ENZ] = t[1];
    if (hand_jacobian_enzyme)
      res->grad[TOOL_ENZYME] = t[2];

  }
  res->grad[TOOL_FD] = time_median(b_fd, &s);

  free(s.base_rel);
  free(s.inv_base_abs);
  free(s.base_pos);
  free(s.weights);
  free(s.points);
  free(s.err);
  free(s.J);
  free(s.corr);
  free(jf);
  free(je);
}

/* One size, from its row of the table below. */
static void hand_at(const int *s) { hand_size(s[0], s[1]); }

void run_hand(void) {
  /* vertices, points, in --quick */
  static const int sizes[][3] = {{544, 100, 1}, {544, 1000, 0}};
  for (int i = 0; i < 2; i++)
    if (size_selected(i, sizes[i][2]))
      run_size(hand_at, sizes[i]);
}
#endif /* !AD_ENZYME */
