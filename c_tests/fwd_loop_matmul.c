/* fwd_loop_matmul.c: forward mode of a triple loop nest C = A B (A m x k,
 * B k x p, row-major), sizes (7, 5, 9) and (12, 12, 12):
 *   matmul(A, B, C): the product written to a dup output C (void,
 *     __enzyme_fwddiff_v): C's tangent memory receives dA B + A dB, its
 *     old contents overwritten;
 *   obj(A, B, W) = sum_ij W_ij C_ij with C a malloc'd temporary accumulated
 *     in place, W enzyme_const: tangent sum_ij W_ij (dA B + A dB)_ij.
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include <stdlib.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_fwddiff_v(void *, ...);

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

/* reference tangent of C: dA B + A dB */
static void ref_dC(const double *A, const double *dA, const double *B,
                   const double *dB, double *dC, int m, int k, int p) {
  for (int i = 0; i < m; i++)
    for (int j = 0; j < p; j++) {
      double s = 0.0;
      for (int l = 0; l < k; l++)
        s += dA[i * k + l] * B[l * p + j] + A[i * k + l] * dB[l * p + j];
      dC[i * p + j] = s;
    }
}

/* FD on z = (A, B) */
static int g_m, g_k, g_p;
static double *g_W;
static void matmul_z(double *z, double *C) { matmul(z, z + g_m * g_k, C, g_m, g_k, g_p); }
static double obj_z(double *z) { return obj(z, z + g_m * g_k, g_W, g_m, g_k, g_p); }

#ifdef NO_AD
static void emul_matmul(double *A, double *dA, double *B, double *dB,
                        double *C, double *dC, int m, int k, int p) {
  ref_dC(A, dA, B, dB, dC, m, k, p);
  matmul(A, B, C, m, k, p);
}
static double emul_obj(double *A, double *dA, double *B, double *dB, double *W,
                       int m, int k, int p) {
  double *dC = (double *)malloc((size_t)m * p * sizeof(double)), s = 0.0;
  ref_dC(A, dA, B, dB, dC, m, k, p);
  for (int i = 0; i < m * p; i++)
    s += W[i] * dC[i];
  free(dC);
  return s;
}
#endif

#define MAXE 144

int main(void) {
  const int dims[2][3] = {{7, 5, 9}, {12, 12, 12}};
  static double z[2 * MAXE], v[2 * MAXE], W[MAXE], C[MAXE], dC[MAXE],
      rC[MAXE], rdC[MAXE], fd[MAXE];
  check_seed(4321);
  for (int t = 0; t < 2; t++) {
    int m = dims[t][0], k = dims[t][1], p = dims[t][2];
    double *A = z, *B = z + m * k, *dA = v, *dB = v + m * k;
    g_m = m;
    g_k = k;
    g_p = p;
    g_W = W;
    for (int i = 0; i < m * k; i++)
      A[i] = sin(1.7 * i + 0.2 * t + 0.1);
    for (int i = 0; i < k * p; i++)
      B[i] = cos(0.9 * i + 0.3 * t) * 1.2;
    for (int i = 0; i < m * p; i++)
      W[i] = 0.3 + sin(2.3 * i + 1.0);
    check_rand_dir(v, m * k + k * p);
    ref_dC(A, dA, B, dB, rdC, m, k, p);
    matmul(A, B, rC, m, k, p);

    for (int i = 0; i < MAXE; i++) {
      C[i] = 5.0;
      dC[i] = -3.0;
    }
    check_at("matmul %dx%dx%d", m, k, p);
#ifdef NO_AD
    emul_matmul(A, dA, B, dB, C, dC, m, k, p);
#else
    __enzyme_fwddiff_v((void *)matmul, enzyme_dup, A, dA, enzyme_dup, B, dB,
                       enzyme_dup, C, dC, m, k, p);
#endif
    check_close_arr("dC vs analytic", dC, rdC, m * p, TOL_AD);
    fdjvp(matmul_z, z, m * k + k * p, v, m * p, fd);
    check_close_arr("dC vs FD", dC, fd, m * p, TOL_FD);
    check_close_arr("primal C", C, rC, m * p, TOL_AD);

    double want = 0.0;
    for (int i = 0; i < m * p; i++)
      want += W[i] * rdC[i];
    check_at("obj %dx%dx%d", m, k, p);
#ifdef NO_AD
    double to = emul_obj(A, dA, B, dB, W, m, k, p);
#else
    double to = __enzyme_fwddiff((void *)obj, enzyme_dup, A, dA, enzyme_dup, B, dB,
                                 enzyme_const, W, m, k, p);
#endif
    check_close("tangent vs analytic", to, want, TOL_AD);
    check_close("tangent vs FD", to, fddir(obj_z, z, v, m * k + k * p), TOL_FD);
  }
  return check_report();
}
