/* scratch_forwarding.c: scratch arrays filled in one loop and read back,
 * at the same index, in later loops of the same iteration (ADBench's GMM:
 * xc[k] = x[k] - mu[k], then z[k] = diag[k] * xc[k] and the triangular
 * z[row] += L[li++] * xc[col]). enz-rs reads such a load as the expression
 * stored, recomputed where it is read (preprocess/scratch_forwarding.rs),
 * so the gradient caches nothing of xc; where that would be wrong it must
 * leave the load alone:
 *   gmm_like   forwarded (xc into both later loops);
 *   written    the scratch array written between the loops (t[1] *= 3);
 *   moved      what the expression read written between the loops
 *              (a[0] overwritten after u[j] = a[j] + 1);
 *   shifted    read back at another index (t[n-1-j]) and over fewer
 *              iterations (j < m).
 * Every derivative (reverse and forward mode) is checked against a
 * hand-written one and central differences; the primal values too. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);
double __enzyme_fwddiff_d(void *, ...);

#define NP 5
#define D 4
#define NL (D * (D - 1) / 2)

__attribute__((noinline)) double gmm_like(const double *x, const double *mu, const double *L,
                                          const double *diag, int n, int d) {
  double *xc = malloc(sizeof(double) * d), *z = malloc(sizeof(double) * d), s = 0;
  for (int p = 0; p < n; p++) {
    for (int k = 0; k < d; k++)
      xc[k] = x[p * d + k] - mu[k];
    for (int k = 0; k < d; k++)
      z[k] = diag[k] * xc[k];
    int li = 0;
    for (int col = 0; col < d; col++)
      for (int row = col + 1; row < d; row++)
        z[row] += L[li++] * xc[col];
    for (int k = 0; k < d; k++)
      s += z[k] * z[k];
  }
  free(xc);
  free(z);
  return s;
}

/* The hand-written reverse sweep of gmm_like (d = D, n = NP). */
static void gmm_like_grad(const double *x, const double *mu, const double *L, const double *diag,
                          double *gmu, double *gL, double *gdiag) {
  memset(gmu, 0, sizeof(double) * D);
  memset(gL, 0, sizeof(double) * NL);
  memset(gdiag, 0, sizeof(double) * D);
  for (int p = 0; p < NP; p++) {
    double xc[D], z[D], zb[D], xcb[D];
    for (int k = 0; k < D; k++)
      xc[k] = x[p * D + k] - mu[k], z[k] = diag[k] * xc[k];
    int li = 0;
    for (int col = 0; col < D; col++)
      for (int row = col + 1; row < D; row++)
        z[row] += L[li++] * xc[col];
    for (int k = 0; k < D; k++)
      zb[k] = 2 * z[k], xcb[k] = diag[k] * zb[k], gdiag[k] += zb[k] * xc[k];
    li = 0;
    for (int col = 0; col < D; col++)
      for (int row = col + 1; row < D; row++, li++)
        gL[li] += zb[row] * xc[col], xcb[col] += L[li] * zb[row];
    for (int k = 0; k < D; k++)
      gmu[k] -= xcb[k];
  }
}

__attribute__((noinline)) double written(const double *a, int n) {
  double *t = malloc(sizeof(double) * n), s = 0;
  for (int j = 0; j < n; j++)
    t[j] = a[j] * a[j];
  t[1] *= 3.0;
  for (int j = 0; j < n; j++)
    s += t[j] * (j + 1);
  free(t);
  return s;
}

__attribute__((noinline)) double moved(double *a, int n) {
  double *u = malloc(sizeof(double) * n), s = 0;
  for (int j = 0; j < n; j++)
    u[j] = a[j] + 1.0;
  a[0] = 2.0 * a[0] * a[0];
  for (int j = 0; j < n; j++)
    s += u[j] * u[j] * (j + 1);
  s += a[0];
  free(u);
  return s;
}

__attribute__((noinline)) double shifted(const double *a, int n, int m) {
  double *t = malloc(sizeof(double) * n), s = 0;
  for (int j = 0; j < n; j++)
    t[j] = a[j] * a[j];
  for (int j = 0; j < n; j++)
    s += t[n - 1 - j] * (j + 1);
  for (int j = 0; j < m; j++)
    s += t[j] * t[j];
  free(t);
  return s;
}

/* Primal wrappers of one array argument, for the finite differences. */
static double X[NP * D], MU[D], LL[NL], DIAG[D];
static double f_mu(const double *v) { return gmm_like(X, v, LL, DIAG, NP, D); }
static double f_l(const double *v) { return gmm_like(X, MU, v, DIAG, NP, D); }
static double f_diag(const double *v) { return gmm_like(X, MU, LL, v, NP, D); }
#define N 6
static double f_written(const double *v) { return written(v, N); }
static double f_moved(const double *v) {
  double c[N];
  memcpy(c, v, sizeof c);
  return moved(c, N);
}
static double f_shifted(const double *v) { return shifted(v, N, N - 2); }

