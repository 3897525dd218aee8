/* checkpoint_loop_hvp.c: second order through __enzyme_checkpoint_for: the
 * gradient (reverse mode) of a directional derivative (forward mode) of a
 * checkpointed time loop, a Hessian-vector product.
 *
 * The forward derivative of the loop function a checkpointed call is
 * lowered to copied its marker attribute, so the reverse sweep over it took
 * it for a checkpointed loop with another parameter layout: on the CLI an
 * internal error ("the loop function ... calls no step", -O0 and -O2), and
 * through the plugin at -O2 a program that never returned (Enzyme's
 * ReverseMode/checkpoint_higher_order.c).
 * Derivatives no longer carry the markers of API loop functions.
 *
 * Checked, for Revolve with 2 snapshots and StoreAll, n = 7 steps: Hv
 * against the same product through the plain loop, and against central
 * differences of the plain loop's gradient along v. */
#include <enzyme/checkpoint.h>
#include <math.h>
#include <stdint.h>
#include "enzyme.h"
#include "check.h"

#define N 4
#define STEPS 7

__attribute__((noinline)) static void advance(int64_t i, double *u) {
  double next[N];
  for (int k = 0; k < N; k++)
    next[k] = u[k] + 0.05 * u[(k + 1) % N] * u[k] + 0.02 * cos(u[k] - 0.2 * (double)i);
  for (int k = 0; k < N; k++)
    u[k] = next[k];
}

static double energy(const double *u) {
  double s = 0;
  for (int k = 0; k < N; k++)
    s += u[k] * u[k] * u[k];
  return s;
}

static double plain(double *u, int64_t n) {
  for (int64_t i = 0; i < n; i++)
    advance(i, u);
  return energy(u);
}

static double checkpointed(double *u, int64_t n, const EnzymeCheckpointScheme *scheme,
                           EnzymeCkptConfig *config) {
  __enzyme_checkpoint_for((void *)advance, 0, n, enzyme_scheme, scheme, config,
                          enzyme_checkpoint_region, u, (int64_t)(N * sizeof(double)), u);
  return energy(u);
}

/* v . grad f(x), through the plain and the checkpointed loop. */
__attribute__((noinline)) static double dir_plain(const double *x, const double *v) {
  double u[N], du[N];
  for (int k = 0; k < N; k++) {
    u[k] = x[k];
    du[k] = v[k];
  }
  return __enzyme_fwddiff((void *)plain, enzyme_dup, u, du, enzyme_const, (int64_t)STEPS);
}

__attribute__((noinline)) static double dir_ckpt(const double *x, const double *v,
                                                 const EnzymeCheckpointScheme *scheme,
                                                 EnzymeCkptConfig *config) {
  double u[N], du[N];
  for (int k = 0; k < N; k++) {
    u[k] = x[k];
    du[k] = v[k];
  }
  return __enzyme_fwddiff((void *)checkpointed, enzyme_dup, u, du, enzyme_const,
                          (int64_t)STEPS, enzyme_const, scheme, enzyme_const, config);
}

/* The plain loop's gradient, for the central differences. */
static void grad_plain(const double *x, double *g) {
  double u[N];
  for (int k = 0; k < N; k++) {
    u[k] = x[k];
    g[k] = 0;
  }
  __enzyme_autodiff((void *)plain, enzyme_dup, u, g, enzyme_const, (int64_t)STEPS);
}

int main(void) {
  const double x[N] = {0.5, 0.7, 0.9, 1.1}, v[N] = {1, -1, 0.5, 2};
  double hv_plain[N] = {0};
  __enzyme_autodiff((void *)dir_plain, enzyme_dup, x, hv_plain, enzyme_const, v);

  /* H v by central differences of the gradient along v. */
  double fd[N], xp[N], xm[N], gp[N], gm[N];
  const double h = 1e-5;
  for (int k = 0; k < N; k++) {
    xp[k] = x[k] + h * v[k];
    xm[k] = x[k] - h * v[k];
  }
  grad_plain(xp, gp);
  grad_plain(xm, gm);
  for (int k = 0; k < N; k++)
    fd[k] = (gp[k] - gm[k]) / (2 * h);

  const EnzymeCheckpointScheme *schemes[] = {&EnzymeCkptRevolve, &EnzymeCkptStoreAll};
  const char *names[] = {"revolve", "store_all"};
  for (int s = 0; s < 2; s++) {
    EnzymeCkptConfig config = {2, 0, NULL, 0, NULL};
    double hv[N] = {0};
    __enzyme_autodiff((void *)dir_ckpt, enzyme_dup, x, hv, enzyme_const, v, enzyme_const,
                      schemes[s], enzyme_const, &config);
    for (int k = 0; k < N; k++) {
      check_at("%s, (Hv)[%d]", names[s], k);
      check_close("vs the plain loop", hv[k], hv_plain[k], TOL_AD);
      check_close("vs FD of the gradient", hv[k], fd[k], TOL_FD);
    }
  }
  return check_report();
}
