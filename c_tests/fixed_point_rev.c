/* fixed_point_rev.c: reverse mode through __enzyme_fixed_point
 * (<enzyme/fixed_point.h>): the adjoint of one step is iterated at the
 * converged state instead of reversing every iteration.
 *  - a contraction with parameters, u <- 0.5 tanh(W u) + p (1 + theta) with
 *    an output y = u_old * u_new the loss also reads, and theta a scalar
 *    passed by pointer: dL/dp and dL/dtheta against the gradient of the
 *    plain loop (every iteration reversed) and central differences of the
 *    converged loss; afterwards the state's shadow is zero, y's shadow is
 *    consumed and the state is the one the loop converged to;
 *  - Newton's iteration for cube roots, x <- (2x + a/x^2)/3: dL/da of
 *    L = sum w_k cbrt(a_k) against w_k / (3 cbrt(a_k)^2) and central
 *    differences, from a state that starts anywhere;
 *  - a linear contraction u <- 0.5 u + q with enzyme_fp_max_iters 2: two
 *    adjoint passes give 1 + 0.5 = 1.5 instead of the exact 2 (the cap is
 *    obeyed), and with no cap (0) the exact 2. */
#include <enzyme/fixed_point.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "enzyme.h"
#include "check.h"

#define N 3

static const double W[N][N] = {{0.9, -0.4, 0.2}, {0.3, 0.8, -0.5}, {-0.2, 0.6, 0.7}};

/* One iteration of the contraction: whether u moved by more than *tol. */
__attribute__((noinline)) static int contract(int64_t i, double *u, const double *p,
                                              const double *theta, double *y,
                                              const double *tol) {
  (void)i;
  double next[N], moved = 0;
  for (int k = 0; k < N; k++) {
    double s = 0;
    for (int j = 0; j < N; j++)
      s += W[k][j] * u[j];
    next[k] = 0.5 * tanh(s) + p[k] * (1.0 + *theta);
  }
  for (int k = 0; k < N; k++) {
    y[k] = u[k] * next[k];
    moved = fmax(moved, fabs(next[k] - u[k]));
    u[k] = next[k];
  }
  return moved > *tol;
}

static double loss(const double *u, const double *y) {
  double s = 0;
  for (int k = 0; k < N; k++)
    s += u[k] * u[k] + 0.5 * y[k];
  return s;
}

static double plain(double *u, const double *p, const double *theta, double *y,
                    const double *tol) {
  int64_t i = 0;
  while (contract(i++, u, p, theta, y, tol))
    ;
  return loss(u, y);
}

static double fixed(double *u, const double *p, const double *theta, double *y,
                    const double *tol) {
  __enzyme_fixed_point((void *)contract, enzyme_fp_state, u, (int64_t)sizeof(double) * N,
                       enzyme_fp_reduction, 1e-28, u, p, theta, y, tol);
  return loss(u, y);
}

static const double TOL = 1e-15;

/* The converged loss as a function of (p, theta), for differences. */
static double loss_at(const double *x) {
  double u[N] = {0}, y[N] = {0};
  return plain(u, x, x + N, y, &TOL);
}

/* Newton for cube roots: whether x moved by more than *tol. */
__attribute__((noinline)) static int newton(int64_t i, double *x, const double *a,
                                            const double *tol) {
  (void)i;
  double moved = 0;
  for (int k = 0; k < N; k++) {
    double next = (2 * x[k] + a[k] / (x[k] * x[k])) / 3;
    moved = fmax(moved, fabs(next - x[k]));
    x[k] = next;
  }
  return moved > *tol;
}

static const double WT[N] = {1.5, -0.7, 2.0};

static double roots(double *x, const double *a, const double *tol) {
  __enzyme_fixed_point((void *)newton, enzyme_fp_state, x, (int64_t)sizeof(double) * N,
                       x, a, tol);
  double s = 0;
  for (int k = 0; k < N; k++)
    s += WT[k] * x[k];
  return s;
}

