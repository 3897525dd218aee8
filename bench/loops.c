/*
 * bench/loops.c -- gradient cost of loop kernels: time of the gradient
 * (one __enzyme_autodiff call, which runs the forward and the reverse sweep)
 * over time of the primal, for five kernels of about 10^6 elements each:
 *
 *   sumsq      sum_i x_i^2                                   n = 10^6
 *   pow        r = 1; r *= x, n times (x scalar)             n = 10^6
 *   logsumexp  m + log sum_i exp(x_i - m), m = max_i x_i     n = 10^6
 *   logreg     mean_i log(1 + exp(-y_i X_i . w)), grad w.r.t. w
 *                                                            m = 10^4 x d = 100
 *   mlp        0.5/B sum_b |W2 tanh(W1 x_b) - t_b|^2, grad w.r.t. W1 and W2
 *                                                            B = 10^4 x D = 100,
 *                                                            H = 16, O = 4
 *
 * Not a test: it prints a table. Before timing a kernel it checks the
 * gradient against central finite differences at a few random coordinates
 * and skips the timing of a wrong one; the exit status is 1 if any check
 * failed.
 *
 * Each timing: calibrated so that one sample (reps calls) takes >= 50 ms,
 * then the median over 7 samples, per call (CLOCK_MONOTONIC); primal and
 * gradient samples alternate, so that both see the same machine load.
 *
 * Build: scripts/bench-loops.sh (clang -O2 -> bitcode -> enz-rs -> link).
 * -DNO_AD replaces every __enzyme_autodiff call by a hand-written gradient
 * (the baseline a person would write): same harness, no tool needed.
 *
 * Usage: loops [--quick] [KERNEL...]   (--quick: >= 10 ms samples, 5 of them)
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "enzyme.h"

void __enzyme_autodiff_v(void *, ...);

#define NOINLINE __attribute__((noinline))

/* ------------------------------------------------------------------ */
/* Kernels (the primal functions).                                     */
/* ------------------------------------------------------------------ */

NOINLINE double sumsq(const double *x, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += x[i] * x[i];
  return s;
}

NOINLINE double powloop(double x, int n) {
  double r = 1.0;
  for (int i = 0; i < n; i++)
    r *= x;
  return r;
}

NOINLINE double logsumexp(const double *x, int n) {
  double m = x[0], s = 0.0;
  for (int i = 1; i < n; i++)
    if (x[i] > m)
      m = x[i];
  for (int i = 0; i < n; i++)
    s += exp(x[i] - m);
  return m + log(s);
}

NOINLINE double logreg(const double *w, const double *X, const double *y,
                       int m, int d) {
  double loss = 0.0;
  for (int i = 0; i < m; i++) {
    double z = 0.0;
    for (int j = 0; j < d; j++)
      z += X[(size_t)i * d + j] * w[j];
    loss += log1p(exp(-y[i] * z));
  }
  return loss / m;
}

#define HMAX 64
#define OMAX 16

NOINLINE double mlp(const double *W1, const double *W2, const double *X,
                    const double *T, int B, int D, int H, int O) {
  double loss = 0.0;
  for (int b = 0; b < B; b++) {
    const double *x = X + (size_t)b * D;
    double h[HMAX];
    for (int k = 0; k < H; k++) {
      double a = 0.0;
      for (int j = 0; j < D; j++)
        a += W1[k * D + j] * x[j];
      h[k] = tanh(a);
    }
    for (int o = 0; o < O; o++) {
      double v = 0.0;
      for (int k = 0; k < H; k++)
        v += W2[o * H + k] * h[k];
      double e = v - T[(size_t)b * O + o];
      loss += 0.5 * e * e;
    }
  }
  return loss / B;
}

/* ------------------------------------------------------------------ */
/* Hand-written gradients (-DNO_AD): what the AD calls are compared    */
/* with. Each accumulates into its shadow arguments like AD does.      */
/* ------------------------------------------------------------------ */
#ifdef NO_AD
NOINLINE void sumsq_grad(const double *x, double *dx, int n) {
  for (int i = 0; i < n; i++)
    dx[i] += 2.0 * x[i];
}

/* forward mode in one pass: the natural hand-written derivative */
NOINLINE double powloop_grad(double x, int n) {
  double r = 1.0, dr = 0.0;
  for (int i = 0; i < n; i++) {
    dr = dr * x + r;
    r *= x;
  }
  return dr;
}

NOINLINE void logsumexp_grad(const double *x, double *dx, int n) {
  double m = x[0], s = 0.0;
  for (int i = 1; i < n; i++)
    if (x[i] > m)
      m = x[i];
  for (int i = 0; i < n; i++)
    s += exp(x[i] - m);
  double inv = 1.0 / s;
  for (int i = 0; i < n; i++)
    dx[i] += exp(x[i] - m) * inv;
}

