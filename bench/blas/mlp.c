/* A two-layer perceptron's loss on 1024 x 1024 matrices, gemm-dominated:
 *   A = X W1 (cblas_dgemm), H = leaky_relu(A), Z = H W2 (cblas_dgemm),
 *   loss = 0.5 |Z - Y|^2 (a loop and cblas_ddot)
 * with X and Y constant. Its gradient with respect to W1 and W2 through
 * enz-rs (__enzyme_autodiff): the adjoints of the gemms are gemms (dW2 =
 * H^T dZ, dH = dZ W2^T, dW1 = X^T dA; X is constant: no gemm for dX), so
 * the gradient should cost about 5/2 of the primal. Prints the primal's and
 * the gradient's best time of REPS and their ratio, and a checksum that
 * compares one entry of each gradient with central differences.
 * Usage: mlp [n [grad]] (default 1024; `grad`: only the gradient, 20
 * times, for a profile). Not a test: scripts/bench-blas.sh. */
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double __enzyme_autodiff(void *, ...);
extern int enzyme_const, enzyme_dup;

#define REPS 5

__attribute__((noinline)) double mlp(const double *X, const double *W1, const double *W2,
                                     const double *Y, int n) {
  size_t nn = (size_t)n * n;
  double *A = malloc(nn * sizeof(double));
  double *H = malloc(nn * sizeof(double));
  double *Z = malloc(nn * sizeof(double));
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, X, n, W1, n, 0.0, A, n);
  for (size_t k = 0; k < nn; k++)
    H[k] = A[k] > 0 ? A[k] : 0.01 * A[k];
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, H, n, W2, n, 0.0, Z, n);
  for (size_t k = 0; k < nn; k++)
    Z[k] -= Y[k];
  double l = 0.5 * cblas_ddot((int)nn, Z, 1, Z, 1);
  free(A);
  free(H);
  free(Z);
  return l;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1024;
  size_t nn = (size_t)n * n;
  double *X = malloc(nn * sizeof(double)), *W1 = malloc(nn * sizeof(double));
  double *W2 = malloc(nn * sizeof(double)), *Y = malloc(nn * sizeof(double));
  double *d1 = calloc(nn, sizeof(double)), *d2 = calloc(nn, sizeof(double));
  srand(1);
  for (size_t k = 0; k < nn; k++) {
    X[k] = rand() / (double)RAND_MAX - 0.5;
    W1[k] = (rand() / (double)RAND_MAX - 0.5) / sqrt(n);
    W2[k] = (rand() / (double)RAND_MAX - 0.5) / sqrt(n);
    Y[k] = rand() / (double)RAND_MAX - 0.5;
  }
  if (argc > 2 && strcmp(argv[2], "grad") == 0) {
    for (int r = 0; r < 20; r++)
      __enzyme_autodiff((void *)mlp, enzyme_const, X, enzyme_dup, W1, d1, enzyme_dup, W2, d2,
                        enzyme_const, Y, enzyme_const, n);
    return 0;
  }
  double best_p = 1e30, best_g = 1e30, l = 0;
  for (int r = 0; r < REPS; r++) {
    double t0 = now();
    l = mlp(X, W1, W2, Y, n);
    double t1 = now();
    memset(d1, 0, nn * sizeof(double));
    memset(d2, 0, nn * sizeof(double));
    double t2 = now();
    __enzyme_autodiff((void *)mlp, enzyme_const, X, enzyme_dup, W1, d1, enzyme_dup, W2, d2,
                      enzyme_const, Y, enzyme_const, n);
    double t3 = now();
    if (t1 - t0 < best_p)
      best_p = t1 - t0;
    if (t3 - t2 < best_g)
      best_g = t3 - t2;
  }
  /* One entry of each gradient against central differences. */
  size_t k1 = nn / 3 + 7, k2 = nn / 2 + 11;
  double h = 1e-5, o;
  o = W1[k1];
  W1[k1] = o + h;
  double fp = mlp(X, W1, W2, Y, n);
  W1[k1] = o - h;
  double fm = mlp(X, W1, W2, Y, n);
  W1[k1] = o;
  double fd1 = (fp - fm) / (2 * h);
  o = W2[k2];
  W2[k2] = o + h;
  fp = mlp(X, W1, W2, Y, n);
  W2[k2] = o - h;
  fm = mlp(X, W1, W2, Y, n);
  W2[k2] = o;
  double fd2 = (fp - fm) / (2 * h);
  printf("n=%d loss=%.6g dW1[%zu]=%.6g (fd %.6g) dW2[%zu]=%.6g (fd %.6g)\n", n, l, k1, d1[k1],
         fd1, k2, d2[k2], fd2);
  printf("primal %.4f s  gradient %.4f s  ratio %.2f\n", best_p, best_g, best_g / best_p);
  int ok = fabs(d1[k1] - fd1) <= 1e-4 * (1 + fabs(fd1)) && fabs(d2[k2] - fd2) <= 1e-4 * (1 + fabs(fd2));
  return ok ? 0 : 1;
}
