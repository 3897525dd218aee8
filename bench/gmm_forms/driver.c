/*
 * driver.c -- times bench/gmm_forms/gmm_adbench.c's GMM objective and its
 * enz-rs gradient (least of 5 runs each), prints gradient/primal, and
 * checks 20 gradient entries (alphas, means, log-diagonal, lower triangle)
 * against central differences. Exit 1 when a check fails.
 *
 *   driver D K N
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef struct {
  double gamma;
  int m;
} Wishart;
void gmm_objective(int d, int k, int n, const double *alphas, const double *means,
                   const double *icf, const double *x, Wishart wishart, double *err);
extern int enzyme_const, enzyme_dup;
void __enzyme_autodiff(void *, ...);

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

static unsigned long long lcg = 1;
static double uniform(void) {
  lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
  return (double)(lcg >> 11) / 9007199254740992.0;
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: driver D K N\n");
    return 2;
  }
  int d = atoi(argv[1]), k = atoi(argv[2]), n = atoi(argv[3]);
  int icf_sz = d * (d + 1) / 2, np = k + k * d + k * icf_sz;
  double *p = malloc(np * sizeof(double)), *g = calloc(np, sizeof(double));
  double *x = malloc((size_t)n * d * sizeof(double));
  for (int i = 0; i < np; i++)
    p[i] = i < k + k * d ? uniform() : 0.1 * uniform();
  for (int i = 0; i < n * d; i++)
    x[i] = uniform();
  double *al = p, *me = p + k, *icf = p + k + k * d, *dal = g, *dme = g + k,
         *dicf = g + k + k * d;
  Wishart w = {1.0, 0};
  double err, derr, best_p = INFINITY, best_g = INFINITY;
  for (int r = 0; r < 5; r++) {
    double t0 = now();
    gmm_objective(d, k, n, al, me, icf, x, w, &err);
    double t1 = now();
    for (int i = 0; i < np; i++)
      g[i] = 0;
    derr = 1.0;
    __enzyme_autodiff((void *)gmm_objective, enzyme_const, d, enzyme_const, k, enzyme_const, n,
                      enzyme_dup, al, dal, enzyme_dup, me, dme, enzyme_dup, icf, dicf,
                      enzyme_const, x, enzyme_const, w, enzyme_dup, &err, &derr);
    double t2 = now();
    best_p = fmin(best_p, t1 - t0);
    best_g = fmin(best_g, t2 - t1);
  }
  int failed = 0;
  for (int c = 0; c < 20; c++) {
    int i = (int)((long long)c * (np - 1) / 19);
    double keep = p[i], h = 1e-6 * (1.0 + fabs(keep)), hi, lo;
    p[i] = keep + h;
    gmm_objective(d, k, n, al, me, icf, x, w, &hi);
    p[i] = keep - h;
    gmm_objective(d, k, n, al, me, icf, x, w, &lo);
    p[i] = keep;
    double fd = (hi - lo) / (2 * h);
    if (!(fabs(fd - g[i]) <= 1e-4 * (1.0 + fabs(fd)))) {
      fprintf(stderr, "gradient entry %d: enz-rs %.12g, FD %.12g\n", i, g[i], fd);
      failed = 1;
    }
  }
  printf("| d=%d K=%d n=%d | %.4f | %.4f | %.2f | %s |\n", d, k, n, best_p, best_g,
         best_g / best_p, failed ? "FAIL" : "ok (20 entries vs FD)");
  return failed;
}