NOINLINE void logreg_grad(const double *w, double *dw, const double *X,
                          const double *y, int m, int d) {
  for (int i = 0; i < m; i++) {
    const double *xi = X + (size_t)i * d;
    double z = 0.0;
    for (int j = 0; j < d; j++)
      z += xi[j] * w[j];
    double t = -y[i] * z;
    double g = -y[i] / (1.0 + exp(-t)) / m; /* d loss_i / dz, / m */
    for (int j = 0; j < d; j++)
      dw[j] += g * xi[j];
  }
}

NOINLINE void mlp_grad(const double *W1, double *dW1, const double *W2,
                       double *dW2, const double *X, const double *T, int B,
                       int D, int H, int O) {
  for (int b = 0; b < B; b++) {
    const double *x = X + (size_t)b * D;
    double h[HMAX], e[OMAX], dh[HMAX];
    for (int k = 0; k < H; k++) {
      double a = 0.0;
      for (int j = 0; j < D; j++)
        a += W1[k * D + j] * x[j];
      h[k] = tanh(a);
      dh[k] = 0.0;
    }
    for (int o = 0; o < O; o++) {
      double v = 0.0;
      for (int k = 0; k < H; k++)
        v += W2[o * H + k] * h[k];
      e[o] = (v - T[(size_t)b * O + o]) / B;
    }
    for (int o = 0; o < O; o++)
      for (int k = 0; k < H; k++) {
        dW2[o * H + k] += e[o] * h[k];
        dh[k] += W2[o * H + k] * e[o];
      }
    for (int k = 0; k < H; k++) {
      double da = dh[k] * (1.0 - h[k] * h[k]);
      for (int j = 0; j < D; j++)
        dW1[k * D + j] += da * x[j];
    }
  }
}
#endif

/* ------------------------------------------------------------------ */
/* Problem data and the calls being timed. Each run_* function names   */
/* its kernel directly at the __enzyme_autodiff call site.             */
/* ------------------------------------------------------------------ */

typedef struct {
  int n, m, d, B, D, H, O;
  double x0;          /* pow: the point */
  double *x, *dx;     /* sumsq, logsumexp */
  double *w, *dw;     /* logreg */
  double *X, *y;      /* logreg and mlp inputs; y: labels or targets */
  double *W1, *dW1, *W2, *dW2;
  double out;         /* pow: the returned derivative */
} problem;

static volatile double sink;

static void run_sumsq(problem *p) { sink = sumsq(p->x, p->n); }
static void grad_sumsq(problem *p) {
#ifdef NO_AD
  sumsq_grad(p->x, p->dx, p->n);
#else
  __enzyme_autodiff_v((void *)sumsq, enzyme_dup, p->x, p->dx, enzyme_const, p->n);
#endif
}

static void run_pow(problem *p) { sink = powloop(p->x0, p->n); }
static void grad_pow(problem *p) {
#ifdef NO_AD
  p->out = powloop_grad(p->x0, p->n);
#else
  p->out = __enzyme_autodiff((void *)powloop, enzyme_out, p->x0, enzyme_const, p->n);
#endif
  sink = p->out;
}

static void run_lse(problem *p) { sink = logsumexp(p->x, p->n); }
static void grad_lse(problem *p) {
#ifdef NO_AD
  logsumexp_grad(p->x, p->dx, p->n);
#else
  __enzyme_autodiff_v((void *)logsumexp, enzyme_dup, p->x, p->dx, enzyme_const, p->n);
#endif
}

static void run_logreg(problem *p) { sink = logreg(p->w, p->X, p->y, p->m, p->d); }
static void grad_logreg(problem *p) {
#ifdef NO_AD
  logreg_grad(p->w, p->dw, p->X, p->y, p->m, p->d);
#else
  __enzyme_autodiff_v((void *)logreg, enzyme_dup, p->w, p->dw, enzyme_const, p->X,
                      enzyme_const, p->y, enzyme_const, p->m, enzyme_const, p->d);
#endif
}

static void run_mlp(problem *p) {
  sink = mlp(p->W1, p->W2, p->X, p->y, p->B, p->D, p->H, p->O);
}
static void grad_mlp(problem *p) {
#ifdef NO_AD
  mlp_grad(p->W1, p->dW1, p->W2, p->dW2, p->X, p->y, p->B, p->D, p->H, p->O);
#else
  __enzyme_autodiff_v((void *)mlp, enzyme_dup, p->W1, p->dW1, enzyme_dup, p->W2,
                      p->dW2, enzyme_const, p->X, enzyme_const, p->y, enzyme_const,
                      p->B, enzyme_const, p->D, enzyme_const, p->H, enzyme_const,
                      p->O);
#endif
}

