/* blas_lsq_f77.c: the least-squares loss of blas_lsq.c (blas_lsq.h says
 * what it computes and its gradient) through BLAS's Fortran symbols:
 * every argument by pointer, transposes as characters, column-major:
 * dgemm_ ('T', 'N', padded ld, alpha/beta != 1), dcopy_, dgemv_ (x at
 * stride 2, beta != 0), daxpy_, ddot_ (also at stride R + 1), dnrm2_, and
 * dgemm_ ('t', 'n') with the same array as both operands (S = 0.3 U U^T,
 * U stored R x M). Reverse (combined and split, the scratch overwritten
 * after its last read) and forward mode against the analytic gradient and
 * central differences. */
// enz-libs: -lopenblas
// enz-plugin-levels: O2
#include "blas_lsq.h"

void dgemm_(const char *ta, const char *tb, const int *m, const int *n, const int *k,
            const double *alpha, const double *a, const int *lda, const double *b,
            const int *ldb, const double *beta, double *c, const int *ldc);
void dgemv_(const char *t, const int *m, const int *n, const double *alpha, const double *a,
            const int *lda, const double *x, const int *incx, const double *beta, double *y,
            const int *incy);
void daxpy_(const int *n, const double *alpha, const double *x, const int *incx, double *y,
            const int *incy);
void dcopy_(const int *n, const double *x, const int *incx, double *y, const int *incy);
double ddot_(const int *n, const double *x, const int *incx, const double *y, const int *incy);
double dnrm2_(const int *n, const double *x, const int *incx);
int idamax_(const int *n, const double *x, const int *incx);
void dsymv_(const char *uplo, const int *n, const double *alpha, const double *a, const int *lda,
            const double *x, const int *incx, const double *beta, double *y, const int *incy);
void dtrmv_(const char *uplo, const char *t, const char *diag, const int *n, const double *a,
            const int *lda, double *x, const int *incx);
void dtrsv_(const char *uplo, const char *t, const char *diag, const int *n, const double *a,
            const int *lda, double *x, const int *incx);
void dsymm_(const char *side, const char *uplo, const int *m, const int *n, const double *alpha,
            const double *a, const int *lda, const double *b, const int *ldb, const double *beta,
            double *c, const int *ldc);
void dsyrk_(const char *uplo, const char *t, const int *n, const int *k, const double *alpha,
            const double *a, const int *lda, const double *beta, double *c, const int *ldc);
void dtrmm_(const char *side, const char *uplo, const char *t, const char *diag, const int *m,
            const int *n, const double *alpha, const double *a, const int *lda, double *b,
            const int *ldb);
void dtrsm_(const char *side, const char *uplo, const char *t, const char *diag, const int *m,
            const int *n, const double *alpha, const double *a, const int *lda, double *b,
            const int *ldb);

#include "blas_struct.h"

/* The structured routines, column-major (C with ld SN + 1). */
__attribute__((noinline)) double sloss(const double *A, const double *B, const double *x) {
  const int n = SN, k = SK, one = 1, ldc = SN + 1;
  const double a07 = 0.7, a03 = 0.3, a05 = 0.5, a02 = 0.2, a04 = 0.4, z = 0.0, a11 = 1.1,
               a09 = 0.9;
  double y[SN], C[(SN + 1) * SK], D[SK * SK];
  for (int i = 0; i < SN; i++)
    y[i] = x[i];
  dsymv_("U", &n, &a07, A, &n, x, &one, &a03, y, &one);   /* y = 0.7 S_U x + 0.3 y */
  dtrmv_("L", "T", "N", &n, A, &n, y, &one);              /* y = L^T y */
  dtrsv_("U", "N", "U", &n, A, &n, y, &one);              /* y = U1^-1 y */
  for (int j = 0; j < SK; j++)
    for (int i = 0; i < SN; i++)
      C[i + j * ldc] = B[i + j * SN];
  dsymm_("L", "l", &n, &k, &a05, A, &n, B, &n, &a02, C, &ldc); /* C = 0.5 S_L B + 0.2 C */
  dsyrk_("U", "T", &k, &n, &a04, C, &ldc, &z, D, &k);      /* D_U = 0.4 C^T C */
  dtrmm_("R", "U", "N", "N", &n, &k, &a11, D, &k, C, &ldc); /* C = 1.1 C D_U */
  dtrsm_("L", "L", "T", "N", &n, &k, &a09, A, &n, C, &ldc); /* C = 0.9 L^-T C */
  double l = 0;
  for (int i = 0; i < SN; i++)
    l += y[i] * y[i];
  /* idamax_ (1-based) has no derivative: only the entry it picks does. */
  l += 0.25 * y[idamax_(&n, y, &one) - 1];
  for (int j = 0; j < SK; j++)
    for (int i = 0; i < SN; i++)
      l += C[i + j * ldc] * C[i + j * ldc] * (1.0 + 0.1 * i);
  return l;
}

__attribute__((noinline)) double loss(const double *A, const double *b, const double *U,
                                      const double *V, const double *x, double *G) {
  const int m = M, n = N, r = R, ldv = R + 1, one = 1, two = 2;
  const double half = 0.5, quarter = 0.25, three_halves = 1.5, zero = 0.0, minus_one = -1.0,
               minus_half = -0.5, c03 = 0.3;
  double y[M], S[R * R];
  for (int k = 0; k < NG; k++)
    G[k] = A[k];
  /* G = 0.5 U^T V + 0.25 G. */
  dgemm_("T", "N", &m, &n, &r, &half, U, &r, V, &ldv, &quarter, G, &m);
  /* y = 1.5 G x - 0.5 b, then - b. */
  dcopy_(&m, b, &one, y, &one);
  dgemv_("N", &m, &n, &three_halves, G, &m, x, &two, &minus_half, y, &one);
  daxpy_(&m, &minus_one, b, &one, y, &one);
  /* S = 0.3 U U^T (R x R; U stored R x M, ld R). */
  dgemm_("n", "t", &r, &r, &m, &c03, U, &r, U, &r, &zero, S, &r);
  const int rr = R + 1;
  double l = 0.5 * ddot_(&m, y, &one, y, &one) + 0.1 * dnrm2_(&n, x, &two) +
             ddot_(&r, S, &rr, S, &rr);
  /* The scratch is overwritten: the gemv's adjoint reads a copy. */
  for (int k = 0; k < NG; k++)
    G[k] = 7.0;
  return l;
}

int main(void) {
  run_checks();
  run_struct_checks();
  return check_report();
}
