/* mem_posix_memalign.c: heap scratch arrays from posix_memalign (the block
 * is written through its first argument, not returned) and valloc inside
 * the differentiated function, then freed; reverse and forward mode. The
 * shadow of the block must be allocated by posix_memalign into the shadow
 * of the pointer variable, zeroed over the size (third argument), and
 * freed at the end of the reverse sweep (forward mode: by the primal's
 * free).
 *   t_i = sin(x_i) x_i, u_i = t_i^2 + x_i, f(x) = sum_i (u_i t_i)
 *   df/dx_i = (3 t_i^2) dt_i + t_i + x_i dt_i,  dt_i = cos(x_i) x_i + sin(x_i)
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include <stdlib.h>
#include "enzyme.h"
#include "check.h"

#define N 3

void __enzyme_autodiff_v(void *, ...);
double __enzyme_fwddiff_d(void *, ...);

__attribute__((noinline)) static double work(const double *x, int n) {
  double *t = 0;
  if (posix_memalign((void **)&t, 64, (size_t)n * sizeof(double)) != 0)
    abort();
  double *u = valloc((size_t)n * sizeof(double));
  for (int i = 0; i < n; i++) {
    t[i] = sin(x[i]) * x[i];
    u[i] = t[i] * t[i] + x[i];
  }
  double s = 0;
  for (int i = 0; i < n; i++)
    s += u[i] * t[i];
  free(t);
  free(u);
  return s;
}
static double f(double *x) { return work(x, N); }
static void f_grad(const double *x, double *gr) {
  for (int i = 0; i < N; i++) {
    double t = sin(x[i]) * x[i], dt = cos(x[i]) * x[i] + sin(x[i]);
    gr[i] = 3.0 * t * t * dt + t + x[i] * dt;
  }
}

int main(void) {
  const double pts[2][N] = {{0.3, -0.7, 1.1}, {-1.2, 0.5, 0.9}};
  const double dir[N] = {0.4, -1.3, 0.7};
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
    /* forward mode along dir: sum_k gr_k dir_k */
    double want = 0, fd = 0, v[N] = {dir[0], dir[1], dir[2]};
    for (int k = 0; k < N; k++) {
      want += gr[k] * dir[k];
      fd += fdp(f, pts[p], N, k) * dir[k];
    }
#ifdef NO_AD
    double tan = want;
#else
    double tan = __enzyme_fwddiff_d((void *)f, enzyme_dup, x, v);
#endif
    check_close("tangent vs analytic", tan, want, TOL_AD);
    check_close("tangent vs FD", tan, fd, TOL_FD);
  }
  return check_report();
}
