/* lapack_gauss.c: lapack_gauss.h's Gaussian negative log-likelihood
 * through LAPACKE, row-major: the upper triangle (A = U^T U) for the log
 * determinant, the lower (A = L L^T) for the solve; A with leading
 * dimension N + 1, X (N x NRHS) with NRHS + 1. */
// enz-libs: -llapacke -lopenblas
// enz-plugin-levels: O2
#define LDA (N + 1)
#define LDX (NRHS + 1)
#define NA1 (N * LDA)
#define NX (N * LDX)
#define A_AT(A, i, j) (A)[(i) * LDA + (j)]
#define X_AT(X, i, r) (X)[(i) * LDX + (r)]
#define LAPACK_ROW_MAJOR 101
#define UPLO1 'U'
#define UPLO2 'L'
#define POTRF(A, uplo) LAPACKE_dpotrf(LAPACK_ROW_MAJOR, uplo, N, A, LDA)
#define POTRS(A, uplo, X) LAPACKE_dpotrs(LAPACK_ROW_MAJOR, uplo, N, NRHS, A, LDA, X, LDX)

int LAPACKE_dpotrf(int layout, char uplo, int n, double *a, int lda);
int LAPACKE_dpotrs(int layout, char uplo, int n, int nrhs, const double *a, int lda, double *b,
                   int ldb);

#include "lapack_gauss.h"
