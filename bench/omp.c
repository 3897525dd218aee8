/* bench/omp.c: OpenMP loops, their primal and their enz-rs gradient at 1
 * and 2 threads (scripts/bench-omp.sh): how the gradient's parallel
 * speed-up compares with the primal's.
 *   elementwise  s = sum_i sin(x_i) exp(-x_i^2 / 4), parallel for
 *                reduction(+:s), N = 2^22
 *   stencil      T = 20 explicit 1-D heat steps, each a parallel for over
 *                N = 2^20 cells, then sum u^2
 *   rows         y_i = tanh(sum_j a_ij x_j) over a 1024 x 1024 matrix
 *                (a_ij computed), then sum y_i: every thread reads every x_j
 * Each gradient is checked against central differences at two inputs
 * before anything is timed. */
#include <math.h>
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "enzyme.h"

void __enzyme_autodiff_v(void *, ...);

#define NE (1 << 22)
#define NS (1 << 20)
#define TS 20
#define NR 1024

double elementwise(const double *x, int n) {
  double s = 0.0;
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < n; i++)
    s += sin(x[i]) * exp(-0.25 * x[i] * x[i]);
  return s;
}

double stencil(const double *x, double *u, double *v, int n) {
  memcpy(u, x, sizeof(double) * n);
  for (int t = 0; t < TS; t++) {
#pragma omp parallel for
    for (int i = 1; i < n - 1; i++)
      v[i] = u[i] + 0.2 * (u[i - 1] - 2.0 * u[i] + u[i + 1]) - 0.01 * u[i] * u[i];
    v[0] = u[0];
    v[n - 1] = u[n - 1];
    double *w = u;
    u = v;
    v = w;
  }
  double s = 0.0;
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < n; i++)
    s += u[i] * u[i];
  return s;
}

double rows(const double *x, int n) {
  double s = 0.0;
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < n; i++) {
    double t = 0.0;
    for (int j = 0; j < n; j++)
      t += x[j] * (1.0 / (1.0 + i + 2 * j));
    s += tanh(t);
  }
  return s;
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

static double *xs, *dxs, *us, *vs, *dus, *dvs;

static double run_primal(int which) {
  switch (which) {
  case 0: return elementwise(xs, NE);
  case 1: return stencil(xs, us, vs, NS);
  default: return rows(xs, NR);
  }
}

static void run_grad(int which) {
  switch (which) {
  case 0:
    memset(dxs, 0, sizeof(double) * NE);
    __enzyme_autodiff_v((void *)elementwise, enzyme_dup, xs, dxs, enzyme_const, NE);
    break;
  case 1:
    memset(dxs, 0, sizeof(double) * NS);
    __enzyme_autodiff_v((void *)stencil, enzyme_dup, xs, dxs, enzyme_dup, us, dus, enzyme_dup, vs,
                      dvs, enzyme_const, NS);
    break;
  default:
    memset(dxs, 0, sizeof(double) * NR);
    __enzyme_autodiff_v((void *)rows, enzyme_dup, xs, dxs, enzyme_const, NR);
  }
}

static double best(int which, int grad, int reps) {
  double b = 1e30;
  for (int r = 0; r < reps; r++) {
    double t = now();
    if (grad)
      run_grad(which);
    else {
      volatile double s = run_primal(which);
      (void)s;
    }
    t = now() - t;
    if (t < b)
      b = t;
  }
  return b;
}

int main(void) {
  static const char *names[3] = {"elementwise", "stencil", "rows"};
  static const int sizes[3] = {NE, NS, NR};
  xs = malloc(sizeof(double) * NE);
  dxs = malloc(sizeof(double) * NE);
  us = malloc(sizeof(double) * NS);
  vs = malloc(sizeof(double) * NS);
  dus = calloc(NS, sizeof(double));
  dvs = calloc(NS, sizeof(double));
  int bad = 0;
  printf("| loop | n | primal 1 thr (ms) | primal 2 thr (ms) | primal speed-up | gradient 1 thr (ms) | gradient 2 thr (ms) | gradient speed-up | gradient / primal (1 thr) | speed-up ratio |\n");
  printf("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (int w = 0; w < 3; w++) {
    int n = sizes[w];
    for (int i = 0; i < n; i++)
      xs[i] = 0.5 * sin(0.001 * i) + 0.1;
    /* the gradient against central differences at two inputs */
    omp_set_num_threads(2);
    run_grad(w);
    for (int c = 0; c < 2; c++) {
      int k = c == 0 ? 1 : n / 2 + 3;
      double g = dxs[k], x0 = xs[k], h = 1e-5;
      xs[k] = x0 + h;
      double fp = run_primal(w);
      xs[k] = x0 - h;
      double fm = run_primal(w);
      xs[k] = x0;
      double fd = (fp - fm) / (2 * h);
      if (fabs(g - fd) > 1e-5 * (1 + fabs(fd))) {
        fprintf(stderr, "%s: gradient[%d] = %.12g, central differences %.12g\n", names[w], k, g, fd);
        bad = 1;
      }
    }
    double t[2][2];
    for (int th = 1; th <= 2; th++) {
      omp_set_num_threads(th);
      t[th - 1][0] = best(w, 0, 5);
      t[th - 1][1] = best(w, 1, 5);
    }
    double sp = t[0][0] / t[1][0], sg = t[0][1] / t[1][1];
    printf("| %s | %d | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |\n", names[w], n,
           1e3 * t[0][0], 1e3 * t[1][0], sp, 1e3 * t[0][1], 1e3 * t[1][1], sg, t[0][1] / t[0][0],
           sg / sp);
  }
  return bad;
}