/* primal value as a function of the problem (for the FD) */
static double eval_sumsq(problem *p) { return sumsq(p->x, p->n); }
static double eval_pow(problem *p) { return powloop(p->x0, p->n); }
static double eval_lse(problem *p) { return logsumexp(p->x, p->n); }
static double eval_logreg(problem *p) { return logreg(p->w, p->X, p->y, p->m, p->d); }
static double eval_mlp(problem *p) {
  return mlp(p->W1, p->W2, p->X, p->y, p->B, p->D, p->H, p->O);
}

/* ------------------------------------------------------------------ */
/* Harness                                                             */
/* ------------------------------------------------------------------ */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rng_u64(void) { /* xorshift64* */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 0x2545f4914f6cdd1dull;
}
static double rng_uniform(double lo, double hi) {
  return lo + (hi - lo) * (double)(rng_u64() >> 11) * 0x1.0p-53;
}
static int rng_index(int n) { return (int)(rng_u64() % (uint64_t)n); }

static double *alloc_doubles(size_t n) {
  double *p = (double *)calloc(n, sizeof(double));
  if (!p) {
    fprintf(stderr, "out of memory (%zu doubles)\n", n);
    exit(2);
  }
  return p;
}

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double g_min_sample_s = 0.05; /* >= 50 ms per sample */
static int g_samples = 7;

/* Calls per sample so that one sample of fn(p) takes >= g_min_sample_s. */
static long calibrate(void (*fn)(problem *), problem *p) {
  long reps = 1;
  double t;
  fn(p); /* warm-up */
  for (;;) { /* grow reps until a batch takes >= 1/4 sample */
    double t0 = now_s();
    for (long r = 0; r < reps; r++) {
      fn(p);
      __asm__ volatile("" ::: "memory");
    }
    t = now_s() - t0;
    if (t >= 0.25 * g_min_sample_s)
      break;
    reps *= 4;
  }
  reps = (long)ceil(reps * g_min_sample_s / t);
  return reps < 1 ? 1 : reps;
}

/* Seconds per call of one sample of reps calls. */
static double sample(void (*fn)(problem *), problem *p, long reps) {
  double t0 = now_s();
  for (long r = 0; r < reps; r++) {
    fn(p);
    __asm__ volatile("" ::: "memory");
  }
  return (now_s() - t0) / reps;
}

/* One gradient coordinate checked by central differences: *slot is the
 * input, g the gradient entry, gmax the largest |gradient| entry. */
static int fd_ok(const char *name, const char *what, int idx,
                 double (*eval)(problem *), problem *p, double *slot, double h,
                 double g, double gmax, double *worst) {
  double v = *slot, step, fp, fm, fd, err, tol;
  *slot = v + h;
  step = *slot;
  fp = eval(p);
  *slot = v - h;
  step -= *slot;
  fm = eval(p);
  *slot = v;
  fd = (fp - fm) / step;
  err = fabs(g - fd);
  tol = 1e-4 * (fabs(fd) + 1e-2 * gmax);
  if (!(err <= tol)) {
    printf("FD CHECK FAILED: %s %s[%d]: gradient %.10g, finite differences %.10g "
           "(err %.3g, tol %.3g)\n",
           name, what, idx, g, fd, err, tol);
    return 0;
  }
  if (err / tol > *worst)
    *worst = err / tol;
  return 1;
}

static double max_abs(const double *v, size_t n) {
  double m = 0.0;
  for (size_t i = 0; i < n; i++)
    if (fabs(v[i]) > m)
      m = fabs(v[i]);
  return m;
}

#define NCHECK 3

/* Computes one gradient from zero shadows and checks NCHECK coordinates
 * of each active array against FD. Returns 1 if all agree. */
