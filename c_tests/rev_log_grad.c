/* rev_log_grad.c: Enzyme's gradient logger. A module that defines
 * enzymeLogGrad gets, from each reverse sweep, one call per active
 * instruction differentiated by the rule table, with that instruction's
 * adjoint, opcode, callee, module, function and place. Here
 *   f(x) = v3 + v4, v1 = 3x, v2 = 1 - v1, v3 = x^2, v4 = v2 / v3
 * logs d v5 (fadd) = 1, d v4 (fdiv) = 1, d v3 (fmul) = 1 - v2 / v3^2,
 * d v2 (fsub) = 1 / v3, d v1 (fmul) = -1 / v3, each once per gradient;
 * and g(x) = sin(x) * x logs the call with its callee. A module without
 * the function gets no calls (every other fixture). */
#include <math.h>
#include <string.h>
#include "enzyme.h"
#include "check.h"

static int logged;
static double log_grad[16];
static char log_op[16][16], log_callee[16][32];

void enzymeLogGrad(double grad, const char *opcode, const char *callee,
                   const char *module, const char *function, unsigned block,
                   unsigned inst) {
  (void)module, (void)block, (void)inst;
  if (logged < 16) {
    log_grad[logged] = grad;
    strncpy(log_op[logged], opcode, 15);
    strncpy(log_callee[logged], callee, 31);
    if (strcmp(function, "f") && strcmp(function, "g"))
      log_grad[logged] = NAN; /* the primal function's name, or fail */
  }
  logged++;
}

__attribute__((noinline)) double f(double x) {
  double v1 = x * 3;
  double v2 = 1 - v1;
  double v3 = x * x;
  double v4 = v2 / v3;
  return v3 + v4;
}

__attribute__((noinline)) double g(double x) { return sin(x) * x; }

static double df(double x) {
  return -3 / (x * x) - 2 * (1 - 3 * x) / (x * x * x) + 2 * x;
}

/* The logged adjoint with opcode `op` closest to `want` (two fmuls). */
static double logged_as(const char *op, double want) {
  double best = NAN;
  for (int k = 0; k < logged && k < 16; k++)
    if (!strcmp(log_op[k], op) &&
        (isnan(best) || fabs(log_grad[k] - want) < fabs(best - want)))
      best = log_grad[k];
  return best;
}

int main(void) {
  const double xs[] = {2.0, -0.7, 1.3};
  for (int i = 0; i < 3; i++) {
    double x = xs[i], v2 = 1 - 3 * x, v3 = x * x;
    logged = 0;
    check_at("f x=%g", x);
    double d = __enzyme_autodiff((void *)f, x);
    check_close("d/dx vs analytic", d, df(x), TOL_AD);
    check_close("d/dx vs FD", d, fd1(f, x), TOL_FD);
    check_close("calls logged", logged, 5, 0);
    check_close("fadd adjoint", logged_as("fadd", 1), 1, TOL_AD);
    check_close("fdiv adjoint", logged_as("fdiv", 1), 1, TOL_AD);
    check_close("fsub adjoint", logged_as("fsub", 1 / v3), 1 / v3, TOL_AD);
    double dv3 = 1 - v2 / (v3 * v3);
    check_close("fmul (x*x) adjoint", logged_as("fmul", dv3), dv3, TOL_AD);
    check_close("fmul (3x) adjoint", logged_as("fmul", -1 / v3), -1 / v3, TOL_AD);

    logged = 0;
    check_at("g x=%g", x);
    double dg = __enzyme_autodiff((void *)g, x);
    check_close("d/dx vs analytic", dg, cos(x) * x + sin(x), TOL_AD);
    int sin_logged = 0;
    for (int k = 0; k < logged && k < 16; k++)
      if (!strcmp(log_op[k], "call") && strstr(log_callee[k], "sin")) {
        sin_logged++;
        check_close("sin adjoint", log_grad[k], x, TOL_AD);
      }
    check_close("sin call logged once", sin_logged, 1, 0);
  }
  return check_report();
}
