/* vec_dupv.c: `enzyme_dupv, stride, value, shadow` (Enzyme's strided
 * shadows): with `enzyme_width N`, lane k's shadow is at shadow + k *
 * stride bytes, so the lanes of a `double s[N][M]` are passed as one
 * pointer and sizeof(s[0]). The previous binary refused the marker
 * ("not supported").
 *   - forward mode, width 2: y = x .* x .* c, tangents of x in the rows of
 *     one array, the lanes' tangents of y in another (enzyme_dupnoneedv
 *     for y), against 2 c x dx and central differences along dx;
 *   - vector reverse mode, width 3: the same function, output seeds in the
 *     rows of one array, the lanes' gradients in the rows of another,
 *     against 2 c x dy and central differences of dy . y, and the seeds
 *     consumed (zero after).
 * Rows padded to 5 doubles (the stride is not the row length). */
#include "enzyme.h"
#include "check.h"

#define M 4
#define PAD 5

__attribute__((noinline)) static void square_scale(const double *x, double *y, double c) {
  for (int i = 0; i < M; i++)
    y[i] = x[i] * x[i] * c;
}

/* Central differences: y(x + h v) - y(x - h v), over 2h. */
static void fd_along(const double *x, const double *v, double c, double *dy) {
  double xp[M], xm[M], yp[M], ym[M];
  const double h = 1e-6;
  for (int i = 0; i < M; i++) {
    xp[i] = x[i] + h * v[i];
    xm[i] = x[i] - h * v[i];
  }
  square_scale(xp, yp, c);
  square_scale(xm, ym, c);
  for (int i = 0; i < M; i++)
    dy[i] = (yp[i] - ym[i]) / (2 * h);
}

int main(void) {
  const double x[M] = {0.5, -1.25, 2.0, 3.5}, c = 1.5;

  /* Forward, width 2. */
  double dx[2][PAD] = {{1, 0, 0.5, 0, 9}, {0, 2, 0, -1, 9}};
  double y[M], dy[2][PAD] = {{0}};
  __enzyme_fwddiff((void *)square_scale, enzyme_width, 2, enzyme_dupv, sizeof(dx[0]), x, dx,
                   enzyme_dupnoneedv, sizeof(dy[0]), y, dy, enzyme_const, c);
  for (int k = 0; k < 2; k++) {
    double fd[M];
    fd_along(x, dx[k], c, fd);
    for (int i = 0; i < M; i++) {
      check_at("forward lane %d, y[%d]", k, i);
      check_close("vs 2 c x dx", dy[k][i], 2 * c * x[i] * dx[k][i], TOL_AD);
      check_close("vs FD", dy[k][i], fd[i], TOL_FD);
    }
  }

  /* Vector reverse, width 3. */
  double gx[3][PAD] = {{0}}, seed[3][PAD] = {{1, 0, 0, 0}, {0, 1, 1, 0}, {2, 0, 0, -1}};
  double want[3][M];
  /* d(seed_k . y)/dx_i by central differences along e_i. */
  double fdg[3][M];
  for (int i = 0; i < M; i++) {
    double e[M] = {0}, fd[M];
    e[i] = 1;
    fd_along(x, e, c, fd);
    for (int k = 0; k < 3; k++) {
      fdg[k][i] = 0;
      for (int j = 0; j < M; j++)
        fdg[k][i] += seed[k][j] * fd[j];
    }
  }
  for (int k = 0; k < 3; k++)
    for (int i = 0; i < M; i++)
      want[k][i] = 2 * c * x[i] * seed[k][i];
  double y2[M];
  __enzyme_autodiff((void *)square_scale, enzyme_width, 3, enzyme_dupv, sizeof(gx[0]), x, gx,
                    enzyme_dupv, sizeof(seed[0]), y2, seed, enzyme_const, c);
  for (int k = 0; k < 3; k++)
    for (int i = 0; i < M; i++) {
      check_at("reverse lane %d, x[%d]", k, i);
      check_close("vs 2 c x dy", gx[k][i], want[k][i], TOL_AD);
      check_close("vs FD", gx[k][i], fdg[k][i], TOL_FD);
      check_close("seed consumed", seed[k][i], 0, TOL_AD);
    }
  return check_report();
}
