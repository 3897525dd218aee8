/* blas_lsq.h: the least-squares loss of blas_lsq.c (through CBLAS) and
 * blas_lsq_f77.c (through the Fortran symbols), its hand-written gradient,
 * and the checks both run. The including file defines
 *   double loss(const double *A, const double *b, const double *U,
 *               const double *V, const double *x, double *G);
 * with M x N matrices, rank-R factors, and:
 *   G = 0.25 A + 0.5 U^T V     (dgemm; U stored R x M, ld R; V stored R x N,
 *                               ld R + 1; A, G column-major, ld M; A const)
 *   y = 1.5 G x - 1.5 b        (x: N entries at stride 2; dgemv, daxpy)
 *   S = 0.3 Um^T Um            (Um = U read as M x R: dgemm, U both operands)
 *   loss = 0.5 y.y + 0.1 ||x|| + sum_r S_rr^2   (ddot, dnrm2, ddot stride R+1)
 * The loss overwrites G (scratch, enzyme_dup) after using it, so that the
 * adjoint of the gemv must read a copy of it; in split mode the caller
 * overwrites G between the two calls too.
 * Analytic gradient (L = loss):
 *   dy = y; dG = 1.5 y x^T; dx_j = 1.5 (G^T y)_j + 0.1 x_j / ||x||;
 *   dU[r + i R] = 0.5 sum_j dG_ij V_rj + 1.2 S_rr U[r + i R];
 *   dV[r + j (R+1)] = 0.5 sum_i U[r + i R] dG_ij; padding and odd x: 0. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "enzyme.h"
#include "check.h"

#define M 4
#define N 3
#define R 2
#define NU (R * M)
#define NV ((R + 1) * N)
#define NX (2 * N - 1)
#define NG (M * N)

double loss(const double *A, const double *b, const double *U, const double *V,
            const double *x, double *G);

void __enzyme_augmentfwd_v(void *, ...);
void __enzyme_reverse_v(void *, ...);
void *__enzyme_augmentfwd(void *, ...);

/* The gradient by hand (g* accumulate nothing: they are set). */
static void grad(const double *A, const double *b, const double *U, const double *V,
                 const double *x, double *gU, double *gV, double *gx) {
  double G[NG], y[M], S[R], nx = 0;
  for (int j = 0; j < N; j++)
    for (int i = 0; i < M; i++) {
      double s = 0.25 * A[i + j * M];
      for (int r = 0; r < R; r++)
        s += 0.5 * U[r + i * R] * V[r + j * (R + 1)];
      G[i + j * M] = s;
    }
  for (int i = 0; i < M; i++) {
    double s = 0;
    for (int j = 0; j < N; j++)
      s += G[i + j * M] * x[2 * j];
    y[i] = 1.5 * s - 1.5 * b[i];
  }
  for (int r = 0; r < R; r++) {
    S[r] = 0;
    for (int i = 0; i < M; i++)
      S[r] += 0.3 * U[r + i * R] * U[r + i * R];
  }
  for (int j = 0; j < N; j++)
    nx += x[2 * j] * x[2 * j];
  nx = sqrt(nx);
  memset(gU, 0, sizeof(double) * NU);
  memset(gV, 0, sizeof(double) * NV);
  memset(gx, 0, sizeof(double) * NX);
  for (int j = 0; j < N; j++) {
    double s = 0;
    for (int i = 0; i < M; i++)
      s += G[i + j * M] * y[i];
    gx[2 * j] = 1.5 * s + 0.1 * x[2 * j] / nx;
  }
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      double dG = 1.5 * y[i] * x[2 * j];
      for (int r = 0; r < R; r++) {
        gU[r + i * R] += 0.5 * dG * V[r + j * (R + 1)];
        gV[r + j * (R + 1)] += 0.5 * U[r + i * R] * dG;
      }
    }
  for (int i = 0; i < M; i++)
    for (int r = 0; r < R; r++)
      gU[r + i * R] += 1.2 * S[r] * U[r + i * R];
}

static double A_[NG], b_[M];

/* The loss at (U, V, x) with the fixed A, b; for central differences. */
static double loss_at(const double *U, const double *V, const double *x) {
  double G[NG];
  return loss(A_, b_, U, V, x, G);
}

static double fd(double *U, double *V, double *x, double *p) {
  double h = FD_REL * (1.0 + fabs(*p)), old = *p;
  *p = old + h;
  double fp = loss_at(U, V, x);
  *p = old - h;
  double fm = loss_at(U, V, x);
  *p = old;
  return (fp - fm) / (2 * h);
}

