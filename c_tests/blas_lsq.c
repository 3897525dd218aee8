/* blas_lsq.c: a least-squares loss through CBLAS (blas_lsq.h says what it
 * computes and its gradient): a column-major cblas_dgemm with a transpose,
 * alpha/beta != 1 and padded leading dimensions; a row-major cblas_dgemv
 * (transposed, x at stride 2, beta != 0) after cblas_dcopy; cblas_daxpy;
 * cblas_ddot (also at stride R + 1) and cblas_dnrm2 (stride 2); a row-major
 * cblas_dgemm (transposed) whose two operands are the same array. Reverse
 * (combined and split, the scratch overwritten after its last read) and
 * forward mode against the analytic gradient and central differences.
 * blas_struct.h's loss through the symmetric and triangular routines
 * (row-major), and a reversed copy (negative increments).
 * Single precision, lossf: G2 = P (scopy), G2 += 0.5 z x^T (row-major
 * sger), G2 *= 2 (sscal), g = G2 x (sgemv), swapped into w (sswap, y
 * then holds z), lossf = w.w + ||y|| + 0.5 sum |x_j| (sdot, snrm2, sasum):
 * |2 P x + (x.x) z|^2 + ||z|| + 0.5 |x|_1; dP = 4 g x^T,
 * dx = 2 G2^T g + 2 (z.g) x + 0.5 sign(x), dz = 2 (x.x) g + z/||z||.
 */
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

#define FN (M * N)
float __enzyme_fwddiff_f32(void *, ...);

__attribute__((noinline)) float lossf(const float *P, const float *x, const float *z,
                                      float *G2) {
  float y[M], w[M];
  cblas_scopy(FN, P, 1, G2, 1);
  cblas_sger(CblasRowMajor, M, N, 0.5f, z, 1, x, 1, G2, N);
  cblas_sscal(FN, 2.0f, G2, 1);
  cblas_scopy(M, z, 1, w, 1);
  cblas_sgemv(CblasRowMajor, CblasNoTrans, M, N, 1.0f, G2, N, x, 1, 0.0f, y, 1);
  cblas_sswap(M, y, 1, w, 1);
  return cblas_sdot(M, w, 1, w, 1) + cblas_snrm2(M, y, 1) + 0.5f * cblas_sasum(N, x, 1);
}

static float Pf_[FN], xf_[N], zf_[M];

static double lossf_at(const float *P, const float *x, const float *z) {
  float G2[FN];
  return lossf(P, x, z, G2);
}

static double fdf(float *p) {
  float old = *p, h = (float)(FD_REL_F * (1.0 + fabs(old)));
  *p = old + h;
  double fp = lossf_at(Pf_, xf_, zf_);
  *p = old - h;
  double fm = lossf_at(Pf_, xf_, zf_);
  *p = old;
  return (fp - fm) / (2.0 * h);
}

