/* lapack_lu.c: LAPACK's LU routines on a general (non-symmetric) matrix
 * A = B + 0.2 I (B: N x N, row-major, chosen so that getrf pivots):
 *   LAPACKE_dgetrf (row-major, ld N + 1) then LAPACKE_dgetrs ('T': X1 =
 *   A^-T Y), and the Fortran dgesv_ (column-major: X2 = A^-1 Y, A's
 *   factors over its copy), with
 *   loss = sum_i log |U_ii| + 1/2 sum y.X1 + 0.3 sum y.X2
 *        = log |det A| + 1/2 y^T A^-T y + 0.3 y^T A^-1 y;
 * the scratch (both factored copies, X1, X2, ipiv) is overwritten after.
 * Reverse (combined, against central differences; split against combined,
 * the scratch overwritten between the calls) and forward mode (against
 * the gradient and central differences). */
// enz-libs: -llapacke -lopenblas
// enz-plugin-levels: O2
#include <math.h>
#include "enzyme.h" /* before N is defined: its prototypes name parameters N */
#include "check.h"

#define N 3
#define NRHS 2
#define NB (N * N)
#define NY (N * NRHS)
#define LDA (N + 1)
#define LDX (NRHS + 1)
#define NA (N * LDA + N * N)
#define NX (N * LDX + N * NRHS)
#define LAPACK_ROW_MAJOR 101

int LAPACKE_dgetrf(int layout, int m, int n, double *a, int lda, int *ipiv);
int LAPACKE_dgetrs(int layout, char trans, int n, int nrhs, const double *a, int lda,
                   const int *ipiv, double *b, int ldb);
void dgesv_(const int *n, const int *nrhs, double *a, const int *lda, int *ipiv, double *b,
            const int *ldb, int *info);

__attribute__((noinline)) double loss(const double *B, const double *y, double *A, double *X) {
  double *A2 = A + N * LDA, *X2 = X + N * LDX;
  int ipiv[N], ipiv2[N], info = 0;
  const int n = N, nrhs = NRHS;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++) {
      double s = B[i * N + j] + (i == j ? 0.2 : 0);
      A[i * LDA + j] = s;  /* row-major */
      A2[i + j * N] = s;   /* column-major */
    }
  for (int i = 0; i < N; i++)
    for (int r = 0; r < NRHS; r++) {
      X[i * LDX + r] = y[i * NRHS + r];
      X2[i + r * N] = y[i * NRHS + r];
    }
  LAPACKE_dgetrf(LAPACK_ROW_MAJOR, N, N, A, LDA, ipiv);
  LAPACKE_dgetrs(LAPACK_ROW_MAJOR, 'T', N, NRHS, A, LDA, ipiv, X, LDX);
  dgesv_(&n, &nrhs, A2, &n, ipiv2, X2, &n, &info);
  double l = 0;
  for (int i = 0; i < N; i++) {
    l += log(fabs(A[i * LDA + i]));
    for (int r = 0; r < NRHS; r++)
      l += 0.5 * y[i * NRHS + r] * X[i * LDX + r] + 0.3 * y[i * NRHS + r] * X2[i + r * N];
  }
  for (int k = 0; k < NA; k++)
    A[k] = 7.0;
  for (int k = 0; k < NX; k++)
    X[k] = 7.0;
  return l;
}

#include "lapack_check.h"

int main(void) {
  struct lapack_checked c;
  lapack_inputs(&c);
  check_lapack_loss(&c, NULL);
  return check_report();
}