static int check_kernel(const char *name, problem *p, double *worst) {
  int ok = 1;
  *worst = 0.0;
  if (!strcmp(name, "sumsq")) {
    memset(p->dx, 0, (size_t)p->n * sizeof(double));
    grad_sumsq(p);
    double gmax = max_abs(p->dx, (size_t)p->n);
    for (int c = 0; c < NCHECK; c++) {
      int i = rng_index(p->n);
      ok &= fd_ok(name, "x", i, eval_sumsq, p, &p->x[i], 1e-2, p->dx[i], gmax, worst);
    }
  } else if (!strcmp(name, "pow")) {
    grad_pow(p);
    double g = p->out, want = p->n * pow(p->x0, p->n - 1);
    ok &= fd_ok(name, "x", 0, eval_pow, p, &p->x0, 1e-9, g, fabs(g), worst);
    if (!(fabs(g - want) <= 1e-6 * fabs(want))) {
      printf("CHECK FAILED: pow: gradient %.10g, n x^(n-1) = %.10g\n", g, want);
      ok = 0;
    }
  } else if (!strcmp(name, "logsumexp")) {
    memset(p->dx, 0, (size_t)p->n * sizeof(double));
    grad_lse(p);
    double gmax = max_abs(p->dx, (size_t)p->n), sum = 0.0;
    for (int i = 0; i < p->n; i++)
      sum += p->dx[i];
    for (int c = 0; c < NCHECK; c++) {
      int i = rng_index(p->n);
      ok &= fd_ok(name, "x", i, eval_lse, p, &p->x[i], 1e-2, p->dx[i], gmax, worst);
    }
    /* the softmax sums to one; the argmax's share goes through max too */
    if (!(fabs(sum - 1.0) <= 1e-9)) {
      printf("CHECK FAILED: logsumexp: gradient sums to %.15g, not 1\n", sum);
      ok = 0;
    }
  } else if (!strcmp(name, "logreg")) {
    memset(p->dw, 0, (size_t)p->d * sizeof(double));
    grad_logreg(p);
    double gmax = max_abs(p->dw, (size_t)p->d);
    for (int c = 0; c < NCHECK; c++) {
      int j = rng_index(p->d);
      ok &= fd_ok(name, "w", j, eval_logreg, p, &p->w[j], 1e-4, p->dw[j], gmax, worst);
    }
  } else if (!strcmp(name, "mlp")) {
    size_t n1 = (size_t)p->H * p->D, n2 = (size_t)p->O * p->H;
    memset(p->dW1, 0, n1 * sizeof(double));
    memset(p->dW2, 0, n2 * sizeof(double));
    grad_mlp(p);
    double g1 = max_abs(p->dW1, n1), g2 = max_abs(p->dW2, n2);
    for (int c = 0; c < NCHECK; c++) {
      int i = rng_index((int)n1), j = rng_index((int)n2);
      ok &= fd_ok(name, "W1", i, eval_mlp, p, &p->W1[i], 1e-5, p->dW1[i], g1, worst);
      ok &= fd_ok(name, "W2", j, eval_mlp, p, &p->W2[j], 1e-5, p->dW2[j], g2, worst);
    }
  }
  return ok;
}

typedef struct {
  const char *name;
  void (*primal)(problem *);
  void (*grad)(problem *);
} kernel;

static const kernel kernels[] = {
    {"sumsq", run_sumsq, grad_sumsq},
    {"pow", run_pow, grad_pow},
    {"logsumexp", run_lse, grad_lse},
    {"logreg", run_logreg, grad_logreg},
    {"mlp", run_mlp, grad_mlp},
};
#define NKERNELS (int)(sizeof kernels / sizeof kernels[0])

/* Median seconds per call of the primal and of the gradient, their samples
 * interleaved so that both see the same machine load. */
static void time_pair(const kernel *kn, problem *p, double *tp, double *tg) {
  long rp = calibrate(kn->primal, p), rg = calibrate(kn->grad, p);
  double sp[32], sg[32];
  for (int s = 0; s < g_samples; s++) {
    sp[s] = sample(kn->primal, p, rp);
    sg[s] = sample(kn->grad, p, rg);
  }
  qsort(sp, (size_t)g_samples, sizeof(double), cmp_double);
  qsort(sg, (size_t)g_samples, sizeof(double), cmp_double);
  *tp = sp[g_samples / 2];
  *tg = sg[g_samples / 2];
}