static void run_float_checks(void) {
  for (int k = 0; k < FN; k++)
    Pf_[k] = (float)sin(0.3 + 0.8 * k);
  for (int j = 0; j < N; j++)
    xf_[j] = 0.5f - 0.3f * j;
  for (int i = 0; i < M; i++)
    zf_[i] = 0.2f + 0.25f * i;
  /* The gradient by hand, in double. */
  double G2[FN], g[M], xx = 0, zg = 0, nz = 0, aP[FN], ax[N], az[M];
  for (int j = 0; j < N; j++)
    xx += (double)xf_[j] * xf_[j];
  for (int i = 0; i < M; i++) {
    g[i] = 0;
    for (int j = 0; j < N; j++) {
      G2[i * N + j] = 2.0 * Pf_[i * N + j] + (double)zf_[i] * xf_[j];
      g[i] += G2[i * N + j] * xf_[j];
    }
    nz += (double)zf_[i] * zf_[i];
  }
  nz = sqrt(nz);
  for (int i = 0; i < M; i++)
    zg += zf_[i] * g[i];
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++)
      aP[i * N + j] = 4.0 * g[i] * xf_[j];
  for (int j = 0; j < N; j++) {
    ax[j] = 2.0 * zg * xf_[j] + 0.5 * (xf_[j] > 0 ? 1 : -1);
    for (int i = 0; i < M; i++)
      ax[j] += 2.0 * G2[i * N + j] * g[i];
  }
  for (int i = 0; i < M; i++)
    az[i] = 2.0 * xx * g[i] + zf_[i] / nz;

  float G[FN], dG[FN] = {0}, dP[FN] = {0}, dx[N] = {0}, dz[M] = {0};
  check_at("float reverse");
  __enzyme_autodiff((void *)lossf, enzyme_dup, Pf_, dP, enzyme_dup, xf_, dx, enzyme_dup, zf_,
                    dz, enzyme_dup, G, dG);
  double want = 0;
  float tP[FN], tx[N], tz[M];
  for (int k = 0; k < FN; k++) {
    check_close("dP", dP[k], aP[k], TOL_AD_F);
    check_close("dP", dP[k], fdf(&Pf_[k]), TOL_FD_F);
    want += aP[k] * (tP[k] = 0.1f * (k % 5) - 0.2f);
  }
  for (int j = 0; j < N; j++) {
    check_close("dx", dx[j], ax[j], TOL_AD_F);
    check_close("dx", dx[j], fdf(&xf_[j]), TOL_FD_F);
    want += ax[j] * (tx[j] = 0.3f + 0.1f * j);
  }
  for (int i = 0; i < M; i++) {
    check_close("dz", dz[i], az[i], TOL_AD_F);
    check_close("dz", dz[i], fdf(&zf_[i]), TOL_FD_F);
    want += az[i] * (tz[i] = 0.2f - 0.15f * i);
  }
  check_at("float forward");
  memset(dG, 0, sizeof dG);
  float t = __enzyme_fwddiff_f32((void *)lossf, enzyme_dup, Pf_, tP, enzyme_dup, xf_, tx,
                                 enzyme_dup, zf_, tz, enzyme_dup, G, dG);
  check_close("forward = gradient . direction", t, want, TOL_AD_F);
}

#include "blas_struct.h"

/* The structured routines, row-major (C with ld SK + 1). */
__attribute__((noinline)) double sloss(const double *A, const double *B, const double *x) {
  const int ldc = SK + 1;
  double y[SN], C[SN * (SK + 1)], D[SK * SK];
  for (int i = 0; i < SN; i++)
    y[i] = x[i];
  cblas_dsymv(CblasRowMajor, CblasLower, SN, 0.7, A, SN, x, 1, 0.3, y, 1);
  cblas_dtrmv(CblasRowMajor, CblasUpper, CblasTrans, CblasNonUnit, SN, A, SN, y, 1);
  cblas_dtrsv(CblasRowMajor, CblasLower, CblasNoTrans, CblasUnit, SN, A, SN, y, 1);
  for (int i = 0; i < SN; i++)
    for (int j = 0; j < SK; j++)
      C[i * ldc + j] = B[i * SK + j];
  cblas_dsymm(CblasRowMajor, CblasLeft, CblasUpper, SN, SK, 0.5, A, SN, B, SK, 0.2, C, ldc);
  cblas_dsyrk(CblasRowMajor, CblasLower, CblasTrans, SK, SN, 0.4, C, ldc, 0.0, D, SK);
  cblas_dtrmm(CblasRowMajor, CblasRight, CblasLower, CblasTrans, CblasNonUnit, SN, SK, 1.1, D,
              SK, C, ldc);
  cblas_dtrsm(CblasRowMajor, CblasLeft, CblasUpper, CblasNoTrans, CblasNonUnit, SN, SK, 0.9, A,
              SN, C, ldc);
  double l = 0, w[SN];
  for (int i = 0; i < SN; i++)
    l += y[i] * y[i];
  /* Negative increments: w is read, then overwritten by a reversed copy
   * of y (its adjoint must be reset at the copy), read against x reversed. */
  for (int i = 0; i < SN; i++)
    w[i] = x[i] * x[i];
  l += 0.3 * cblas_ddot(SN, w, 1, w, 1);
  cblas_dcopy(SN, y, 1, w, -1);
  l += 0.5 * cblas_ddot(SN, w, 1, x, -1);
  /* i?amax has no derivative: only the entry it picks does. */
  l += 0.25 * w[cblas_idamax(SN, w, 1)];
  for (int i = 0; i < SN; i++)
    for (int j = 0; j < SK; j++)
      l += C[i * ldc + j] * C[i * ldc + j] * (1.0 + 0.1 * j);
  return l;
}

int main(void) {
  run_checks();
  run_struct_checks();
  run_float_checks();
  return check_report();
}
