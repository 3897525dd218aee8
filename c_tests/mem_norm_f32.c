/* mem_norm_f32.c: float variant of mem_norm2: sqrtf of a sum of squares of
 * a float[4] read through a dup pointer; gradient x / |x| in the float
 * shadow. Build with -DNO_AD to replace the AD calls by the analytic
 * derivative. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

static float normf(float *x) {
  return sqrtf(x[0] * x[0] + x[1] * x[1] + x[2] * x[2] + x[3] * x[3]);
}
/* a scaled variant mixing a float scalar out of memory */
static float normf_scaled(float *x) { return x[3] * normf(x); }

#ifdef NO_AD
static void emul_normf(float *x, float *dx) {
  float n = normf(x);
  for (int k = 0; k < 4; k++)
    dx[k] += x[k] / n;
}
static void emul_normf_scaled(float *x, float *dx) {
  float n = normf(x);
  for (int k = 0; k < 4; k++)
    dx[k] += x[3] * x[k] / n;
  dx[3] += n;
}
#endif

int main(void) {
  const float pts[2][4] = {{0.5f, -1.25f, 2.0f, 3.5f}, {-3.1f, 0.2f, 1.7f, -0.6f}};
  for (int p = 0; p < 2; p++) {
    float x[4], dx[4] = {0}, ds[4] = {0};
    for (int k = 0; k < 4; k++)
      x[k] = pts[p][k];
    double n = sqrt((double)x[0] * x[0] + (double)x[1] * x[1] +
                    (double)x[2] * x[2] + (double)x[3] * x[3]);
    check_at("normf point %d", p);
#ifdef NO_AD
    emul_normf(x, dx);
#else
    __enzyme_autodiff_v((void *)normf, enzyme_dup, x, dx);
#endif
    for (int k = 0; k < 4; k++) {
      check_close_i("dx vs analytic", k, dx[k], x[k] / n, TOL_AD_F);
      check_close_i("dx vs FD", k, dx[k], fdpf(normf, pts[p], 4, k), TOL_FD_F);
    }
    check_at("normf_scaled point %d", p);
#ifdef NO_AD
    emul_normf_scaled(x, ds);
#else
    __enzyme_autodiff_v((void *)normf_scaled, x, ds);
#endif
    for (int k = 0; k < 4; k++) {
      double want = x[3] * x[k] / n + (k == 3 ? n : 0.0);
      check_close_i("dx vs analytic", k, ds[k], want, TOL_AD_F);
      check_close_i("dx vs FD", k, ds[k], fdpf(normf_scaled, pts[p], 4, k), TOL_FD_F);
    }
  }
  return check_report();
}
