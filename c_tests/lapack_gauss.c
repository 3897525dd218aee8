/* lapack_gauss.c: lapack_gauss.h's Gaussian negative log-likelihood
 * through LAPACKE: row-major, the upper triangle (A = U^T U), A with
 * leading dimension N + 1, X (N x NRHS) with NRHS + 1. */
// enz-libs: -llapacke -lopenblas
// enz-plugin-levels: O2
#define LDA (N + 1)
#define LDX (NRHS + 1)
#define NA (N * LDA)
#define NX (N * LDX)
#define A_AT(A, i, j) (A)[(i) * LDA + (j)]
#define X_AT(X, i, r) (X)[(i) * LDX + (r)]
#include "lapack_gauss.h"

int LAPACKE_dpotrf(int layout, char uplo, int n, double *a, int lda);
int LAPACKE_dpotrs(int layout, char uplo, int n, int nrhs, const double *a, int lda, double *b,
                   int ldb);
#define LAPACK_ROW_MAJOR 101

__attribute__((noinline)) double loss(const double *B, const double *y, double *A, double *X) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      double s = i == j ? N : 0;
      for (int k = 0; k < N; k++)
        s += B[i * N + k] * B[j * N + k];
      A_AT(A, i, j) = s;
    }
  for (int i = 0; i < N; i++)
    for (int r = 0; r < NRHS; r++)
      X_AT(X, i, r) = y[i * NRHS + r];
  LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'U', N, A, LDA);
  LAPACKE_dpotrs(LAPACK_ROW_MAJOR, 'U', N, NRHS, A, LDA, X, LDX);
  double l = 0;
  for (int i = 0; i < N; i++) {
    l += log(A_AT(A, i, i));
    for (int r = 0; r < NRHS; r++)
      l += 0.5 * y[i * NRHS + r] * X_AT(X, i, r);
  }
  for (int k = 0; k < NA; k++)
    A[k] = 7.0;
  for (int k = 0; k < NX; k++)
    X[k] = 7.0;
  return l;
}
