/* call_fptr_ode.c: an ODE integrator taking the right-hand side as a
 * function pointer. rk4 (noinline, so it stays a call) calls the
 * right-hand side through its parameter; integrate passes the function.
 *   y' = rhs(t, y, p) = -p0 y + p1 sin(t) + p2 y^2 / (1 + y^2)
 * integrated with N classical Runge-Kutta steps of size h from y0. The
 * derivatives of y(T) with respect to y0 (out) and p (dup) are checked
 * against a hand-written tangent of the same discrete scheme and against
 * central finite differences. rk4's derivative is differentiated on its
 * own (split mode): its function-pointer parameter is duplicated with the
 * right-hand side's table of derivatives as its shadow.
 * Build with -DNO_AD to replace the AD calls by the hand-written tangent. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

typedef double (*rhs_t)(double t, double y, const double *p);

static double rhs(double t, double y, const double *p) {
  return -p[0] * y + p[1] * sin(t) + p[2] * y * y / (1.0 + y * y);
}
/* partial derivatives of rhs */
static double rhs_y(double t, double y, const double *p) {
  (void)t;
  double q = 1.0 + y * y;
  return -p[0] + p[2] * 2.0 * y / (q * q);
}
static void rhs_p(double t, double y, double *g) {
  g[0] = -y;
  g[1] = sin(t);
  g[2] = y * y / (1.0 + y * y);
}

__attribute__((noinline)) static double rk4(rhs_t f, double t, double y, double h,
                                            const double *p) {
  double k1 = f(t, y, p);
  double k2 = f(t + 0.5 * h, y + 0.5 * h * k1, p);
  double k3 = f(t + 0.5 * h, y + 0.5 * h * k2, p);
  double k4 = f(t + h, y + h * k3, p);
  return y + h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4);
}

#define N 20
static const double H = 0.05;

static double integrate(double y0, const double *p) {
  double y = y0;
  for (int n = 0; n < N; n++)
    y = rk4(rhs, n * H, y, H, p);
  return y;
}
static double integrate_v(const double *a) { return integrate(a[0], a + 1); }

/* The tangent of the same scheme: (dy/dy0, dy/dp) by hand. */
static void tangent(double y0, const double *p, double *dy0, double *dp) {
  double y = y0, dy = 1.0, dq[3] = {0, 0, 0};
  for (int n = 0; n < N; n++) {
    double t = n * H, h = H, g[3];
    double k1 = rhs(t, y, p);
    double y2 = y + 0.5 * h * k1, k2 = rhs(t + 0.5 * h, y2, p);
    double y3 = y + 0.5 * h * k2, k3 = rhs(t + 0.5 * h, y3, p);
    double y4 = y + h * k3, k4 = rhs(t + h, y4, p);
    /* with respect to y0 */
    double a1 = rhs_y(t, y, p) * dy;
    double a2 = rhs_y(t + 0.5 * h, y2, p) * (dy + 0.5 * h * a1);
    double a3 = rhs_y(t + 0.5 * h, y3, p) * (dy + 0.5 * h * a2);
    double a4 = rhs_y(t + h, y4, p) * (dy + h * a3);
    double ndy = dy + h / 6.0 * (a1 + 2.0 * a2 + 2.0 * a3 + a4);
    /* with respect to each p_j */
    for (int j = 0; j < 3; j++) {
      double b1, b2, b3, b4;
      rhs_p(t, y, g);
      b1 = rhs_y(t, y, p) * dq[j] + g[j];
      rhs_p(t + 0.5 * h, y2, g);
      b2 = rhs_y(t + 0.5 * h, y2, p) * (dq[j] + 0.5 * h * b1) + g[j];
      rhs_p(t + 0.5 * h, y3, g);
      b3 = rhs_y(t + 0.5 * h, y3, p) * (dq[j] + 0.5 * h * b2) + g[j];
      rhs_p(t + h, y4, g);
      b4 = rhs_y(t + h, y4, p) * (dq[j] + h * b3) + g[j];
      dq[j] += h / 6.0 * (b1 + 2.0 * b2 + 2.0 * b3 + b4);
    }
    dy = ndy;
    y = y + h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4);
  }
  *dy0 = dy;
  for (int j = 0; j < 3; j++)
    dp[j] = dq[j];
}

int main(void) {
  const double starts[2] = {0.8, -1.3};
  const double ps[2][3] = {{0.7, 0.4, 0.3}, {1.1, -0.6, 0.9}};
  for (int c = 0; c < 2; c++) {
    double y0 = starts[c], p[3], dp[3] = {0, 0, 0}, wy, wp[3];
    for (int j = 0; j < 3; j++)
      p[j] = ps[c][j];
    tangent(y0, p, &wy, wp);
    check_at("y0=%g p=(%g,%g,%g)", y0, p[0], p[1], p[2]);
#ifdef NO_AD
    double dy0 = wy;
    for (int j = 0; j < 3; j++)
      dp[j] = wp[j];
#else
    double dy0 = __enzyme_autodiff((void *)integrate, y0, enzyme_dup, p, dp);
#endif
    double a[4] = {y0, p[0], p[1], p[2]};
    check_close("dy0 vs hand tangent", dy0, wy, TOL_AD);
    check_close("dy0 vs FD", dy0, fdn(integrate_v, a, 4, 0), TOL_FD);
    for (int j = 0; j < 3; j++) {
      check_close_i("dp vs hand tangent", j, dp[j], wp[j], TOL_AD);
      check_close_i("dp vs FD", j, dp[j], fdn(integrate_v, a, 4, j + 1), TOL_FD);
    }
  }
  return check_report();
}