int main(void) {
  for (int i = 0; i < NP * D; i++)
    X[i] = sin(1.3 * i + 0.2);
  for (int k = 0; k < D; k++)
    MU[k] = 0.1 * k - 0.15, DIAG[k] = 1.0 + 0.2 * k;
  for (int i = 0; i < NL; i++)
    LL[i] = 0.3 * cos(0.7 * i);

  /* gmm_like, reverse and forward mode */
  double gmu[D] = {0}, gL[NL] = {0}, gdiag[D] = {0};
  double hmu[D], hL[NL], hdiag[D];
  __enzyme_autodiff_v((void *)gmm_like, enzyme_const, X, enzyme_dup, MU, gmu, enzyme_dup, LL, gL,
                      enzyme_dup, DIAG, gdiag, enzyme_const, NP, enzyme_const, D);
  gmm_like_grad(X, MU, LL, DIAG, hmu, hL, hdiag);
  check_at("gmm_like reverse");
  for (int k = 0; k < D; k++) {
    check_close_i("dmu vs hand", k, gmu[k], hmu[k], TOL_AD);
    check_close_i("dmu vs FD", k, gmu[k], fdn(f_mu, MU, D, k), TOL_FD);
    check_close_i("ddiag vs hand", k, gdiag[k], hdiag[k], TOL_AD);
    check_close_i("ddiag vs FD", k, gdiag[k], fdn(f_diag, DIAG, D, k), TOL_FD);
  }
  for (int i = 0; i < NL; i++) {
    check_close_i("dL vs hand", i, gL[i], hL[i], TOL_AD);
    check_close_i("dL vs FD", i, gL[i], fdn(f_l, LL, NL, i), TOL_FD);
  }
  check_at("gmm_like forward");
  for (int k = 0; k < D; k++) {
    double tmu[D] = {0};
    tmu[k] = 1.0;
    double dt = __enzyme_fwddiff_d((void *)gmm_like, enzyme_const, X, enzyme_dup, MU, tmu,
                                   enzyme_const, LL, enzyme_const, DIAG, enzyme_const, NP,
                                   enzyme_const, D);
    check_close_i("tangent along mu_k vs hand", k, dt, hmu[k], TOL_AD);
  }
  for (int i = 0; i < NL; i++) {
    double tl[NL] = {0};
    tl[i] = 1.0;
    double dt = __enzyme_fwddiff_d((void *)gmm_like, enzyme_const, X, enzyme_const, MU,
                                   enzyme_dup, LL, tl, enzyme_const, DIAG, enzyme_const, NP,
                                   enzyme_const, D);
    check_close_i("tangent along L_i vs hand", i, dt, hL[i], TOL_AD);
  }

  /* the loads that must stay loads */
  double a[N], ga[N];
  for (int j = 0; j < N; j++)
    a[j] = 0.4 + 0.3 * j - 0.05 * j * j;
  double want_written = 0, want_shifted = 0;
  for (int j = 0; j < N; j++)
    want_written += a[j] * a[j] * (j + 1) * (j == 1 ? 3 : 1);
  for (int j = 0; j < N; j++)
    want_shifted += a[N - 1 - j] * a[N - 1 - j] * (j + 1);
  for (int j = 0; j < N - 2; j++)
    want_shifted += pow(a[j], 4);
  double want_moved = 2 * a[0] * a[0];
  for (int j = 0; j < N; j++)
    want_moved += (a[j] + 1) * (a[j] + 1) * (j + 1);
  check_at("primal values");
  check_close("written", written(a, N), want_written, TOL_AD);
  check_close("shifted", shifted(a, N, N - 2), want_shifted, TOL_AD);
  check_close("moved", f_moved(a), want_moved, TOL_AD);

  check_at("written");
  memset(ga, 0, sizeof ga);
  __enzyme_autodiff_v((void *)written, enzyme_dup, a, ga, enzyme_const, N);
  for (int j = 0; j < N; j++) {
    check_close_i("da vs analytic", j, ga[j], 2 * a[j] * (j + 1) * (j == 1 ? 3 : 1), TOL_AD);
    check_close_i("da vs FD", j, ga[j], fdn(f_written, a, N, j), TOL_FD);
  }
  check_at("moved");
  double c[N];
  memcpy(c, a, sizeof c);
  memset(ga, 0, sizeof ga);
  __enzyme_autodiff_v((void *)moved, enzyme_dup, c, ga, enzyme_const, N);
  check_close("a[0] after", c[0], 2 * a[0] * a[0], TOL_AD);
  for (int j = 0; j < N; j++) {
    double want = 2 * (a[j] + 1) * (j + 1) + (j == 0 ? 4 * a[0] : 0);
    check_close_i("da vs analytic", j, ga[j], want, TOL_AD);
    check_close_i("da vs FD", j, ga[j], fdn(f_moved, a, N, j), TOL_FD);
  }
  check_at("shifted");
  memset(ga, 0, sizeof ga);
  __enzyme_autodiff_v((void *)shifted, enzyme_dup, a, ga, enzyme_const, N, enzyme_const, N - 2);
  for (int j = 0; j < N; j++) {
    double want = 2 * a[j] * (N - j) + (j < N - 2 ? 4 * pow(a[j], 3) : 0);
    check_close_i("da vs analytic", j, ga[j], want, TOL_AD);
    check_close_i("da vs FD", j, ga[j], fdn(f_shifted, a, N, j), TOL_FD);
  }
  return check_report();
}
