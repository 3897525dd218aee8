/* vec_fwd_mem.c: vector forward mode with pointer parameters and loops.
 * With `enzyme_width, N` each duplicated pointer is followed by N tangent
 * pointers; the N tangent memories receive the N output tangents. Widths
 * 1, 2, 4, 8, each lane checked against a separate scalar __enzyme_fwddiff
 * call, the analytic JVP and FD; n = 7 (an int, const).
 *   wsum(x, w, n) = sum_i w_i sin(x_i) + x_i x_(i+1 mod n)   (returns N
 *                   tangents as a struct); x, w both dup, and w const
 *   mapf(x, y, n): y_i = x_i x_(i+1 mod n) + cos(x_i)        (void; y's N
 *                   tangent arrays receive J v_j, old contents overwritten)
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "enzyme.h"
#include "check.h"

typedef struct { double d[1]; } tan1;
typedef struct { double d[2]; } tan2;
typedef struct { double d[4]; } tan4;
typedef struct { double d[8]; } tan8;
tan1 __enzyme_fwddiff_w1(void *, ...);
tan2 __enzyme_fwddiff_w2(void *, ...);
tan4 __enzyme_fwddiff_w4(void *, ...);
tan8 __enzyme_fwddiff_w8(void *, ...);
void __enzyme_fwddiff_v(void *, ...);
void __enzyme_fwddiff_vw(void *, ...);

#define L1(a) (a)[0]
#define L2(a) (a)[0], (a)[1]
#define L4(a) L2(a), (a)[2], (a)[3]
#define L8(a) L4(a), (a)[4], (a)[5], (a)[6], (a)[7]

static double wsum(double *x, double *w, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += w[i] * sin(x[i]) + x[i] * x[(i + 1) % n];
  return s;
}
static void mapf(double *x, double *y, int n) {
  for (int i = 0; i < n; i++)
    y[i] = x[i] * x[(i + 1) % n] + cos(x[i]);
}

#define NN 7
#define WMAX 8

static double wsum_dir(const double *x, const double *dx, const double *w,
                       const double *dw, int n) {
  double t = 0.0;
  for (int i = 0; i < n; i++) {
    int i1 = (i + 1) % n;
    t += (dw ? dw[i] * sin(x[i]) : 0.0) + w[i] * cos(x[i]) * dx[i] +
         dx[i] * x[i1] + x[i] * dx[i1];
  }
  return t;
}
static void mapf_jvp(const double *x, const double *dx, double *dy, int n) {
  for (int i = 0; i < n; i++) {
    int i1 = (i + 1) % n;
    dy[i] = dx[i] * x[i1] + x[i] * dx[i1] - sin(x[i]) * dx[i];
  }
}
/* FD on z = (x, w) */
static double wsum_z(double *z) { return wsum(z, z + NN, NN); }
static void mapf_xy(double *x, double *y) { mapf(x, y, NN); }

#ifdef NO_AD
#define VCALL_WSUM(W)                                                          \
  for (int j = 0; j < W; j++) got[j] = wsum_dir(x, dX[j], w, dW[j], n)
#define VCALL_WSUMC(W)                                                         \
  for (int j = 0; j < W; j++) got[j] = wsum_dir(x, dX[j], w, 0, n)
#define VCALL_MAPF(W)                                                          \
  do {                                                                         \
    for (int j = 0; j < W; j++) mapf_jvp(x, dX[j], dY[j], n);                  \
    mapf(x, y, n);                                                             \
  } while (0)
#define SCALAR_WSUM(j) wsum_dir(x, dX[j], w, dW[j], n)
#define SCALAR_MAPF(j) (mapf_jvp(x, dX[j], sdy, n), mapf(x, y2, n))
#else
#define VCALL_WSUM(W)                                                          \
  do {                                                                         \
    tan##W r_ = __enzyme_fwddiff_w##W((void *)wsum, enzyme_width, W, x,       \
                                      L##W(dX), w, L##W(dW), n);              \
    for (int j = 0; j < W; j++)                                                \
      got[j] = r_.d[j];                                                        \
  } while (0)
#define VCALL_WSUMC(W)                                                         \
  do {                                                                         \
    tan##W r_ = __enzyme_fwddiff_w##W((void *)wsum, enzyme_width, W,          \
                                      enzyme_dup, x, L##W(dX), enzyme_const,  \
                                      w, n);                                  \
    for (int j = 0; j < W; j++)                                                \
      got[j] = r_.d[j];                                                        \
  } while (0)
