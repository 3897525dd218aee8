/* bench/mixed.c: the kernels of the mixed-mode benchmark
 * (scripts/bench-mixed.sh), elementwise loops over n x n doubles:
 *   hmlstm  the HM-LSTM cell update (COPY / UPDATE / FLUSH by the
 *           boundary detectors; 2 outputs by 6 inputs per element)
 *   chain   a chain of 20 pow / exp / log / sin / tanh steps per element
 *           (2 outputs by 3 inputs)
 *
 *   mixed primal KERNEL N      time of the primal (median of 5)
 *   mixed grad KERNEL N        time of the gradient (median of 5), after
 *                              checking it against central differences at
 *                              5 inputs
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

extern int enzyme_dup, enzyme_const;
void __enzyme_autodiff(void *, ...);

static double sg(double x) { return 1.0 / (1.0 + exp(-x)); }

__attribute__((noinline)) double hmlstm(const double *in, double *c, double *h, long n) {
  const double *f = in, *i = in + n, *o = in + 2 * n, *g = in + 3 * n, *c0 = in + 4 * n,
               *h0 = in + 5 * n, *z = in + 6 * n, *zb = in + 7 * n;
  for (long k = 0; k < n; k++) {
    double fk = f[k], ik = i[k], ok = o[k], gk = g[k], ck = c0[k], hk = h0[k];
    double zk = z[k], zbk = zb[k];
    double cn, hn;
    if (zk > 0.5) {
      cn = sg(ik) * tanh(gk);
      hn = sg(ok) * tanh(cn);
    } else if (zbk < 0.5) {
      cn = ck;
      hn = hk;
    } else {
      cn = sg(fk) * ck + sg(ik) * tanh(gk);
      hn = sg(ok) * tanh(cn);
    }
    c[k] = cn;
    h[k] = hn;
  }
  double s = 0.0;
  for (long k = 0; k < n; k++)
    s += c[k] + 0.5 * h[k];
  return s;
}

__attribute__((noinline)) double chain(const double *in, double *y, double *w, long n) {
  const double *x = in, *z = in + n;
  double a = in[2 * n];
  for (long k = 0; k < n; k++) {
    double zk = z[k];
    double v = x[k] + a * zk, mid;
    v = exp(0.1 * v); v = log(1.0 + v * v); v = pow(1.0 + v * v, 0.3); v = sin(v) + 1.5;
    v = tanh(v) + 1.1;
    v = exp(0.1 * v); v = log(1.0 + v * v); v = pow(1.0 + v * v, 0.3); v = sin(v) + 1.5;
    v = tanh(v) + 1.1;
    mid = v;
    v = exp(0.1 * v); v = log(1.0 + v * v); v = pow(1.0 + v * v, 0.3); v = sin(v) + 1.5;
    v = tanh(v) + 1.1;
    v = exp(0.1 * v); v = log(1.0 + v * v); v = pow(1.0 + v * v, 0.3); v = sin(v) + 1.5;
    v = tanh(v) + 1.1;
    y[k] = v;
    w[k] = v * zk + mid;
  }
  double s = 0.0;
  for (long k = 0; k < n; k++)
    s += y[k] + 0.5 * w[k];
  return s;
}

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

/* The gradient of each kernel (one call site each). */
__attribute__((noinline)) static void grad_chain(const double *in, double *din, double *o1,
                                                 double *d1, double *o2, double *d2, long n) {
  __enzyme_autodiff((void *)chain, enzyme_dup, in, din, enzyme_dup, o1, d1, enzyme_dup, o2, d2,
                    enzyme_const, n);
}
__attribute__((noinline)) static void grad_hmlstm(const double *in, double *din, double *o1,
                                                  double *d1, double *o2, double *d2, long n) {
  __enzyme_autodiff((void *)hmlstm, enzyme_dup, in, din, enzyme_dup, o1, d1, enzyme_dup, o2, d2,
                    enzyme_const, n);
}
static void gradient(int is_chain, const double *in, double *din, double *o1, double *d1,
                     double *o2, double *d2, long n) {
  (is_chain ? grad_chain : grad_hmlstm)(in, din, o1, d1, o2, d2, n);
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  if (argc != 4)
    return 2;
  int is_chain = strcmp(argv[2], "chain") == 0;
  long n = atol(argv[3]) * atol(argv[3]);
  long nin = is_chain ? 2 * n + 1 : 8 * n;
  double *in = malloc(sizeof(double) * nin), *din = calloc(nin, sizeof(double));
  double *o1 = malloc(sizeof(double) * n), *o2 = malloc(sizeof(double) * n);
  double *d1 = calloc(n, sizeof(double)), *d2 = calloc(n, sizeof(double));
  for (long k = 0; k < nin; k++)
    in[k] = 0.3 * sin(0.001 * k + 0.5 * (k % 7));
  if (!is_chain)
    for (long k = 0; k < n; k++) {
      in[6 * n + k] = (k % 3 == 0) ? 1.0 : 0.0;
      in[7 * n + k] = (k % 5 < 3) ? 1.0 : 0.0;
    }
  double (*prim)(const double *, double *, double *, long) = is_chain ? chain : hmlstm;
  int grad = strcmp(argv[1], "grad") == 0;
  if (grad) {
    memset(din, 0, sizeof(double) * nin);
    gradient(is_chain, in, din, o1, d1, o2, d2, n);
    for (int t = 0; t < 5; t++) {
      long k = (t * (nin - 1)) / 4;
      if (!is_chain && k >= 6 * n)
        k = 6 * n - 1 - t;
      double keep = in[k], h = 1e-6 * (1.0 + fabs(keep));
      in[k] = keep + h;
      double hi = prim(in, o1, o2, n);
      in[k] = keep - h;
      double lo = prim(in, o1, o2, n);
      in[k] = keep;
      double fd = (hi - lo) / (2.0 * h);
      /* The sum over n^2 elements rounds: allow for it. */
      double tol = 1e-5 * (1.0 + fabs(fd)) + 1e-15 * fabs(hi) / h;
      if (!(fabs(din[k] - fd) <= tol)) {
        fprintf(stderr, "gradient wrong at %ld: %.12g, central differences %.12g\n", k, din[k],
                fd);
        return 1;
      }
    }
  }
  double times[5];
  for (int r = 0; r < 5; r++) {
    memset(din, 0, sizeof(double) * nin);
    memset(d1, 0, sizeof(double) * n);
    memset(d2, 0, sizeof(double) * n);
    double t0 = now();
    if (grad)
      gradient(is_chain, in, din, o1, d1, o2, d2, n);
    else
      prim(in, o1, o2, n);
    times[r] = now() - t0;
  }
  qsort(times, 5, sizeof(double), cmp);
  printf("%s %.4f s\n", argv[1], times[2]);
  return 0;
}
