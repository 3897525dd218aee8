/* lapack_gauss_f77.c: lapack_gauss.h's Gaussian negative log-likelihood
 * through LAPACK's Fortran symbols (dpotrf_, dpotrs_): every argument by
 * pointer, column-major, the lower triangle (A = L L^T) for the log
 * determinant, the upper (A = U^T U) for the solve; info written (and
 * read: a failed factorisation returns NaN). */
// enz-libs: -llapack -lopenblas
// enz-plugin-levels: O2
#define NA1 (N * N)
#define NX (N * NRHS)
#define A_AT(A, i, j) (A)[(i) + (j) * N]
#define X_AT(X, i, r) (X)[(i) + (r) * N]
#define UPLO1 'L'
#define UPLO2 'U'

void dpotrf_(const char *uplo, const int *n, double *a, const int *lda, int *info);
void dpotrs_(const char *uplo, const int *n, const int *nrhs, const double *a, const int *lda,
             double *b, const int *ldb, int *info);

static const char lower_ = 'L', upper_ = 'U';
#define UPLO_PTR(uplo) ((uplo) == 'L' ? &lower_ : &upper_)
#define POTRF(A, uplo)                                                                       \
  do {                                                                                       \
    const int n = N;                                                                         \
    int info = 0;                                                                            \
    dpotrf_(UPLO_PTR(uplo), &n, A, &n, &info);                                             \
    if (info != 0)                                                                           \
      return NAN;                                                                            \
  } while (0)
#define POTRS(A, uplo, X)                                                                    \
  do {                                                                                       \
    const int n = N, nrhs = NRHS;                                                            \
    int info = 0;                                                                            \
    dpotrs_(UPLO_PTR(uplo), &n, &nrhs, A, &n, X, &n, &info);                             \
  } while (0)

#include "lapack_gauss.h"
