/* fixed_point_fwd.c: forward mode through __enzyme_fixed_point
 * (<enzyme/fixed_point.h>): after the loop, the tangent of one step is
 * iterated at the converged state, s <- phi_z s + phi_x xdot, from s = 0.
 *  - a contraction with parameters, u <- 0.5 tanh(W u) + p (1 + theta),
 *    writing y = u_old * u_new: the tangents of u and y along random
 *    directions of (p, theta) against the plain loop's tangent (every
 *    iteration differentiated) and central differences of the converged
 *    u and y; the state's initial tangent has no effect and the state is
 *    the one the loop converged to;
 *  - Newton's iteration for cube roots: the tangent against
 *    adot / (3 cbrt(a)^2) and central differences, and a control function
 *    (enzyme_fp_control) called three times: before the first pass and
 *    after each of the two passes Newton needs (phi_z = 0 at the root);
 *  - a linear contraction u <- 0.5 u + q with enzyme_fp_max_iters 2: two
 *    passes give 1.5 instead of the exact 2; with no cap (0), 2. */
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

static void plain(double *u, const double *p, const double *theta, double *y,
                  const double *tol) {
  int64_t i = 0;
  while (contract(i++, u, p, theta, y, tol))
    ;
}

static void fixed(double *u, const double *p, const double *theta, double *y,
                  const double *tol) {
  __enzyme_fixed_point((void *)contract, enzyme_fp_state, u, (int64_t)sizeof(double) * N,
                       enzyme_fp_reduction, 1e-28, u, p, theta, y, tol);
}

static const double TOL = 1e-15;

/* Output k of the converged loop (u, then y) at x = (p, theta) + h v. */
static double out_at(const double *x, const double *v, double h, int k) {
  double p[N], th = x[N] + h * v[N], u[N] = {0}, y[N] = {0};
  for (int j = 0; j < N; j++)
    p[j] = x[j] + h * v[j];
  plain(u, p, &th, y, &TOL);
  return k < N ? u[k] : y[k - N];
}

static double fd_dir(const double *x, const double *v, int k) {
  double h = 1e-6;
  return (out_at(x, v, h, k) - out_at(x, v, -h, k)) / (2 * h);
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

static int control_calls;
static double control_first;

/* The built-in relative test, counting its calls. */
static int control(double *cumul, double *reduction) {
  control_calls++;
  if (*cumul < 0)
    return 1;
  if (control_calls == 2) {
    control_first = *cumul;
    return *cumul > 0;
  }
  return *cumul > *reduction * control_first;
}

static void roots(double *x, const double *a, const double *tol) {
  __enzyme_fixed_point((void *)newton, enzyme_fp_state, x, (int64_t)sizeof(double) * N,
                       enzyme_fp_control, control, enzyme_fp_reduction, 1e-24, x, a, tol);
}

static double root_at(const double *a, int k) {
  double x[N] = {1, 1, 1};
  roots(x, a, &TOL);
  return x[k];
}

/* u <- 0.5 u + q: the exact tangent is 2 qdot. */
__attribute__((noinline)) static int halve(int64_t i, double *u, const double *q,
                                           const double *tol) {
  (void)i;
  double next = 0.5 * *u + *q;
  int go_on = fabs(next - *u) > *tol;
  *u = next;
  return go_on;
}

static void capped(double *u, const double *q, int64_t cap) {
  __enzyme_fixed_point((void *)halve, enzyme_fp_state, u, (int64_t)sizeof(double),
                       enzyme_fp_max_iters, cap, enzyme_fp_reduction, 1e-30, u, q, &TOL);
}

int main(void) {
  const double x0[2][N + 1] = {{0.3, -0.2, 0.5, 0.1}, {-0.4, 0.25, 0.6, -0.3}};
  check_seed(11);
  for (int t = 0; t < 2; t++) {
    const double *x = x0[t];
    double v[N + 1];
    check_rand_dir(v, N + 1);
    check_at("contraction point %d", t);
    double u0[N] = {0}, y0[N] = {0}, du0[N] = {0}, dy0[N] = {0};
    double u[N] = {0}, y[N] = {0}, du[N] = {7, -3, 5}, dy[N] = {0};
    __enzyme_fwddiff((void *)plain, enzyme_dup, u0, du0, enzyme_dup, x, v, enzyme_dup, x + N,
                     v + N, enzyme_dup, y0, dy0, enzyme_const, &TOL);
    __enzyme_fwddiff((void *)fixed, enzyme_dup, u, du, enzyme_dup, x, v, enzyme_dup, x + N,
                     v + N, enzyme_dup, y, dy, enzyme_const, &TOL);
    for (int k = 0; k < N; k++) {
      check_close_i("du vs plain loop", k, du[k], du0[k], TOL_AD);
      check_close_i("du vs FD", k, du[k], fd_dir(x, v, k), TOL_FD);
      check_close_i("dy vs plain loop", k, dy[k], dy0[k], TOL_AD);
      check_close_i("dy vs FD", k, dy[k], fd_dir(x, v, N + k), TOL_FD);
      check_close_i("state as converged", k, u[k], u0[k], 0.0);
    }
  }

  const double as[2][N] = {{2.0, 5.0, 0.7}, {8.0, 1.3, 3.0}};
  for (int t = 0; t < 2; t++) {
    check_at("newton a=(%g, %g, %g)", as[t][0], as[t][1], as[t][2]);
    double x[N] = {1, 1, 1}, dx[N] = {0}, da[N] = {1.0, -0.5, 2.0};
    control_calls = 0;
    __enzyme_fwddiff((void *)roots, enzyme_dup, x, dx, enzyme_dup, as[t], da, enzyme_const,
                     &TOL);
    check_close("control calls", control_calls, 3, 0.0);
    for (int k = 0; k < N; k++) {
      double c = cbrt(as[t][k]), h = 1e-6 * as[t][k], ap[N], am[N];
      memcpy(ap, as[t], sizeof(ap));
      memcpy(am, as[t], sizeof(am));
      ap[k] += h;
      am[k] -= h;
      double fd = (root_at(ap, k) - root_at(am, k)) / (ap[k] - am[k]) * da[k];
      check_close_i("dx vs analytic", k, dx[k], da[k] / (3 * c * c), TOL_AD);
      check_close_i("dx vs FD", k, dx[k], fd, TOL_FD);
    }
  }

  check_at("max_iters");
  for (int cap = 0; cap <= 2; cap += 2) {
    double u = 0, du = 0, q = 0.4, dq = 1;
    __enzyme_fwddiff((void *)capped, enzyme_dup, &u, &du, enzyme_dup, &q, &dq, enzyme_const,
                     (int64_t)cap);
    check_close_i("du with max_iters", cap, du, cap ? 1.5 : 2.0, TOL_AD);
    check_close_i("converged state", cap, u, 0.8, 1e-12);
  }
  return check_report();
}
