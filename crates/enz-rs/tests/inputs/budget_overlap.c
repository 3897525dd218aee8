/* Input of explain.rs's overlap test: a time loop followed by `*out = s`
 * and a loop reading tmp, so the store is not the gradient's last (not
 * deferred); under --cache-budget 1 the loop is versioned on a run-time
 * overlap check. `./exe separate` passes a separate out: the checkpointed
 * form runs and its caches stay under the budget (nothing on stderr);
 * `./exe aliased` passes out = &u[0], which the loop reads: the plain loop
 * runs, its caches pass the budget, and the gradient says so once.
 * `./exe split-separate` and `./exe split-aliased`: the same through a
 * split pair (__enzyme_augmentfwd, then __enzyme_reverse with the tape),
 * which makes `*out = s` where the primal does; the line is written by
 * the augmented forward call.
 * `./exe separate N T`: other sizes (for measuring peak memory). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "enzyme.h"

double heat(double *u, double *tmp, int n, int T, double *out) {
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < n - 1; i++)
      tmp[i] = u[i] + 0.1 * (u[i - 1] - 2 * u[i] + u[i + 1]) - 0.01 * u[i] * u[i] * u[i];
    for (int i = 1; i < n - 1; i++)
      u[i] = tmp[i];
  }
  double s = 0;
  for (int i = 0; i < n; i++)
    s += u[i] * u[i];
  *out = s;
  double r = 0;
  for (int i = 1; i < n - 1; i++)
    r += tmp[i];
  return r;
}

/* heat's result through a pointer, for the split pair. */
void heat_to(double *u, double *tmp, int n, int T, double *out, double *r) {
  *r = heat(u, tmp, n, T, out);
}
void *__enzyme_augmentfwd(void *, ...);
void __enzyme_reverse_v(void *, ...);

int main(int argc, char **argv) {
  int N = argc > 3 ? atoi(argv[2]) : 1000, T = argc > 3 ? atoi(argv[3]) : 400;
  double *u = calloc(N, 8), *du = calloc(N, 8), *tmp = calloc(N, 8), *dtmp = calloc(N, 8);
  const char *how = argc > 1 ? argv[1] : "separate";
  int split = strncmp(how, "split-", 6) == 0;
  int aliased = strcmp(how + (split ? 6 : 0), "aliased") == 0;
  double out = 0, dout = 1;
  for (int i = 0; i < N; i++)
    u[i] = 0.1 + 0.001 * i, du[i] = 0, tmp[i] = 0, dtmp[i] = 0;
  double *o = aliased ? &u[0] : &out, *d_o = aliased ? &du[0] : &dout;
  *d_o = 1;
  if (split) {
    double r = 0, dr = 0;
    void *tape = __enzyme_augmentfwd((void *)heat_to, enzyme_dup, u, du, enzyme_dup, tmp, dtmp,
                                     enzyme_const, N, enzyme_const, T, enzyme_dup, o, d_o,
                                     enzyme_dup, &r, &dr);
    dr = 1;
    __enzyme_reverse_v((void *)heat_to, enzyme_dup, u, du, enzyme_dup, tmp, dtmp, enzyme_const, N,
                       enzyme_const, T, enzyme_dup, o, d_o, enzyme_dup, &r, &dr, tape);
  } else {
    __enzyme_autodiff((void *)heat, enzyme_dup, u, du, enzyme_dup, tmp, dtmp, enzyme_const, N,
                      enzyme_const, T, enzyme_dup, o, d_o);
  }
  printf("du[1] = %.17g du[N/2] = %.17g\n", du[1], du[N / 2]);
  return 0;
}
