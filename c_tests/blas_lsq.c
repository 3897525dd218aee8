/* blas_lsq.c: a least-squares loss through CBLAS (blas_lsq.h says what it
 * computes and its gradient): a column-major cblas_dgemm with a transpose,
 * alpha/beta != 1 and padded leading dimensions; a row-major cblas_dgemv
 * (transposed, x at stride 2, beta != 0) after cblas_dcopy; cblas_daxpy;
 * cblas_ddot (also at stride R + 1) and cblas_dnrm2 (stride 2); a row-major
 * cblas_dgemm (transposed) whose two operands are the same array. Reverse
 * (combined and split, the scratch overwritten after its last read) and
 * forward mode against the analytic gradient and central differences. */
// enz-libs: -lopenblas
// enz-plugin-levels: O2
#include <cblas.h>
#include "blas_lsq.h"

__attribute__((noinline)) double loss(const double *A, const double *b, const double *U,
                                      const double *V, const double *x, double *G) {
  double y[M], S[R * R];
  for (int k = 0; k < NG; k++)
    G[k] = A[k];
  /* G = 0.5 U^T V + 0.25 G (column-major; V with ld R + 1). */
  cblas_dgemm(CblasColMajor, CblasTrans, CblasNoTrans, M, N, R, 0.5, U, R, V, R + 1, 0.25,
              G, M);
  /* G is N x M row-major (ld M): y = 1.5 (G^T)^T x - 0.5 b, then - b. */
  cblas_dcopy(M, b, 1, y, 1);
  cblas_dgemv(CblasRowMajor, CblasTrans, N, M, 1.5, G, M, x, 2, -0.5, y, 1);
  cblas_daxpy(M, -1.0, b, 1, y, 1);
  /* Um = U read as M x R row-major: S = 0.3 Um^T Um. */
  cblas_dgemm(CblasRowMajor, CblasTrans, CblasNoTrans, R, R, M, 0.3, U, R, U, R, 0.0, S, R);
  double l = 0.5 * cblas_ddot(M, y, 1, y, 1) + 0.1 * cblas_dnrm2(N, x, 2) +
             cblas_ddot(R, S, R + 1, S, R + 1);
  /* The scratch is overwritten: the gemv's adjoint reads a copy. */
  for (int k = 0; k < NG; k++)
    G[k] = 7.0;
  return l;
}

int main(void) { return run_checks(); }
