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
#include <string.h>
#include "enzyme.h"
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
void __enzyme_reverse_v(void *, ...);
void *__enzyme_augmentfwd(void *, ...);

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

static double loss_at(const double *B, const double *y) {
  double A[NA], X[NX];
  return loss(B, y, A, X);
}

static double fd_entry(double *B, double *y, double *p) {
  double old = *p, h = FD_REL * (1.0 + fabs(old));
  *p = old + h;
  double fp = loss_at(B, y);
  *p = old - h;
  double fm = loss_at(B, y);
  *p = old;
  return (fp - fm) / (2 * h);
}

int main(void) {
  double B[NB], y[NY];
  for (int k = 0; k < NB; k++)
    B[k] = sin(0.4 + 1.3 * k);
  for (int k = 0; k < NY; k++)
    y[k] = 0.5 - 0.3 * k + 0.1 * k * k;

  double A[NA], X[NX], dA[NA] = {0}, dX[NX] = {0}, dB[NB] = {0}, dy[NY] = {0};
  check_at("reverse");
  __enzyme_autodiff((void *)loss, enzyme_dup, B, dB, enzyme_dup, y, dy, enzyme_dup, A, dA,
                    enzyme_dup, X, dX);
  for (int k = 0; k < NY; k++)
    check_close("dy = central difference", dy[k], fd_entry(B, y, &y[k]), TOL_FD);
  for (int k = 0; k < NB; k++)
    check_close("dB = central difference", dB[k], fd_entry(B, y, &B[k]), TOL_FD);

  double sB[NB] = {0}, sy[NY] = {0};
  memset(dA, 0, sizeof dA);
  memset(dX, 0, sizeof dX);
  check_at("split");
  void *tape = __enzyme_augmentfwd((void *)loss, enzyme_dup, B, sB, enzyme_dup, y, sy,
                                   enzyme_dup, A, dA, enzyme_dup, X, dX);
  for (int k = 0; k < NA; k++)
    A[k] = -3.0;
  for (int k = 0; k < NX; k++)
    X[k] = 5.0;
  __enzyme_reverse_v((void *)loss, enzyme_dup, B, sB, enzyme_dup, y, sy, enzyme_dup, A, dA,
                     enzyme_dup, X, dX, 1.0, tape);
  for (int k = 0; k < NB; k++)
    check_close("split dB = combined", sB[k], dB[k], 1e-12);
  for (int k = 0; k < NY; k++)
    check_close("split dy = combined", sy[k], dy[k], 1e-12);

  double tB[NB], ty[NY], want = 0, h = 1e-6, Bp[NB], Bm[NB], yp[NY], ym[NY];
  for (int k = 0; k < NB; k++) {
    want += dB[k] * (tB[k] = 0.3 - 0.1 * k);
    Bp[k] = B[k] + h * tB[k], Bm[k] = B[k] - h * tB[k];
  }
  for (int k = 0; k < NY; k++) {
    want += dy[k] * (ty[k] = 0.2 + 0.15 * k);
    yp[k] = y[k] + h * ty[k], ym[k] = y[k] - h * ty[k];
  }
  memset(dA, 0, sizeof dA);
  memset(dX, 0, sizeof dX);
  check_at("forward");
  double got = __enzyme_fwddiff((void *)loss, enzyme_dup, B, tB, enzyme_dup, y, ty, enzyme_dup,
                                A, dA, enzyme_dup, X, dX);
  check_close("forward = gradient . direction", got, want, TOL_AD);
  check_close("forward = central difference", got,
              (loss_at(Bp, yp) - loss_at(Bm, ym)) / (2 * h), TOL_FD);
  return check_report();
}
