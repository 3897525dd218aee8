// cpp_repeated_scratch.cpp: the shapes of LULESH's material update in C++:
// a step function that allocates its scratch arrays with new[], repeats
// its equation of state `rep` times over them (analysis/repeated.rs: the
// earlier repetitions run as primal code), and releases them with
// delete[] (analysis/lazy_shadows.rs: their shadows, allocated by
// operator new[] in the reverse sweep of each step, must be released by
// operator delete[]), called once per step of a time loop.
//   e' = e - 0.5 c e   (c = 1/v - 1, clamped below at 0.01), p = e' (1 + c)
// Reverse and forward mode against dual numbers and central differences,
// with and without exceptions (a throw the data never triggers).
#include <cmath>
#include <cstring>
#include <stdexcept>
#include "enzyme.h"
#include "check.h"

extern "C" {
void __enzyme_autodiff_v(void *, ...);
double __enzyme_fwddiff_d(void *, ...);
}

enum { N = 6, T = 3 };

static void step(double *e, const double *v, int n, int rep) {
  double *comp = new double[n];
  double *e_new = new double[n];
  double *p_new = new double[n];
  for (int j = 0; j < rep; j++) {
    for (int i = 0; i < n; i++)
      comp[i] = 1.0 / v[i] - 1.0;
    for (int i = 0; i < n; i++) {
      e_new[i] = e[i] - 0.5 * comp[i] * e[i];
      if (e_new[i] < 0.01)
        e_new[i] = 0.01;
    }
    for (int i = 0; i < n; i++)
      p_new[i] = e_new[i] * (1.0 + comp[i]);
  }
  for (int i = 0; i < n; i++) {
#if defined(__cpp_exceptions)
    if (!std::isfinite(p_new[i]))
      throw std::runtime_error("pressure not finite");
#endif
    e[i] = e_new[i] + 0.1 * p_new[i];
  }
  delete[] p_new;
  delete[] e_new;
  delete[] comp;
}

// The size read at run time, so that the optimiser keeps the heap blocks.
static volatile int n_at_run_time = N;

__attribute__((noinline)) double run(double *e, const double *v, int rep) {
  int n = n_at_run_time;
  for (int t = 0; t < T; t++)
    step(e, v, n, rep);
  double s = 0;
  for (int i = 0; i < N; i++)
    s += e[i] * (i + 1);
  return s;
}

struct dual {
  double v, d;
};
static dual operator*(dual a, dual b) { return {a.v * b.v, a.v * b.d + a.d * b.v}; }
static dual operator+(dual a, dual b) { return {a.v + b.v, a.d + b.d}; }
static dual operator-(dual a, dual b) { return {a.v - b.v, a.d - b.d}; }
static dual cst(double c) { return {c, 0.0}; }

// d(run)/d(which == 0 ? e_k : v_k) written out once per step.
static double exact(const double *e0, const double *v0, int which, int k) {
  dual e[N], v[N];
  for (int i = 0; i < N; i++) {
    e[i] = {e0[i], which == 0 && i == k ? 1.0 : 0.0};
    v[i] = {v0[i], which == 1 && i == k ? 1.0 : 0.0};
  }
  for (int t = 0; t < T; t++)
    for (int i = 0; i < N; i++) {
      dual inv = {1.0 / v[i].v, -v[i].d / (v[i].v * v[i].v)};
      dual c = inv - cst(1.0);
      dual en = e[i] - cst(0.5) * c * e[i];
      if (en.v < 0.01)
        en = cst(0.01);
      dual p = en * (cst(1.0) + c);
      e[i] = en + cst(0.1) * p;
    }
  double s = 0;
  for (int i = 0; i < N; i++)
    s += e[i].d * (i + 1);
  return s;
}

static double E0[N], V0[N];
static int REP;
static double f_e(const double *a) {
  double e[N];
  std::memcpy(e, a, sizeof e);
  return run(e, V0, REP);
}
static double f_v(const double *a) {
  double e[N];
  std::memcpy(e, E0, sizeof e);
  return run(e, a, REP);
}

int main() {
  for (int i = 0; i < N; i++) {
    E0[i] = 0.4 + 0.25 * i;
    V0[i] = 0.7 + 0.15 * i;
  }
  E0[2] = 0.005; // clamped to 0.01 in the first step
  const int reps[] = {1, 3};
  for (int r = 0; r < 2; r++) {
    REP = reps[r];
    check_at("reverse, rep %d", REP);
    double e[N], de[N] = {0}, dv[N] = {0}, v[N];
    std::memcpy(e, E0, sizeof e);
    std::memcpy(v, V0, sizeof v);
    __enzyme_autodiff_v((void *)run, enzyme_dup, e, de, enzyme_dup, v, dv, enzyme_const, REP);
    double after[N];
    std::memcpy(after, E0, sizeof after);
    run(after, V0, REP);
    for (int i = 0; i < N; i++) {
      check_close_i("e after the gradient", i, e[i], after[i], TOL_AD);
      check_close_i("de vs exact", i, de[i], exact(E0, V0, 0, i), TOL_AD);
      check_close_i("dv vs exact", i, dv[i], exact(E0, V0, 1, i), TOL_AD);
      check_close_i("de vs FD", i, de[i], fdn(f_e, E0, N, i), TOL_FD);
      check_close_i("dv vs FD", i, dv[i], fdn(f_v, V0, N, i), TOL_FD);
    }
    check_at("forward, rep %d", REP);
    for (int i = 0; i < N; i++) {
      double te[N] = {0}, tv[N] = {0};
      tv[i] = 1.0;
      std::memcpy(e, E0, sizeof e);
      double d = __enzyme_fwddiff_d((void *)run, enzyme_dup, e, te, enzyme_dup, v, tv,
                                    enzyme_const, REP);
      check_close_i("tangent along v_i vs exact", i, d, exact(E0, V0, 1, i), TOL_AD);
    }
  }
  return check_report();
}
