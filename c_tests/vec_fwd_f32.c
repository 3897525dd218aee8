/* vec_fwd_f32.c: vector forward mode of float code. The N float tangents
 * of each duplicated float parameter arrive promoted to double through
 * `...`; the call returns a struct of N floats. Widths 1, 2, 4, 8, each lane
 * checked against a scalar __enzyme_fwddiff_f32 call, analytic and FD.
 *   g(x, y)  = x^2 y - sinf(x y)          two float parameters
 *   s(x, n)  = sum_i expf(0.3 x_i) x_(i+1 mod n)   a float array (N tangent
 *              pointers), n = 5
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include <stdlib.h>
#include "enzyme.h"
#include "check.h"

typedef struct { float d[1]; } tan1f;
typedef struct { float d[2]; } tan2f;
typedef struct { float d[4]; } tan4f;
typedef struct { float d[8]; } tan8f;
tan1f __enzyme_fwddiff_w1f(void *, ...);
tan2f __enzyme_fwddiff_w2f(void *, ...);
tan4f __enzyme_fwddiff_w4f(void *, ...);
tan8f __enzyme_fwddiff_w8f(void *, ...);
float __enzyme_fwddiff_f32(void *, ...);

#define L1(a) (a)[0]
#define L2(a) (a)[0], (a)[1]
#define L4(a) L2(a), (a)[2], (a)[3]
#define L8(a) L4(a), (a)[4], (a)[5], (a)[6], (a)[7]

static float g(float x, float y) { return x * x * y - sinf(x * y); }
static float g_v(float *v) { return g(v[0], v[1]); }
static double g_dir(double x, double y, double dx, double dy) {
  double c = cos(x * y);
  return (2.0 * x * y - y * c) * dx + (x * x - x * c) * dy;
}

#define NS 5
static float s(float *x, int n) {
  float r = 0.0f;
  for (int i = 0; i < n; i++)
    r += expf(0.3f * x[i]) * x[(i + 1) % n];
  return r;
}
static float s_v(float *x) { return s(x, NS); }
static double s_dir(const float *x, const float *dx, int n) {
  double t = 0.0;
  for (int i = 0; i < n; i++) {
    int i1 = (i + 1) % n;
    double e = exp(0.3 * x[i]);
    t += 0.3 * e * dx[i] * x[i1] + e * dx[i1];
  }
  return t;
}

#define WMAX 8

#ifdef NO_AD
#define VCALL_G(W)                                                             \
  for (int j = 0; j < W; j++) got[j] = (float)g_dir(x, y, dxs[j], dys[j])
#define VCALL_S(W)                                                             \
  for (int j = 0; j < W; j++) got[j] = (float)s_dir(xa, dX[j], NS)
#define SCALAR_G(j) ((float)g_dir(x, y, dxs[j], dys[j]))
#define SCALAR_S(j) ((float)s_dir(xa, dX[j], NS))
#else
#define VCALL_G(W)                                                             \
  do {                                                                         \
    tan##W##f r_ = __enzyme_fwddiff_w##W##f((void *)g, enzyme_width, W, x,    \
                                            L##W(dxs), y, L##W(dys));         \
    for (int j = 0; j < W; j++)                                                \
      got[j] = r_.d[j];                                                        \
  } while (0)
#define VCALL_S(W)                                                             \
  do {                                                                         \
    tan##W##f r_ = __enzyme_fwddiff_w##W##f((void *)s, enzyme_width, W, xa,   \
                                            L##W(dX), NS);                    \
    for (int j = 0; j < W; j++)                                                \
      got[j] = r_.d[j];                                                        \
  } while (0)
#define SCALAR_G(j) __enzyme_fwddiff_f32((void *)g, x, dxs[j], y, dys[j])
#define SCALAR_S(j) __enzyme_fwddiff_f32((void *)s, xa, dX[j], NS)
#endif

int main(void) {
  const float pts[2][2] = {{0.7f, -0.4f}, {-1.3f, 0.9f}};
  const int widths[4] = {1, 2, 4, 8};
  check_seed(65);
  for (int p = 0; p < 2; p++)
    for (int wi = 0; wi < 4; wi++) {
      int W = widths[wi];
      float x = pts[p][0], y = pts[p][1], pt[2] = {x, y};
      float dxs[WMAX], dys[WMAX], got[WMAX], sc[WMAX];
      double want[WMAX], fd[WMAX];
      check_rand_dirf(dxs, WMAX);
      check_rand_dirf(dys, WMAX);
      for (int j = 0; j < WMAX; j++)
        got[j] = NAN;
      switch (W) {
      case 1: VCALL_G(1); break;
      case 2: VCALL_G(2); break;
      case 4: VCALL_G(4); break;
      case 8: VCALL_G(8); break;
      }
      for (int j = 0; j < W; j++) {
        float v[2] = {dxs[j], dys[j]};
        want[j] = g_dir(x, y, dxs[j], dys[j]);
        fd[j] = fddirf(g_v, pt, v, 2);
        sc[j] = SCALAR_G(j);
      }
      double scd[WMAX];
      for (int j = 0; j < W; j++)
        scd[j] = sc[j];
      check_at("g width %d point %d", W, p);
      check_close_arrf("lanes vs scalar fwddiff", got, scd, W, TOL_AD_F);
      check_close_arrf("lanes vs analytic", got, want, W, TOL_AD_F);
      check_close_arrf("lanes vs FD", got, fd, W, TOL_FD_F);

      float xa[NS], dX[WMAX][NS];
      for (int i = 0; i < NS; i++)
        xa[i] = (float)(0.8 * sin(1.9 * i + p) + 0.1);
      for (int j = 0; j < WMAX; j++) {
        check_rand_dirf(dX[j], NS);
        got[j] = NAN;
      }
      switch (W) {
      case 1: VCALL_S(1); break;
      case 2: VCALL_S(2); break;
      case 4: VCALL_S(4); break;
      case 8: VCALL_S(8); break;
      }
      for (int j = 0; j < W; j++) {
        want[j] = s_dir(xa, dX[j], NS);
        fd[j] = fddirf(s_v, xa, dX[j], NS);
        scd[j] = SCALAR_S(j);
      }
      check_at("s width %d point %d", W, p);
      check_close_arrf("lanes vs scalar fwddiff", got, scd, W, TOL_AD_F);
      check_close_arrf("lanes vs analytic", got, want, W, TOL_AD_F);
      check_close_arrf("lanes vs FD", got, fd, W, TOL_FD_F);
    }
  return check_report();
}
