/* bench/checkpoint.c: the heat equation of the checkpointing benchmark
 * (scripts/bench-checkpoint.sh). n cells, T explicit Euler steps in place
 * through a scratch row, fixed ends:
 *   v_i = u_i + c (u_{i-1} - 2 u_i + u_{i+1}) - d u_i^3,   u_i <- v_i
 *   f(u0) = sum_i w_i sin(u_T,i)
 *
 *   checkpoint primal N T          time of f
 *   checkpoint grad N T OUT        time of df/du0 (one call), written to OUT
 *                                  (doubles); checked first against
 *                                  central differences at 3 cells
 *   checkpoint compare A B         max |a - b| / max |b| over two gradients
 *
 * Build with -DNO_AD for a program without the gradient. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

#define C 0.2
#define D 0.05

__attribute__((noinline)) double heat(double *u, double *tmp, int n, int T) {
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < n - 1; i++)
      tmp[i] = u[i] + C * (u[i - 1] - 2.0 * u[i] + u[i + 1]) - D * u[i] * u[i] * u[i];
    for (int i = 1; i < n - 1; i++)
      u[i] = tmp[i];
  }
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += (1.0 + 1.0 / (1.0 + i)) * sin(u[i]);
  return s;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

static void init(double *u, int n) {
  for (int i = 0; i < n; i++)
    u[i] = 0.5 + 0.3 * sin(0.01 * i);
}

static double primal_at(const double *u0, int n, int T, double *u, double *tmp) {
  memcpy(u, u0, sizeof(double) * n);
  memset(tmp, 0, sizeof(double) * n);
  return heat(u, tmp, n, T);
}

int main(int argc, char **argv) {
  if (argc == 4 && strcmp(argv[1], "compare") == 0) {
    FILE *fa = fopen(argv[2], "rb"), *fb = fopen(argv[3], "rb");
    if (!fa || !fb)
      return 2;
    double a, b, worst = 0.0, scale = 0.0;
    long n = 0;
    while (fread(&a, sizeof a, 1, fa) == 1 && fread(&b, sizeof b, 1, fb) == 1) {
      worst = fmax(worst, fabs(a - b));
      scale = fmax(scale, fabs(b));
      n++;
    }
    printf("%ld values, max |a - b| / max |b| = %.3g\n", n, scale > 0 ? worst / scale : worst);
    return 0;
  }
  if (argc < 4)
    return 2;
  int n = atoi(argv[2]), T = atoi(argv[3]);
  double *u0 = malloc(sizeof(double) * n), *u = malloc(sizeof(double) * n);
  double *tmp = malloc(sizeof(double) * n);
  init(u0, n);
  if (strcmp(argv[1], "primal") == 0) {
    double t0 = now();
    double f = primal_at(u0, n, T, u, tmp);
    printf("primal %.3f s (f = %.12g)\n", now() - t0, f);
    return 0;
  }
#ifndef NO_AD
  if (strcmp(argv[1], "grad") == 0 && argc == 5) {
    double *du = calloc((size_t)n, sizeof(double)), *dtmp = calloc((size_t)n, sizeof(double));
    memcpy(u, u0, sizeof(double) * n);
    memset(tmp, 0, sizeof(double) * n);
    double t0 = now();
    __enzyme_autodiff((void *)heat, enzyme_dup, u, du, enzyme_dup, tmp, dtmp, enzyme_const, n,
                      enzyme_const, T);
    double t = now() - t0;
    /* Central differences at three cells (the run above changed u). */
    for (int k = 0; k < 3; k++) {
      int i = 1 + k * (n - 3) / 2;
      double keep = u0[i], h = 1e-6 * (1.0 + fabs(keep));
      u0[i] = keep + h;
      double hi = primal_at(u0, n, T, u, tmp);
      u0[i] = keep - h;
      double lo = primal_at(u0, n, T, u, tmp);
      u0[i] = keep;
      double fd = (hi - lo) / (2.0 * h);
      if (!(fabs(du[i] - fd) <= 1e-5 * (1.0 + fabs(fd)))) {
        fprintf(stderr, "gradient wrong at %d: %.12g, central differences %.12g\n", i, du[i], fd);
        return 1;
      }
    }
    FILE *out = fopen(argv[4], "wb");
    if (!out || fwrite(du, sizeof(double), (size_t)n, out) != (size_t)n)
      return 2;
    fclose(out);
    printf("gradient %.3f s (checked against central differences at 3 cells)\n", t);
    return 0;
  }
#endif
  return 2;
}
