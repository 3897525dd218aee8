/* lapack_gauss.h: a Gaussian negative log-likelihood through LAPACK's
 * Cholesky routines, shared by lapack_gauss.c (LAPACKE, row-major, upper
 * triangle, padded leading dimensions) and lapack_gauss_f77.c (the
 * Fortran symbols, column-major, lower triangle). The including file
 * defines A_AT(A, i, j) and X_AT(X, i, r) (its storage, NA1 entries a
 * matrix, NX for X), POTRF(A, uplo) and POTRS(A, uplo, X) (the calls), and
 * UPLO1, UPLO2 (the two triangles); loss (below)
 * builds A = B B^T + N I twice (B: N x N, row-major), X = Y (Y: N x NRHS,
 * y[i * NRHS + r]), factors the first copy in triangle UPLO1 and the
 * second in UPLO2 (?potrf), solves A X = Y with the second (?potrs) and
 * returns
 *   loss = 1/2 sum_r y_r^T A^-1 y_r + sum_i log L_ii
 *        = 1/2 sum_r y_r^T A^-1 y_r + 1/2 log det A,
 * then overwrites its scratch A and X (the reverse must keep copies).
 * Gradient: dy_r = A^-1 y_r (checked against a Cholesky solve by hand);
 * dB against central differences. Reverse (combined and split, the caller
 * overwriting the scratch between the calls), forward mode and vector
 * forward mode (width 2). */
#include <math.h>
#include "enzyme.h" /* before N is defined: its prototypes name parameters N */
#include "check.h"

#define N 3
#define NRHS 2
#define NB (N * N)
#define NY (N * NRHS)

#define NA (2 * NA1)

__attribute__((noinline)) double loss(const double *B, const double *y, double *A, double *X) {
  double *A2 = A + NA1;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      double s = i == j ? N : 0;
      for (int k = 0; k < N; k++)
        s += B[i * N + k] * B[j * N + k];
      A_AT(A, i, j) = s;
      A_AT(A2, i, j) = s;
    }
  for (int i = 0; i < N; i++)
    for (int r = 0; r < NRHS; r++)
      X_AT(X, i, r) = y[i * NRHS + r];
  POTRF(A, UPLO1);
  POTRF(A2, UPLO2);
  POTRS(A2, UPLO2, X);
  double l = 0;
  for (int i = 0; i < N; i++) {
    l += log(A_AT(A, i, i));
    for (int r = 0; r < NRHS; r++)
      l += 0.5 * y[i * NRHS + r] * X_AT(X, i, r);
  }
  /* The scratch is overwritten: the reverse reads copies. */
  for (int k = 0; k < NA; k++)
    A[k] = 7.0;
  for (int k = 0; k < NX; k++)
    X[k] = 7.0;
  return l;
}

typedef struct {
  double d[2];
} gauss_tan2;
gauss_tan2 __enzyme_fwddiff_w2(void *, ...);


#include "lapack_check.h"

/* dy = A^-1 y by hand (column r of Y: y[i * NRHS + r]). */
static void grad_y(const double *B, const double *y, double *gy) {
  double A[N][N], L[N][N] = {{0}};
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      double s = i == j ? N : 0;
      for (int k = 0; k < N; k++)
        s += B[i * N + k] * B[j * N + k];
      A[i][j] = s;
    }
  for (int j = 0; j < N; j++) {
    double s = A[j][j];
    for (int k = 0; k < j; k++)
      s -= L[j][k] * L[j][k];
    L[j][j] = sqrt(s);
    for (int i = j + 1; i < N; i++) {
      double t = A[i][j];
      for (int k = 0; k < j; k++)
        t -= L[i][k] * L[j][k];
      L[i][j] = t / L[j][j];
    }
  }
  for (int r = 0; r < NRHS; r++) {
    double z[N];
    for (int i = 0; i < N; i++) {
      double s = y[i * NRHS + r];
      for (int k = 0; k < i; k++)
        s -= L[i][k] * z[k];
      z[i] = s / L[i][i];
    }
    for (int i = N - 1; i >= 0; i--) {
      double s = z[i];
      for (int k = i + 1; k < N; k++)
        s -= L[k][i] * gy[k * NRHS + r];
      gy[i * NRHS + r] = s / L[i][i];
    }
  }
}


static void run_checks(void) {
  struct lapack_checked c;
  double gy[NY];
  lapack_inputs(&c);
  grad_y(c.B, c.y, gy);
  check_lapack_loss(&c, gy);
  double *B = c.B, *y = c.y, *tB = c.tB, *ty = c.ty, got = c.tangent, A[NA], X[NX];

  /* Vector forward mode: lane 1 along -0.5 times lane 0's direction. */
  double uB[NB], uy[NY], dA2[2 * NA] = {0}, dX2[2 * NX] = {0};
  for (int k = 0; k < NB; k++)
    uB[k] = -0.5 * tB[k];
  for (int k = 0; k < NY; k++)
    uy[k] = -0.5 * ty[k];
  check_at("forward, width 2");
  gauss_tan2 w = __enzyme_fwddiff_w2((void *)loss, enzyme_width, 2, enzyme_dup, B, tB, uB,
                                     enzyme_dup, y, ty, uy, enzyme_dup, A, dA2, dA2 + NA,
                                     enzyme_dup, X, dX2, dX2 + NX);
  check_close("lane 0 = width 1", w.d[0], got, 1e-12);
  check_close("lane 1 = -0.5 width 1", w.d[1], -0.5 * got, 1e-12);
}

int main(void) {
  run_checks();
  return check_report();
}
