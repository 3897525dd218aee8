// cpp_invoke_pairs.cpp: calls that may throw (invokes), to a function kept
// as a call (`--no-inline`: its own augmented forward and reverse
// functions), from two branches that continue in the same block. The
// reverse sweep of each invoke runs along its own normal edge; a
// `simplifycfg` after preprocessing (checkpoint outlining under
// `--cache-budget`, mixed mode's clean-up) used to fold those edges into
// the shared block, and the reverse calls were left out: every adjoint
// the callee passes on stayed zero, silently (-O0: 20 of 20 checks
// failed). With -fno-exceptions the same code without the throw. Checked: the gradient
// against the analytic one and central differences, for both branches.
// enz-args: --no-inline --cache-budget 256
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include "enzyme.h"
#include "check.h"

struct Guard {
  double *p;
  ~Guard() { p[0] += 0.0; }
};

__attribute__((noinline)) void scale_sq(double *out, const double *x, int n, double c) {
#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)
  if (n > 1000)
    throw std::runtime_error("too large");
#else
  if (n > 1000)
    n = 1000;
#endif
  for (int i = 0; i < n; i++)
    out[i] = c * x[i] * x[i];
}

#define N 5

__attribute__((noinline)) double f(const double *x, int n) {
  double out[N], keep = 0;
  Guard g{&keep};
  if (x[0] > 0)
    scale_sq(out, x, n, 2.0);
  else
    scale_sq(out, x, n, 3.0);
  double s = 0;
  for (int i = 0; i < n; i++)
    s += out[i] * (i + 1);
  return s;
}

static double f_v(const double *x) { return f(x, N); }

int main() {
  for (int point = 0; point < 2; point++) {
    double x[N], dx[N] = {0};
    for (int i = 0; i < N; i++)
      x[i] = (point ? -1.0 : 1.0) * (0.5 + 0.25 * i);
    double c = point ? 3.0 : 2.0;
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, N);
    check_at("x[0] %s 0", point ? "<" : ">");
    for (int i = 0; i < N; i++) {
      check_close_i("dx vs analytic", i, dx[i], 2 * c * x[i] * (i + 1), TOL_AD);
      check_close_i("dx vs FD", i, dx[i], fdn(f_v, x, N, i), TOL_FD);
    }
  }
  return check_report();
}