static void setup(const char *name, problem *p, char *size, size_t size_len) {
  memset(p, 0, sizeof *p);
  if (!strcmp(name, "sumsq") || !strcmp(name, "logsumexp")) {
    p->n = 1000000;
    p->x = alloc_doubles((size_t)p->n);
    p->dx = alloc_doubles((size_t)p->n);
    for (int i = 0; i < p->n; i++)
      p->x[i] = !strcmp(name, "sumsq") ? rng_uniform(-1, 1) : rng_uniform(-3, 3);
    snprintf(size, size_len, "n=%d", p->n);
  } else if (!strcmp(name, "pow")) {
    p->n = 1000000;
    p->x0 = 1.0 - 2e-7; /* x^n = e^-0.2: no overflow */
    snprintf(size, size_len, "n=%d", p->n);
  } else if (!strcmp(name, "logreg")) {
    p->m = 10000;
    p->d = 100;
    p->w = alloc_doubles((size_t)p->d);
    p->dw = alloc_doubles((size_t)p->d);
    p->X = alloc_doubles((size_t)p->m * p->d);
    p->y = alloc_doubles((size_t)p->m);
    for (int j = 0; j < p->d; j++)
      p->w[j] = rng_uniform(-0.3, 0.3);
    for (size_t k = 0; k < (size_t)p->m * p->d; k++)
      p->X[k] = rng_uniform(-1, 1);
    for (int i = 0; i < p->m; i++)
      p->y[i] = rng_u64() & 1 ? 1.0 : -1.0;
    snprintf(size, size_len, "m=%d d=%d", p->m, p->d);
  } else if (!strcmp(name, "mlp")) {
    p->B = 10000;
    p->D = 100;
    p->H = 16;
    p->O = 4;
    p->W1 = alloc_doubles((size_t)p->H * p->D);
    p->dW1 = alloc_doubles((size_t)p->H * p->D);
    p->W2 = alloc_doubles((size_t)p->O * p->H);
    p->dW2 = alloc_doubles((size_t)p->O * p->H);
    p->X = alloc_doubles((size_t)p->B * p->D);
    p->y = alloc_doubles((size_t)p->B * p->O);
    for (int k = 0; k < p->H * p->D; k++)
      p->W1[k] = rng_uniform(-0.15, 0.15);
    for (int k = 0; k < p->O * p->H; k++)
      p->W2[k] = rng_uniform(-0.5, 0.5);
    for (size_t k = 0; k < (size_t)p->B * p->D; k++)
      p->X[k] = rng_uniform(-1, 1);
    for (size_t k = 0; k < (size_t)p->B * p->O; k++)
      p->y[k] = rng_uniform(-1, 1);
    snprintf(size, size_len, "B=%d D=%d H=%d O=%d", p->B, p->D, p->H, p->O);
  }
}

static void teardown(problem *p) {
  free(p->x);
  free(p->dx);
  free(p->w);
  free(p->dw);
  free(p->X);
  free(p->y);
  free(p->W1);
  free(p->dW1);
  free(p->W2);
  free(p->dW2);
}

int main(int argc, char **argv) {
  int nsel = 0, failed = 0;
  const char *sel[16];
  for (int a = 1; a < argc; a++) {
    if (!strcmp(argv[a], "--quick")) {
      g_min_sample_s = 0.01;
      g_samples = 5;
    } else if (!strcmp(argv[a], "-h") || !strcmp(argv[a], "--help")) {
      printf("usage: %s [--quick] [KERNEL...]\nkernels:", argv[0]);
      for (int k = 0; k < NKERNELS; k++)
        printf(" %s", kernels[k].name);
      printf("\n");
      return 0;
    } else if (nsel < 16) {
      int known = 0;
      for (int k = 0; k < NKERNELS; k++)
        known |= !strcmp(argv[a], kernels[k].name);
      if (!known) {
        fprintf(stderr, "unknown kernel '%s' (try --help)\n", argv[a]);
        return 2;
      }
      sel[nsel++] = argv[a];
    }
  }

#ifdef NO_AD
  printf("gradient: hand-written (-DNO_AD)\n");
#else
  printf("gradient: __enzyme_autodiff (enz-rs)\n");
#endif
  printf("timing: median of %d samples, each >= %.0f ms\n\n", g_samples,
         1e3 * g_min_sample_s);
  printf("%-10s %-22s %12s %14s %8s  %s\n", "kernel", "size", "primal ms",
         "gradient ms", "ratio", "FD check (worst err/tol)");
  for (int k = 0; k < NKERNELS; k++) {
    const kernel *kn = &kernels[k];
    int want = nsel == 0;
    for (int s = 0; s < nsel; s++)
      want |= !strcmp(sel[s], kn->name);
    if (!want)
      continue;
    problem p;
    char size[64];
    double worst;
    setup(kn->name, &p, size, sizeof size);
    if (!check_kernel(kn->name, &p, &worst)) {
      printf("%-10s %-22s %12s %14s %8s  %s\n", kn->name, size, "-", "-", "-",
             "FAILED (not timed)");
      failed = 1;
      teardown(&p);
      continue;
    }
    double tp, tg;
    time_pair(kn, &p, &tp, &tg);
    printf("%-10s %-22s %12.3f %14.3f %8.2f  ok (%.2g)\n", kn->name, size,
           1e3 * tp, 1e3 * tg, tg / tp, worst);
    fflush(stdout);
    teardown(&p);
  }
  if (failed)
    printf("\nsome gradients were wrong\n");
  return failed;
}
