/* loop_matmul.c: a triple loop nest C = A B (A m x k, B k x p, row-major),
 * then a scalar objective; gradients w.r.t. both A and B:
 *   obj(A, B, W) = sum_ij W_ij C_ij, C a malloc'd temporary accumulated in
 *                  place (C_ij = 0; C_ij += A_il B_lj), freed at the end;
 *                  W enzyme_const
 *       dA = W B^T,  dB = A^T W
 *   matmul(A, B, C): the product written to a dup output C whose shadow is
 *       seeded with W by the caller: the same dA and dB, and dC consumed to 0.
 * Sizes (7, 5, 9) (non-square, odd) and (12, 12, 12).
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include <stdlib.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

static double obj(double *A, double *B, double *W, int m, int k, int p) {
  double *C = (double *)malloc((size_t)m * p * sizeof(double));
  for (int i = 0; i < m; i++)
    for (int j = 0; j < p; j++) {
      C[i * p + j] = 0.0;
      for (int l = 0; l < k; l++)
        C[i * p + j] += A[i * k + l] * B[l * p + j];
    }
  double s = 0.0;
  for (int i = 0; i < m; i++)
    for (int j = 0; j < p; j++)
      s += W[i * p + j] * C[i * p + j];
  free(C);
  return s;
}

static void matmul(double *A, double *B, double *C, int m, int k, int p) {
  for (int i = 0; i < m; i++)
    for (int j = 0; j < p; j++) {
      C[i * p + j] = 0.0;
      for (int l = 0; l < k; l++)
        C[i * p + j] += A[i * k + l] * B[l * p + j];
    }
}

/* dA = W B^T, dB = A^T W */
static void grad(const double *A, const double *B, const double *W, int m,
                 int k, int p, double *dA, double *dB) {
  for (int i = 0; i < m; i++)
    for (int l = 0; l < k; l++) {
      double s = 0.0;
      for (int j = 0; j < p; j++)
        s += W[i * p + j] * B[l * p + j];
      dA[i * k + l] = s;
    }
  for (int l = 0; l < k; l++)
    for (int j = 0; j < p; j++) {
      double s = 0.0;
      for (int i = 0; i < m; i++)
        s += A[i * k + l] * W[i * p + j];
      dB[l * p + j] = s;
    }
}

#ifdef NO_AD
static void emul_obj(double *A, double *dA, double *B, double *dB, double *W,
                     int m, int k, int p) {
  grad(A, B, W, m, k, p, dA, dB);
}
static void emul_matmul(double *A, double *dA, double *B, double *dB,
                        double *C, double *dC, int m, int k, int p) {
  grad(A, B, dC, m, k, p, dA, dB);
  matmul(A, B, C, m, k, p);
  for (int i = 0; i < m * p; i++)
    dC[i] = 0.0;
}
#endif

/* FD context: the inputs, read by obj_eval / matmul_eval */
typedef struct {
  double *A, *B, *W, *C;
  int m, k, p;
} ctx_t;
static double obj_eval(void *v) {
  ctx_t *c = (ctx_t *)v;
  return obj(c->A, c->B, c->W, c->m, c->k, c->p);
}
static double matmul_eval(void *v) {
  ctx_t *c = (ctx_t *)v;
  double s = 0.0;
  matmul(c->A, c->B, c->C, c->m, c->k, c->p);
  for (int i = 0; i < c->m * c->p; i++)
    s += c->W[i] * c->C[i];
  return s;
}

#define MAXE 144

int main(void) {
  const int dims[2][3] = {{7, 5, 9}, {12, 12, 12}};
  static double A[MAXE], B[MAXE], W[MAXE], C[MAXE], dA[MAXE], dB[MAXE],
      dC[MAXE], Cs[MAXE], gA[MAXE], gB[MAXE], fA[MAXE], fB[MAXE];
  for (int t = 0; t < 2; t++) {
    int m = dims[t][0], k = dims[t][1], p = dims[t][2];
    for (int i = 0; i < m * k; i++)
      A[i] = sin(1.7 * i + 0.2 * t + 0.1);
    for (int i = 0; i < k * p; i++)
      B[i] = cos(0.9 * i + 0.3 * t) * 1.2;
    for (int i = 0; i < m * p; i++)
      W[i] = 0.3 + sin(2.3 * i + 1.0);
    grad(A, B, W, m, k, p, gA, gB);
    ctx_t c = {A, B, W, Cs, m, k, p}; /* Cs: scratch for the FD */

    /* obj */
    for (int i = 0; i < MAXE; i++)
      dA[i] = dB[i] = 0.0;
    check_at("obj %dx%dx%d", m, k, p);
#ifdef NO_AD
    emul_obj(A, dA, B, dB, W, m, k, p);
#else
    __enzyme_autodiff_v((void *)obj, enzyme_dup, A, dA, enzyme_dup, B, dB,
                        enzyme_const, W, m, k, p);
#endif
    check_close_arr("dA vs analytic", dA, gA, m * k, TOL_AD);
    check_close_arr("dB vs analytic", dB, gB, k * p, TOL_AD);
    for (int i = 0; i < m * k; i++)
      fA[i] = fd_slot(obj_eval, &c, &A[i]);
    for (int i = 0; i < k * p; i++)
      fB[i] = fd_slot(obj_eval, &c, &B[i]);
    check_close_arr("dA vs FD", dA, fA, m * k, TOL_FD);
    check_close_arr("dB vs FD", dB, fB, k * p, TOL_FD);

    /* matmul with the output shadow seeded with W */
    for (int i = 0; i < MAXE; i++) {
      dA[i] = dB[i] = 0.0;
      C[i] = 5.0;
      dC[i] = W[i];
    }
    check_at("matmul %dx%dx%d", m, k, p);
#ifdef NO_AD
    emul_matmul(A, dA, B, dB, C, dC, m, k, p);
#else
    __enzyme_autodiff_v((void *)matmul, enzyme_dup, A, dA, enzyme_dup, B, dB,
                        enzyme_dup, C, dC, m, k, p);
#endif
    check_close_arr("dA vs analytic", dA, gA, m * k, TOL_AD);
    check_close_arr("dB vs analytic", dB, gB, k * p, TOL_AD);
    for (int i = 0; i < m * k; i++)
      fA[i] = fd_slot(matmul_eval, &c, &A[i]);
    for (int i = 0; i < k * p; i++)
      fB[i] = fd_slot(matmul_eval, &c, &B[i]);
    check_close_arr("dA vs FD", dA, fA, m * k, TOL_FD);
    check_close_arr("dB vs FD", dB, fB, k * p, TOL_FD);
    {
      double zero[MAXE] = {0}, cw[MAXE];
      for (int i = 0; i < m * p; i++) {
        cw[i] = 0.0;
        for (int l = 0; l < k; l++)
          cw[i] += A[(i / p) * k + l] * B[l * p + i % p];
      }
      check_close_arr("dC consumed", dC, zero, m * p, TOL_AD);
      check_close_arr("primal C", C, cw, m * p, TOL_AD);
    }
  }
  return check_report();
}
