// loop_invariant_inner.c: values that do not change inside an inner loop
// are cached once per iteration of the loop where they change. A
// triangular product through scratch vectors the point loop overwrites,
// `z[row] += L[li++] * xc[col]` for row > col: xc[col] is the same in every
// row iteration (the row loop writes only z, a different allocation), so
// it is kept once per column; a second nest reads a value invariant in
// every loop (the scale, loaded inside both loops from memory no loop
// writes), kept once. The triangular noinline helper is inlined by enz-rs
// after clang ran, so at every -O level the load stays inside the row loop
// of the clone differentiated.
//
// Checked: every entry of dL, dmu and dscale against a hand-written
// reverse sweep and against central differences.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "enzyme.h"
#include "check.h"

#define NP 4
#define D 6
#define NL (D * (D - 1) / 2)

__attribute__((noinline)) static void lower_times(const double *L, const double *x, double *out,
                                                  const double *scale, int d) {
  int li = 0;
  for (int col = 0; col < d; col++)
    for (int row = col + 1; row < d; row++)
      out[row] += L[li++] * x[col] * scale[0];
}

double trisq(const double *x, const double *L, const double *mu, const double *scale, int n,
             int d) {
  double *xc = malloc(sizeof(double) * d), *z = malloc(sizeof(double) * d), s = 0;
  for (int p = 0; p < n; p++) {
    for (int k = 0; k < d; k++)
      z[k] = xc[k] = x[p * d + k] - mu[k];
    lower_times(L, xc, z, scale, d);
    for (int k = 0; k < d; k++)
      s += z[k] * z[k];
  }
  free(xc);
  free(z);
  return s;
}

/* The hand-written reverse sweep: z = xc + c (Lstrict xc), c = scale[0],
 * s = sum_p |z|^2: zbar = 2 z; Lbar(row, col) += c zbar[row] xc[col];
 * cbar += zbar[row] L(row, col) xc[col]; xcbar = zbar + c Lstrict^T zbar;
 * mubar = -xcbar. */
static void reverse_sweep(const double *x, const double *L, const double *mu, double c,
                          double *gL, double *gmu, double *gc) {
  double xc[D], z[D], zb[D];
  for (int i = 0; i < NL; i++)
    gL[i] = 0;
  for (int k = 0; k < D; k++)
    gmu[k] = 0;
  *gc = 0;
  for (int p = 0; p < NP; p++) {
    for (int k = 0; k < D; k++)
      z[k] = xc[k] = x[p * D + k] - mu[k];
    int li = 0;
    for (int col = 0; col < D; col++)
      for (int row = col + 1; row < D; row++)
        z[row] += L[li++] * xc[col] * c;
    for (int k = 0; k < D; k++)
      zb[k] = 2 * z[k];
    double xcb[D];
    for (int k = 0; k < D; k++)
      xcb[k] = zb[k];
    li = 0;
    for (int col = 0; col < D; col++)
      for (int row = col + 1; row < D; row++) {
        gL[li] += c * zb[row] * xc[col];
        *gc += zb[row] * L[li] * xc[col];
        xcb[col] += c * L[li] * zb[row];
        li++;
      }
    for (int k = 0; k < D; k++)
      gmu[k] -= xcb[k];
  }
}

static double X[NP * D], Lv[NL], Mu[D], Sc[1];
static double f_all(const double *v) {
  /* v = [L | mu | scale] */
  return trisq(X, v, v + NL, v + NL + D, NP, D);
}

#define NV (NL + D + 1)
/* Central difference of f_all in v[i]. */
static double fd_v(const double *v, int i) {
  double p[NV];
  for (int k = 0; k < NV; k++)
    p[k] = v[k];
  double h = FD_REL * (1.0 + fabs(v[i]));
  p[i] = v[i] + h;
  double up = f_all(p), step = p[i];
  p[i] = v[i] - h;
  step -= p[i];
  return (up - f_all(p)) / step;
}

void __enzyme_autodiff_v(void *, ...);

int main(void) {
  for (int i = 0; i < NP * D; i++)
    X[i] = sin(1.3 * i + 0.2);
  for (int i = 0; i < NL; i++)
    Lv[i] = 0.5 * cos(0.7 * i);
  for (int k = 0; k < D; k++)
    Mu[k] = 0.1 * k - 0.2;
  Sc[0] = 1.3;
  double dL[NL] = {0}, dmu[D] = {0}, dsc[1] = {0};
  double wL[NL], wmu[D], wc;
  reverse_sweep(X, Lv, Mu, Sc[0], wL, wmu, &wc);
#ifdef NO_AD
  for (int i = 0; i < NL; i++)
    dL[i] = wL[i];
  for (int k = 0; k < D; k++)
    dmu[k] = wmu[k];
  dsc[0] = wc;
#else
  __enzyme_autodiff_v((void *)trisq, enzyme_const, X, enzyme_dup, Lv, dL, enzyme_dup, Mu, dmu,
                      enzyme_dup, Sc, dsc, enzyme_const, NP, enzyme_const, D);
#endif
  double v[NV];
  for (int i = 0; i < NL; i++)
    v[i] = Lv[i];
  for (int k = 0; k < D; k++)
    v[NL + k] = Mu[k];
  v[NL + D] = Sc[0];
  for (int i = 0; i < NL; i++) {
    check_close_i("dL vs reverse sweep", i, dL[i], wL[i], TOL_AD);
    check_close_i("dL vs FD", i, dL[i], fd_v(v, i), TOL_FD);
  }
  for (int k = 0; k < D; k++) {
    check_close_i("dmu vs reverse sweep", k, dmu[k], wmu[k], TOL_AD);
    check_close_i("dmu vs FD", k, dmu[k], fd_v(v, NL + k), TOL_FD);
  }
  check_close("dscale vs reverse sweep", dsc[0], wc, TOL_AD);
  check_close("dscale vs FD", dsc[0], fd_v(v, NL + D), TOL_FD);
  return check_report();
}
