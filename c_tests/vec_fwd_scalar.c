/* vec_fwd_scalar.c: vector (batched) forward mode over scalar parameters.
 * `enzyme_width, N` come first after the function; each duplicated double
 * parameter is followed by N tangents; the call returns the N tangents of
 * the result as a struct of N doubles (declared per width below). Widths
 * 1, 2, 4, 8 and 16, each lane checked against a separate scalar
 * __enzyme_fwddiff call, the analytic directional derivative and FD.
 *   g(x, y)    = sin(x) exp(y) + x y^2       both duplicated, unmarked
 *   g with x enzyme_const (no tangents follow it)
 *   h(x, n, y) = x^n cos(y)                  n an int: const, no tangents
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include <stdlib.h>
#include "enzyme.h"
#include "check.h"

typedef struct { double d[1]; } tan1;
typedef struct { double d[2]; } tan2;
typedef struct { double d[4]; } tan4;
typedef struct { double d[8]; } tan8;
typedef struct { double d[16]; } tan16;
tan1 __enzyme_fwddiff_w1(void *, ...);
tan2 __enzyme_fwddiff_w2(void *, ...);
tan4 __enzyme_fwddiff_w4(void *, ...);
tan8 __enzyme_fwddiff_w8(void *, ...);
tan16 __enzyme_fwddiff_w16(void *, ...);

/* the lanes of an array as separate arguments */
#define L1(a) (a)[0]
#define L2(a) (a)[0], (a)[1]
#define L4(a) L2(a), (a)[2], (a)[3]
#define L8(a) L4(a), (a)[4], (a)[5], (a)[6], (a)[7]
#define L16(a) L8(a), (a)[8], (a)[9], (a)[10], (a)[11], (a)[12], (a)[13], (a)[14], (a)[15]

static double g(double x, double y) { return sin(x) * exp(y) + x * y * y; }
static double g_v(double *v) { return g(v[0], v[1]); }
static double g_dir(double x, double y, double dx, double dy) {
  return (cos(x) * exp(y) + y * y) * dx + (sin(x) * exp(y) + 2.0 * x * y) * dy;
}

static double h(double x, int n, double y) { return __builtin_powi(x, n) * cos(y); }
static int g_n;
static double h_v(double *v) { return h(v[0], g_n, v[1]); }
static double h_dir(double x, int n, double y, double dx, double dy) {
  return n * __builtin_powi(x, n - 1) * cos(y) * dx - __builtin_powi(x, n) * sin(y) * dy;
}

#define WMAX 16

#ifdef NO_AD
#define VCALL_G(W)                                                             \
  for (int j = 0; j < W; j++) got[j] = g_dir(x, y, dxs[j], dys[j])
#define VCALL_GC(W)                                                            \
  for (int j = 0; j < W; j++) got[j] = g_dir(x, y, 0.0, dys[j])
#define VCALL_H(W)                                                             \
  for (int j = 0; j < W; j++) got[j] = h_dir(x, n, y, dxs[j], dys[j])
#else
#define VCALL_G(W)                                                             \
  do {                                                                         \
    tan##W r_ = __enzyme_fwddiff_w##W((void *)g, enzyme_width, W, x,          \
                                      L##W(dxs), y, L##W(dys));               \
    for (int j = 0; j < W; j++)                                                \
      got[j] = r_.d[j];                                                        \
  } while (0)
#define VCALL_GC(W)                                                            \
  do {                                                                         \
    tan##W r_ = __enzyme_fwddiff_w##W((void *)g, enzyme_width, W,             \
                                      enzyme_const, x, enzyme_dup, y,         \
                                      L##W(dys));                             \
    for (int j = 0; j < W; j++)                                                \
      got[j] = r_.d[j];                                                        \
  } while (0)
#define VCALL_H(W)                                                             \
  do {                                                                         \
    tan##W r_ = __enzyme_fwddiff_w##W((void *)h, enzyme_width, W, x,          \
                                      L##W(dxs), n, y, L##W(dys));            \
    for (int j = 0; j < W; j++)                                                \
      got[j] = r_.d[j];                                                        \
  } while (0)
#endif

#ifdef NO_AD
#define SCALAR_G(x, dx, y, dy) g_dir(x, y, dx, dy)
#else
#define SCALAR_G(x, dx, y, dy) __enzyme_fwddiff((void *)g, x, dx, y, dy)
#endif

int main(void) {
  const double pts[3][2] = {{0.4, -0.3}, {-1.2, 0.8}, {2.1, 0.25}};
  const int widths[5] = {1, 2, 4, 8, 16};
  check_seed(808);
  for (int p = 0; p < 3; p++)
    for (int wi = 0; wi < 5; wi++) {
      int W = widths[wi];
      double x = pts[p][0], y = pts[p][1], pt[2] = {x, y};
      double dxs[WMAX], dys[WMAX], got[WMAX], want[WMAX], fd[WMAX], sc[WMAX];
      check_rand_dir(dxs, WMAX);
      check_rand_dir(dys, WMAX);
      dxs[0] = 1.0; /* lane 0 of x: the partial derivative */
      dys[0] = 0.0;
      for (int j = 0; j < WMAX; j++)
        got[j] = NAN;

      /* g, both duplicated */
      switch (W) {
      case 1: VCALL_G(1); break;
      case 2: VCALL_G(2); break;
      case 4: VCALL_G(4); break;
      case 8: VCALL_G(8); break;
      case 16: VCALL_G(16); break;
      }
      for (int j = 0; j < W; j++) {
        double v[2] = {dxs[j], dys[j]};
        want[j] = g_dir(x, y, dxs[j], dys[j]);
        fd[j] = fddir(g_v, pt, v, 2);
        sc[j] = SCALAR_G(x, dxs[j], y, dys[j]);
      }
      check_at("g width %d point %d", W, p);
      check_close_arr("lanes vs scalar fwddiff", got, sc, W, TOL_AD);
      check_close_arr("lanes vs analytic", got, want, W, TOL_AD);
      check_close_arr("lanes vs FD", got, fd, W, TOL_FD);

      /* g, x const */
      for (int j = 0; j < WMAX; j++)
        got[j] = NAN;
      switch (W) {
      case 1: VCALL_GC(1); break;
      case 2: VCALL_GC(2); break;
      case 4: VCALL_GC(4); break;
      case 8: VCALL_GC(8); break;
      case 16: VCALL_GC(16); break;
      }
      for (int j = 0; j < W; j++)
        want[j] = g_dir(x, y, 0.0, dys[j]);
      check_at("g (x const) width %d point %d", W, p);
      check_close_arr("lanes vs analytic", got, want, W, TOL_AD);

      /* h, an int parameter between the doubles */
      int n = 3 - p;
      g_n = n;
      double hx = x + 0.1;
      for (int j = 0; j < WMAX; j++)
        got[j] = NAN;
      {
        double x = hx;
        switch (W) {
        case 1: VCALL_H(1); break;
        case 2: VCALL_H(2); break;
        case 4: VCALL_H(4); break;
        case 8: VCALL_H(8); break;
        case 16: VCALL_H(16); break;
        }
      }
      double hpt[2] = {hx, y};
      for (int j = 0; j < W; j++) {
        double v[2] = {dxs[j], dys[j]};
        want[j] = h_dir(hx, n, y, dxs[j], dys[j]);
        fd[j] = fddir(h_v, hpt, v, 2);
      }
      check_at("h n=%d width %d point %d", n, W, p);
      check_close_arr("lanes vs analytic", got, want, W, TOL_AD);
      check_close_arr("lanes vs FD", got, fd, W, TOL_FD);
    }
  return check_report();
}
