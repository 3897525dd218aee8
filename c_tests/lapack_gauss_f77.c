/* lapack_gauss_f77.c: lapack_gauss.h's Gaussian negative log-likelihood
 * through LAPACK's Fortran symbols (dpotrf_, dpotrs_): every argument by
 * pointer, column-major, the lower triangle (A = L L^T), info written. */
// enz-libs: -llapack -lopenblas
// enz-plugin-levels: O2
#define NA (N * N)
#define NX (N * NRHS)
#define A_AT(A, i, j) (A)[(i) + (j) * N]
#define X_AT(X, i, r) (X)[(i) + (r) * N]
#include "lapack_gauss.h"

void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info);
void dpotrs_(const char *uplo, const int *n, const int *nrhs, const double *a, const int *lda,
             double *b, const int *ldb, int *info);

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
  const char lo = 'L';
  const int n = N, nrhs = NRHS;
  int info = 0;
  dpotrf_(&lo, &n, A, &n, &info);
  if (info != 0)
    return NAN;
  dpotrs_(&lo, &n, &nrhs, A, &n, X, &n, &info);
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
