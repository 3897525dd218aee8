/* loop_triangular.c: loop nests whose inner bound depends on the outer
 * index (the inner trip count is i + 1, or i: zero at the first iteration).
 *   tri(a, W, n) = sum_i sum_(j<=i) a_i a_j W_ij          (W enzyme_const)
 *     d/da_k = sum_(j<=k) a_j W_kj + sum_(i>=k) a_i W_ik
 *   trisolve(L, b, y, n): forward substitution for L y = b (L lower
 *     triangular, row-major), y_i = (b_i - sum_(j<i) L_ij y_j) / L_ii,
 *     written to a dup output y whose shadow the caller seeds with w.
 *     With z = L^-T w (back substitution): db = z, dL_ij = -z_i y_j for
 *     j <= i (0 above the diagonal), dy consumed to 0.
 * n = 25 and 1 for tri, 20 for trisolve.
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include <string.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

#define N 25

static double tri(double *a, double *W, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j <= i; j++)
      s += a[i] * a[j] * W[i * n + j];
  return s;
}

static void trisolve(double *L, double *b, double *y, int n) {
  for (int i = 0; i < n; i++) {
    double s = b[i];
    for (int j = 0; j < i; j++)
      s -= L[i * n + j] * y[j];
    y[i] = s / L[i * n + i];
  }
}

static void tri_grad(const double *a, const double *W, int n, double *g) {
  for (int k = 0; k < n; k++) {
    g[k] = 0.0;
    for (int j = 0; j <= k; j++)
      g[k] += a[j] * W[k * n + j];
    for (int i = k; i < n; i++)
      g[k] += a[i] * W[i * n + k];
  }
}

/* y = L^-1 b; z = L^-T w; db = z; dL = -z y^T (lower part) */
static void trisolve_grad(const double *L, const double *b, const double *w,
                          int n, double *y, double *db, double *dL) {
  double z[N];
  for (int i = 0; i < n; i++) {
    double s = b[i];
    for (int j = 0; j < i; j++)
      s -= L[i * n + j] * y[j];
    y[i] = s / L[i * n + i];
  }
  for (int i = n - 1; i >= 0; i--) {
    double s = w[i];
    for (int k = i + 1; k < n; k++)
      s -= L[k * n + i] * z[k];
    z[i] = s / L[i * n + i];
  }
  for (int i = 0; i < n; i++) {
    db[i] = z[i];
    for (int j = 0; j < n; j++)
      dL[i * n + j] = j <= i ? -z[i] * y[j] : 0.0;
  }
}

static double *g_W;
static double tri_a(double *a, int n) { return tri(a, g_W, n); }

typedef struct {
  double *L, *b, *w, *y;
  int n;
} ctx_t;
static double trisolve_eval(void *v) {
  ctx_t *c = (ctx_t *)v;
  double s = 0.0;
  trisolve(c->L, c->b, c->y, c->n);
  for (int i = 0; i < c->n; i++)
    s += c->w[i] * c->y[i];
  return s;
}

#ifdef NO_AD
static void emul_tri(double *a, double *da, double *W, int n) {
  double g[N];
  tri_grad(a, W, n, g);
  for (int k = 0; k < n; k++)
    da[k] += g[k];
}
static void emul_trisolve(double *L, double *dL, double *b, double *db,
                          double *y, double *dy, int n) {
  double gb[N], gL[N * N];
  trisolve_grad(L, b, dy, n, y, gb, gL);
  for (int i = 0; i < n; i++) {
    db[i] += gb[i];
    dy[i] = 0.0;
  }
  for (int i = 0; i < n * n; i++)
    dL[i] += gL[i];
}
#endif

int main(void) {
  static double W[N * N], a[N], da[N], g[N], fd[N];
  const int ns[2] = {25, 1};
  for (int t = 0; t < 2; t++) {
    int n = ns[t];
    for (int i = 0; i < n; i++) {
      a[i] = sin(1.3 * i + 0.4) + 0.1;
      da[i] = 0.0;
      for (int j = 0; j < n; j++)
        W[i * n + j] = cos(0.7 * i - 1.1 * j) + 0.05 * i;
    }
    g_W = W;
    tri_grad(a, W, n, g);
    check_at("tri n=%d", n);
#ifdef NO_AD
    emul_tri(a, da, W, n);
#else
    __enzyme_autodiff_v((void *)tri, enzyme_dup, a, da, enzyme_const, W, n);
#endif
    check_close_arr("da vs analytic", da, g, n, TOL_AD);
    for (int i = 0; i < n; i++)
      fd[i] = fdpn(tri_a, a, n, i);
    check_close_arr("da vs FD", da, fd, n, TOL_FD);
  }

  {
    enum { M = 20 };
    static double L[M * M], dL[M * M], gL[M * M], fL[M * M];
    double b[M], db[M] = {0}, y[M], dy[M], w[M], gb[M], gy[M], fb[M], ys[M];
    double zero[M] = {0};
    for (int i = 0; i < M; i++) {
      b[i] = cos(0.8 * i) + 0.2;
      w[i] = 1.0 + 0.5 * sin(1.9 * i);
      y[i] = 3.0;
      dy[i] = w[i];
      for (int j = 0; j < M; j++)
        L[i * M + j] = j < i ? 0.2 * sin(1.1 * i + 2.3 * j) : j == i ? 2.0 + 0.1 * i : 0.0;
    }
    trisolve_grad(L, b, w, M, gy, gb, gL);
    check_at("trisolve n=%d", M);
#ifdef NO_AD
    emul_trisolve(L, dL, b, db, y, dy, M);
#else
    __enzyme_autodiff_v((void *)trisolve, enzyme_dup, L, dL, enzyme_dup, b, db,
                        enzyme_dup, y, dy, M);
#endif
    ctx_t c = {L, b, w, ys, M};
    check_close_arr("db vs analytic", db, gb, M, TOL_AD);
    check_close_arr("dL vs analytic", dL, gL, M * M, TOL_AD);
    for (int i = 0; i < M; i++)
      fb[i] = fd_slot(trisolve_eval, &c, &b[i]);
    for (int i = 0; i < M * M; i++)
      fL[i] = (i % M) <= (i / M) ? fd_slot(trisolve_eval, &c, &L[i]) : 0.0;
    check_close_arr("db vs FD", db, fb, M, TOL_FD);
    check_close_arr("dL vs FD", dL, fL, M * M, TOL_FD);
    check_close_arr("dy consumed", dy, zero, M, TOL_AD);
    check_close_arr("primal y", y, gy, M, TOL_AD);
  }
  return check_report();
}
