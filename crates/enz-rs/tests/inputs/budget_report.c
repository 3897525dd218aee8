/* Input of explain.rs's budget test: a time loop whose stores go through
 * a permutation, so checkpointing cannot bound its caches; under
 * --cache-budget 1 each gradient call caches several MB, and the gradient
 * says so on stderr, once per process. */
#include <stdio.h>
#include <stdlib.h>
#include "enzyme.h"

double scattered(double *u, const int *perm, int n, int T) {
  for (int t = 0; t < T; t++)
    for (int i = 0; i < n; i++)
      u[perm[i]] = 0.5 * u[perm[i]] + 0.25 * u[i] * u[i];
  double s = 0;
  for (int i = 0; i < n; i++)
    s += u[i];
  return s;
}

int main(void) {
  enum { N = 1000, T = 400 };
  static double u[N], du[N];
  static int perm[N];
  for (int i = 0; i < N; i++)
    perm[i] = (i * 7) % N;
  for (int call = 0; call < 2; call++) {
    for (int i = 0; i < N; i++)
      u[i] = 0.1 + 0.001 * i, du[i] = 0;
    __enzyme_autodiff((void *)scattered, enzyme_dup, u, du, enzyme_const, perm, enzyme_const, N,
                      enzyme_const, T);
  }
  printf("du[0] = %g\n", du[0]);
  return 0;
}
