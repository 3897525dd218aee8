/* call_scratch_shadow.c: scratch blocks a function allocates, fills with
 * floats, reads and frees, called once per step of a time loop (LULESH's
 * per-cycle Allocate/Release arrays). Their shadows are allocated by the
 * reverse sweep where it undoes the free, and freed where it undoes the
 * allocation (analysis/lazy_shadows.rs), instead of living from the
 * forward sweep to the end: every shape must still give the right
 * derivative, also as an augmented/reverse pair (::no-inline) and through
 * the plugin and LTO:
 *   release   malloc, `if (p) free(p)` as LULESH's Release does, an error
 *             exit never taken, a memset then += accumulation;
 *   per_item  malloc/free inside a loop, one block per iteration;
 *   zeroed    calloc'd block read before written (zeros);
 *   escaping  the block's address stored in a struct the function reads
 *             it back through (its shadow must exist in the forward sweep).
 * Each step function is called T times on a state; the gradient of the
 * final sum against the analytic derivative and central differences, the
 * gradient taken twice (the second must equal the first), primal values
 * after it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

#define N 6
#define T 4

static void release(double **p) {
  if (*p != NULL) {
    free(*p);
    *p = NULL;
  }
}

/* u[i] <- u[i] + 0.1 * (w[i-1] + w[i+1]) with w = u^2 (ends fixed). */
__attribute__((noinline)) void step_release(double *u, int n) {
  double *w = malloc(sizeof(double) * n);
  double *acc = malloc(sizeof(double) * n);
  for (int i = 0; i < n; i++) {
    w[i] = u[i] * u[i];
    if (w[i] < 0) {
      fprintf(stderr, "negative square\n");
      exit(1);
    }
  }
  memset(acc, 0, sizeof(double) * n);
  for (int i = 1; i < n - 1; i++) {
    acc[i] += w[i - 1];
    acc[i] += w[i + 1];
  }
  for (int i = 1; i < n - 1; i++)
    u[i] += 0.1 * acc[i];
  release(&acc);
  release(&w);
}

/* u[i] <- u[i] * (1 + 0.05 * sin(u[i])) through a block per item. */
__attribute__((noinline)) void step_per_item(double *u, int n) {
  for (int i = 0; i < n; i++) {
    double *t = malloc(sizeof(double) * 2);
    t[0] = sin(u[i]);
    t[1] = 1.0 + 0.05 * t[0];
    u[i] *= t[1];
    free(t);
  }
}

/* u[i] <- u[i] + 0.2 * z[i] * u[i] with z from calloc (z[i] = 0 but the
 * first, which becomes u[0]). */
__attribute__((noinline)) void step_zeroed(double *u, int n) {
  double *z = calloc(n, sizeof(double));
  z[0] = u[0];
  for (int i = 0; i < n; i++)
    u[i] += 0.2 * z[i] * u[i];
  free(z);
}

struct holder {
  double *buf;
  int n;
};

/* u[i] <- u[i] + 0.1 * u[i]^2 through a block reached from a struct. */
__attribute__((noinline)) void step_escaping(double *u, int n) {
  struct holder h;
  h.buf = malloc(sizeof(double) * n);
  h.n = n;
  struct holder *volatile hp = &h;
  for (int i = 0; i < n; i++)
    hp->buf[i] = u[i] * u[i];
  for (int i = 0; i < hp->n; i++)
    u[i] += 0.1 * hp->buf[i];
  free(hp->buf);
}

typedef void (*step_fn)(double *, int);

static double run(step_fn f, double *u) {
  for (int t = 0; t < T; t++)
    f(u, N);
  double s = 0;
  for (int i = 0; i < N; i++)
    s += u[i] * (i + 1);
  return s;
}

__attribute__((noinline)) double run_release(double *u) { return run(step_release, u); }
__attribute__((noinline)) double run_per_item(double *u) { return run(step_per_item, u); }
__attribute__((noinline)) double run_zeroed(double *u) { return run(step_zeroed, u); }
__attribute__((noinline)) double run_escaping(double *u) { return run(step_escaping, u); }

