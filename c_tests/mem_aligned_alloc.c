/* mem_aligned_alloc.c: heap scratch arrays from aligned_alloc and memalign
 * inside the differentiated function (then freed). Their shadows must be
 * allocated the same way, zeroed over the size argument (the second one),
 * and freed at the end of the reverse sweep; enz-rs knew only malloc,
 * calloc, realloc and operator new, so at -O0 these were refused ("cannot
 * build a shadow for this pointer").
 *   t_i = sin(x_i) x_i, u_i = t_i^2, f(x) = sum_i (u_i + t_i)
 *   df/dx_i = (2 t_i + 1) (cos(x_i) x_i + sin(x_i))
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <malloc.h>
#include <math.h>
#include <stdlib.h>
#include "enzyme.h"
#include "check.h"

#define N 3

void __enzyme_autodiff_v(void *, ...);

__attribute__((noinline)) static double work(const double *x, int n) {
  double *t = aligned_alloc(64, 64 * ((n * sizeof(double) + 63) / 64));
  double *u = memalign(32, n * sizeof(double));
  for (int i = 0; i < n; i++) {
    t[i] = sin(x[i]) * x[i];
    u[i] = t[i] * t[i];
  }
  double s = 0;
  for (int i = 0; i < n; i++)
    s += u[i] + t[i];
  free(t);
  free(u);
  return s;
}
static double f(double *x) { return work(x, N); }
static void f_grad(const double *x, double *gr) {
  for (int i = 0; i < N; i++) {
    double t = sin(x[i]) * x[i], dt = cos(x[i]) * x[i] + sin(x[i]);
    gr[i] = (2.0 * t + 1.0) * dt;
  }
}

int main(void) {
  const double pts[2][N] = {{0.3, -0.7, 1.1}, {-1.2, 0.5, 0.9}};
  for (int p = 0; p < 2; p++) {
    double x[N] = {pts[p][0], pts[p][1], pts[p][2]}, dx[N] = {0}, gr[N];
    f_grad(x, gr);
    check_at("point %d", p);
#ifdef NO_AD
    for (int k = 0; k < N; k++)
      dx[k] += gr[k];
#else
    __enzyme_autodiff_v((void *)f, enzyme_dup, x, dx);
#endif
    for (int k = 0; k < N; k++) {
      check_close_i("dx vs analytic", k, dx[k], gr[k], TOL_AD);
      check_close_i("dx vs FD", k, dx[k], fdp(f, pts[p], N, k), TOL_FD);
    }
  }
  return check_report();
}