static void check_all(const char *what, double *U, double *V, double *x, const double *gU,
                      const double *gV, const double *gx, const double *aU,
                      const double *aV, const double *ax) {
  char name[64];
  for (int k = 0; k < NU; k++) {
    snprintf(name, sizeof name, "%s dU[%d]", what, k);
    check_close(name, gU[k], aU[k], TOL_AD);
    check_close(name, gU[k], fd(U, V, x, &U[k]), TOL_FD);
  }
  for (int k = 0; k < NV; k++) {
    snprintf(name, sizeof name, "%s dV[%d]", what, k);
    check_close(name, gV[k], aV[k], TOL_AD);
    check_close(name, gV[k], fd(U, V, x, &V[k]), TOL_FD);
  }
  for (int k = 0; k < NX; k++) {
    snprintf(name, sizeof name, "%s dx[%d]", what, k);
    check_close(name, gx[k], ax[k], TOL_AD);
    check_close(name, gx[k], fd(U, V, x, &x[k]), TOL_FD);
  }
}

static void run_checks(void) {
  double U[NU], V[NV], x[NX];
  for (int k = 0; k < NG; k++)
    A_[k] = sin(1.0 + 0.7 * k);
  for (int i = 0; i < M; i++)
    b_[i] = 0.3 * i - 0.4;
  for (int k = 0; k < NU; k++)
    U[k] = cos(0.5 + 0.9 * k);
  for (int k = 0; k < NV; k++)
    V[k] = 0.2 + 0.35 * sin(2.0 * k);
  for (int k = 0; k < NX; k++)
    x[k] = 0.6 - 0.25 * k;
  double aU[NU], aV[NV], ax[NX];
  grad(A_, b_, U, V, x, aU, aV, ax);

  /* Combined reverse mode. */
  double G[NG], dG[NG], dU[NU] = {0}, dV[NV] = {0}, dx[NX] = {0};
  memset(dG, 0, sizeof dG);
  check_at("reverse");
  __enzyme_autodiff((void *)loss, enzyme_const, A_, enzyme_const, b_, enzyme_dup, U, dU,
                    enzyme_dup, V, dV, enzyme_dup, x, dx, enzyme_dup, G, dG);
  check_all("reverse", U, V, x, dU, dV, dx, aU, aV, ax);

  /* Split mode: the caller overwrites the scratch G between the calls. */
  double sU[NU] = {0}, sV[NV] = {0}, sx[NX] = {0};
  memset(dG, 0, sizeof dG);
  check_at("split");
  void *tape = __enzyme_augmentfwd((void *)loss, enzyme_const, A_, enzyme_const, b_,
                                   enzyme_dup, U, sU, enzyme_dup, V, sV, enzyme_dup, x, sx,
                                   enzyme_dup, G, dG);
  for (int k = 0; k < NG; k++)
    G[k] = -3.0;
  __enzyme_reverse_v((void *)loss, enzyme_const, A_, enzyme_const, b_, enzyme_dup, U, sU,
                     enzyme_dup, V, sV, enzyme_dup, x, sx, enzyme_dup, G, dG, 1.0, tape);
  for (int k = 0; k < NU; k++)
    check_close("split dU = combined", sU[k], dU[k], 1e-12);
  for (int k = 0; k < NV; k++)
    check_close("split dV = combined", sV[k], dV[k], 1e-12);
  for (int k = 0; k < NX; k++)
    check_close("split dx = combined", sx[k], dx[k], 1e-12);

  /* Forward mode along a direction, against the gradient's projection and
   * central differences along it. */
  double tU[NU], tV[NV], tx[NX], want = 0;
  for (int k = 0; k < NU; k++)
    want += aU[k] * (tU[k] = 0.3 - 0.1 * k);
  for (int k = 0; k < NV; k++)
    want += aV[k] * (tV[k] = 0.05 * k - 0.2);
  for (int k = 0; k < NX; k++)
    want += ax[k] * (tx[k] = 0.4 + 0.1 * k);
  memset(dG, 0, sizeof dG);
  check_at("forward");
  double got = __enzyme_fwddiff((void *)loss, enzyme_const, A_, enzyme_const, b_, enzyme_dup,
                                U, tU, enzyme_dup, V, tV, enzyme_dup, x, tx, enzyme_dup, G, dG);
  check_close("forward = gradient . direction", got, want, TOL_AD);
  double h = 1e-6, Up[NU], Um[NU], Vp[NV], Vm[NV], xp[NX], xm[NX];
  for (int k = 0; k < NU; k++)
    Up[k] = U[k] + h * tU[k], Um[k] = U[k] - h * tU[k];
  for (int k = 0; k < NV; k++)
    Vp[k] = V[k] + h * tV[k], Vm[k] = V[k] - h * tV[k];
  for (int k = 0; k < NX; k++)
    xp[k] = x[k] + h * tx[k], xm[k] = x[k] - h * tx[k];
  check_close("forward = central difference",
              got, (loss_at(Up, Vp, xp) - loss_at(Um, Vm, xm)) / (2 * h), TOL_FD);
}