/* The same T steps written out with forward-mode dual numbers: the exact
 * derivative of the sum along direction e_k. */
typedef struct {
  double v, d;
} dual;
static dual dmul(dual a, dual b) { return (dual){a.v * b.v, a.v * b.d + a.d * b.v}; }
static dual dadd(dual a, dual b) { return (dual){a.v + b.v, a.d + b.d}; }
static dual dsc(double c, dual a) { return (dual){c * a.v, c * a.d}; }
static dual dsin(dual a) { return (dual){sin(a.v), cos(a.v) * a.d}; }

static double exact(int which, const double *u0, int k) {
  dual u[N];
  for (int i = 0; i < N; i++)
    u[i] = (dual){u0[i], i == k ? 1.0 : 0.0};
  for (int t = 0; t < T; t++) {
    dual w[N], n[N];
    for (int i = 0; i < N; i++)
      w[i] = dmul(u[i], u[i]), n[i] = u[i];
    switch (which) {
    case 0:
      for (int i = 1; i < N - 1; i++)
        n[i] = dadd(u[i], dsc(0.1, dadd(w[i - 1], w[i + 1])));
      break;
    case 1:
      for (int i = 0; i < N; i++)
        n[i] = dmul(u[i], dadd((dual){1.0, 0.0}, dsc(0.05, dsin(u[i]))));
      break;
    case 2:
      n[0] = dadd(u[0], dsc(0.2, dmul(u[0], u[0])));
      break;
    default:
      for (int i = 0; i < N; i++)
        n[i] = dadd(u[i], dsc(0.1, w[i]));
    }
    memcpy(u, n, sizeof u);
  }
  double s = 0;
  for (int i = 0; i < N; i++)
    s += u[i].d * (i + 1);
  return s;
}

static double (*const runs[])(double *) = {run_release, run_per_item, run_zeroed, run_escaping};
/* One gradient call per function, each in a function of its own (one call
 * site with a function chosen at run time is not differentiable). */
__attribute__((noinline)) static void g_release(double *u, double *du) {
  __enzyme_autodiff_v((void *)run_release, enzyme_dup, u, du);
}
__attribute__((noinline)) static void g_per_item(double *u, double *du) {
  __enzyme_autodiff_v((void *)run_per_item, enzyme_dup, u, du);
}
__attribute__((noinline)) static void g_zeroed(double *u, double *du) {
  __enzyme_autodiff_v((void *)run_zeroed, enzyme_dup, u, du);
}
__attribute__((noinline)) static void g_escaping(double *u, double *du) {
  __enzyme_autodiff_v((void *)run_escaping, enzyme_dup, u, du);
}
static void (*const grads[])(double *, double *) = {g_release, g_per_item, g_zeroed, g_escaping};
static const char *const names[] = {"release", "per_item", "zeroed", "escaping"};
static int WHICH;
static double f_run(const double *a) {
  double u[N];
  memcpy(u, a, sizeof u);
  return runs[WHICH](u);
}

int main(void) {
  double u0[N];
  for (int i = 0; i < N; i++)
    u0[i] = 0.3 + 0.11 * i;
  for (WHICH = 0; WHICH < 4; WHICH++) {
    check_at("%s", names[WHICH]);
    double first[N];
    for (int round = 0; round < 2; round++) {
      double u[N], du[N] = {0};
      memcpy(u, u0, sizeof u);
      grads[WHICH](u, du);
      double after[N];
      memcpy(after, u0, sizeof after);
      runs[WHICH](after);
      for (int i = 0; i < N; i++) {
        check_close_i("u after the gradient", i, u[i], after[i], TOL_AD);
        check_close_i("du vs exact", i, du[i], exact(WHICH, u0, i), TOL_AD);
        check_close_i("du vs FD", i, du[i], fdn(f_run, u0, N, i), TOL_FD);
        if (round == 0)
          first[i] = du[i];
        else
          check_close_i("second gradient vs first", i, du[i], first[i], 0.0);
      }
    }
  }
  return check_report();
}