#define VCALL_MAPF(W)                                                          \
  __enzyme_fwddiff_vw((void *)mapf, enzyme_width, W, x, L##W(dX), y,          \
                      L##W(dY), n)
#define SCALAR_WSUM(j) __enzyme_fwddiff((void *)wsum, x, dX[j], w, dW[j], n)
#define SCALAR_MAPF(j)                                                         \
  __enzyme_fwddiff_v((void *)mapf, enzyme_dup, x, dX[j], enzyme_dup, y2, sdy, n)
#endif

int main(void) {
  const int widths[4] = {1, 2, 4, 8};
  const int n = NN;
  check_seed(1234);
  for (int p = 0; p < 2; p++)
    for (int wi = 0; wi < 4; wi++) {
      int W = widths[wi];
      double x[NN], w[NN], z[2 * NN], dX[WMAX][NN], dW[WMAX][NN], dX0[WMAX][NN];
      double got[WMAX], want[WMAX], sc[WMAX], fd[WMAX];
      for (int i = 0; i < n; i++) {
        x[i] = 0.9 * sin(1.3 * i + 0.7 * p) + 0.2;
        w[i] = 0.5 + 0.4 * cos(0.8 * i - p);
        z[i] = x[i];
        z[NN + i] = w[i];
      }
      for (int j = 0; j < WMAX; j++) {
        check_rand_dir(dX[j], NN);
        check_rand_dir(dW[j], NN);
        got[j] = NAN;
      }
      memcpy(dX0, dX, sizeof dX);

      switch (W) {
      case 1: VCALL_WSUM(1); break;
      case 2: VCALL_WSUM(2); break;
      case 4: VCALL_WSUM(4); break;
      case 8: VCALL_WSUM(8); break;
      }
      for (int j = 0; j < W; j++) {
        double v[2 * NN];
        memcpy(v, dX[j], sizeof(double) * NN);
        memcpy(v + NN, dW[j], sizeof(double) * NN);
        want[j] = wsum_dir(x, dX[j], w, dW[j], n);
        fd[j] = fddir(wsum_z, z, v, 2 * NN);
        sc[j] = SCALAR_WSUM(j);
      }
      check_at("wsum width %d point %d", W, p);
      check_close_arr("lanes vs scalar fwddiff", got, sc, W, TOL_AD);
      check_close_arr("lanes vs analytic", got, want, W, TOL_AD);
      check_close_arr("lanes vs FD", got, fd, W, TOL_FD);
      check_close_arr("dX unchanged", &dX[0][0], &dX0[0][0], WMAX * NN, 0.0);

      for (int j = 0; j < WMAX; j++)
        got[j] = NAN;
      switch (W) {
      case 1: VCALL_WSUMC(1); break;
      case 2: VCALL_WSUMC(2); break;
      case 4: VCALL_WSUMC(4); break;
      case 8: VCALL_WSUMC(8); break;
      }
      for (int j = 0; j < W; j++)
        want[j] = wsum_dir(x, dX[j], w, 0, n);
      check_at("wsum (w const) width %d point %d", W, p);
      check_close_arr("lanes vs analytic", got, want, W, TOL_AD);

      double y[NN], y2[NN], dY[WMAX][NN], sdy[NN], ref[NN], fdy[NN], yw[NN];
      for (int i = 0; i < n; i++)
        y[i] = y2[i] = 0.0;
      for (int j = 0; j < WMAX; j++)
        for (int i = 0; i < n; i++)
          dY[j][i] = 100.0 + j;
      switch (W) {
      case 1: VCALL_MAPF(1); break;
      case 2: VCALL_MAPF(2); break;
      case 4: VCALL_MAPF(4); break;
      case 8: VCALL_MAPF(8); break;
      }
      check_at("mapf width %d point %d", W, p);
      mapf(x, yw, n);
      check_close_arr("primal y", y, yw, n, TOL_AD);
      for (int j = 0; j < W; j++) {
        check_at("mapf width %d point %d lane %d", W, p, j);
        mapf_jvp(x, dX[j], ref, n);
        fdjvp(mapf_xy, x, n, dX[j], n, fdy);
        for (int i = 0; i < n; i++)
          sdy[i] = -1.0;
        SCALAR_MAPF(j);
        check_close_arr("dY lane vs scalar fwddiff", dY[j], sdy, n, TOL_AD);
        check_close_arr("dY lane vs analytic", dY[j], ref, n, TOL_AD);
        check_close_arr("dY lane vs FD", dY[j], fdy, n, TOL_FD);
      }
      /* lanes past the width are not touched */
      for (int j = W; j < WMAX; j++)
        for (int i = 0; i < n; i++)
          if (dY[j][i] != 100.0 + j) {
            check_at("mapf width %d point %d", W, p);
            check_close_i("dY past the width untouched", j, dY[j][i], 100.0 + j, 0.0);
          }
    }
  return check_report();
}
