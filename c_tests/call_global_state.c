/* call_global_state.c: derivatives that flow through writable globals
 * between a function and the callees it calls out of line (the ::no-inline
 * trial, and callees of 500 or more instructions, which stay calls).
 * Activity is analysed one function at a time: a global written in a
 * callee and read by its caller (or the other way round) was inactive
 * memory in the function that did not write it, and the gradient lost
 * everything that went through it. The previous binary's ::no-inline
 * trials gave 0 for every derivative here (a silently wrong gradient).
 * Cases, each in reverse and forward mode against the analytic derivative
 * and central differences:
 *   out_of_callee  the callee writes G from x, the caller reads G;
 *   into_callee    the caller writes H from x, the callee reads H;
 *   chained        one callee writes G, a second reads G and writes H, the
 *                  caller reads H. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

#define N 4

double G[N], H[N];

__attribute__((noinline)) void fill_g(const double *x) {
  for (int i = 0; i < N; i++)
    G[i] = sin(x[i]) * x[i];
}

__attribute__((noinline)) double sum_sq_h(void) {
  double s = 0;
  for (int i = 0; i < N; i++)
    s += H[i] * H[i];
  return s;
}

__attribute__((noinline)) void g_to_h(void) {
  for (int i = 0; i < N; i++)
    H[i] = exp(0.5 * G[i]) + G[(i + 1) % N];
}

double out_of_callee(const double *x) {
  fill_g(x);
  double s = 0;
  for (int i = 0; i < N; i++)
    s += G[i] * G[i];
  return s;
}

double into_callee(const double *x) {
  for (int i = 0; i < N; i++)
    H[i] = x[i] * x[(i + 1) % N];
  return sum_sq_h();
}

double chained(const double *x) {
  fill_g(x);
  g_to_h();
  double s = 0;
  for (int i = 0; i < N; i++)
    s += cos(H[i]);
  return s;
}

/* The analytic gradients. */
static double g_of(double x) { return sin(x) * x; }
static double dg_of(double x) { return cos(x) * x + sin(x); }

static void grad_out_of_callee(const double *x, double *d) {
  for (int i = 0; i < N; i++)
    d[i] = 2 * g_of(x[i]) * dg_of(x[i]);
}

static void grad_into_callee(const double *x, double *d) {
  for (int i = 0; i < N; i++)
    d[i] = 0;
  for (int i = 0; i < N; i++) {
    int j = (i + 1) % N;
    double h = x[i] * x[j];
    d[i] += 2 * h * x[j];
    d[j] += 2 * h * x[i];
  }
}

static void grad_chained(const double *x, double *d) {
  double g[N], dh_dg_self[N], dl_dh[N];
  for (int i = 0; i < N; i++)
    g[i] = g_of(x[i]);
  for (int i = 0; i < N; i++) {
    double h = exp(0.5 * g[i]) + g[(i + 1) % N];
    dl_dh[i] = -sin(h);
    dh_dg_self[i] = 0.5 * exp(0.5 * g[i]);
  }
  for (int k = 0; k < N; k++) {
    /* g[k] enters H[k] (through exp) and H[k-1] (added). */
    double dl_dg = dl_dh[k] * dh_dg_self[k] + dl_dh[(k + N - 1) % N];
    d[k] = dl_dg * dg_of(x[k]);
  }
}

typedef double (*loss_fn)(const double *);

/* Inlined, so that each call site names its function to __enzyme_*. */
__attribute__((always_inline)) static inline void
check_case(const char *name, loss_fn f, void (*grad)(const double *, double *)) {
  double x[N] = {0.3, -0.7, 1.1, 0.45}, want[N];
  grad(x, want);
  double dx[N] = {0};
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx);
  for (int i = 0; i < N; i++) {
    check_at("%s reverse, d/dx[%d]", name, i);
    check_close("vs analytic", dx[i], want[i], TOL_AD);
    check_close("vs FD", dx[i], fdn(f, x, N, i), TOL_FD);
  }
  for (int i = 0; i < N; i++) {
    double v[N] = {0};
    v[i] = 1;
    double t = __enzyme_fwddiff((void *)f, enzyme_dup, x, v);
    check_at("%s forward, d/dx[%d]", name, i);
    check_close("vs analytic", t, want[i], TOL_AD);
  }
}

int main(void) {
  check_case("out_of_callee", out_of_callee, grad_out_of_callee);
  check_case("into_callee", into_callee, grad_into_callee);
  check_case("chained", chained, grad_chained);
  return check_report();
}