static double roots_at(const double *a) {
  double x[N] = {1, 1, 1};
  return roots(x, a, &TOL);
}

/* u <- 0.5 u + q, a scalar contraction with the exact derivative 2. */
__attribute__((noinline)) static int halve(int64_t i, double *u, const double *q,
                                           const double *tol) {
  (void)i;
  double next = 0.5 * *u + *q;
  int go_on = fabs(next - *u) > *tol;
  *u = next;
  return go_on;
}

static double capped(double *u, const double *q, int64_t cap) {
  __enzyme_fixed_point((void *)halve, enzyme_fp_state, u, (int64_t)sizeof(double),
                       enzyme_fp_max_iters, cap, enzyme_fp_reduction, 1e-30, u, q, &TOL);
  return *u;
}

int main(void) {
  const double p0[N] = {0.3, -0.2, 0.5};
  const double thetas[2] = {0.1, -0.3};
  for (int t = 0; t < 2; t++) {
    double x[N + 1];
    memcpy(x, p0, sizeof(p0));
    x[N] = thetas[t];
    check_at("contraction theta=%g", x[N]);
    /* The plain loop's gradient. */
    double u0[N] = {0}, y0[N] = {0}, du0[N] = {0}, dy0[N] = {0}, dp0[N] = {0}, dth0 = 0;
    double u[N] = {0}, y[N] = {0}, du[N] = {0}, dy[N] = {0}, dp[N] = {0}, dth = 0;
    __enzyme_autodiff((void *)plain, enzyme_dup, u0, du0, enzyme_dup, x, dp0, enzyme_dup,
                      x + N, &dth0, enzyme_dup, y0, dy0, enzyme_const, &TOL);
    __enzyme_autodiff((void *)fixed, enzyme_dup, u, du, enzyme_dup, x, dp, enzyme_dup,
                      x + N, &dth, enzyme_dup, y, dy, enzyme_const, &TOL);
    for (int k = 0; k < N; k++) {
      check_close_i("dp vs plain loop", k, dp[k], dp0[k], TOL_AD);
      check_close_i("dp vs FD", k, dp[k], fdn(loss_at, x, N + 1, k), TOL_FD);
      check_close_i("state's shadow zero", k, du[k], 0.0, 0.0);
      check_close_i("y's shadow consumed", k, dy[k], 0.0, 0.0);
      check_close_i("state as converged", k, u[k], u0[k], 0.0);
    }
    check_close("dtheta vs plain loop", dth, dth0, TOL_AD);
    check_close("dtheta vs FD", dth, fdn(loss_at, x, N + 1, N), TOL_FD);
  }

  const double as[2][N] = {{2.0, 5.0, 0.7}, {8.0, 1.3, 3.0}};
  for (int t = 0; t < 2; t++) {
    check_at("newton a=(%g, %g, %g)", as[t][0], as[t][1], as[t][2]);
    double x[N] = {1, 1, 1}, dx[N] = {0}, da[N] = {0};
    __enzyme_autodiff((void *)roots, enzyme_dup, x, dx, enzyme_dup, as[t], da, enzyme_const,
                      &TOL);
    for (int k = 0; k < N; k++) {
      double c = cbrt(as[t][k]);
      check_close_i("da vs analytic", k, da[k], WT[k] / (3 * c * c), TOL_AD);
      check_close_i("da vs FD", k, da[k], fdn(roots_at, as[t], N, k), TOL_FD);
      check_close_i("state's shadow zero", k, dx[k], 0.0, 0.0);
    }
  }

  check_at("max_iters");
  for (int cap = 0; cap <= 2; cap += 2) {
    double u = 0, du = 0, q = 0.4, dq = 0;
    __enzyme_autodiff((void *)capped, enzyme_dup, &u, &du, enzyme_dup, &q, &dq, enzyme_const,
                      (int64_t)cap);
    check_close_i("dq with max_iters", cap, dq, cap ? 1.5 : 2.0, TOL_AD);
    check_close_i("converged state", cap, u, 0.8, 1e-12);
  }
  return check_report();
}
