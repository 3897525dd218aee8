/* loop_index_forms.c: the same kind of reduction written with the loop
 * shapes C programs use, so the induction variable is not always
 * `for (int i = 0; i < n; i++)` (n = 37 and 2):
 *   down:   i = n-1 down to 0, s = 0.9 s + x_i^2    dx_i = 2 x_i 0.9^i
 *   stride: i = 1, 4, 7, ... < n, s += x_i x_(i-1)
 *   ptr:    a pointer walk p = x .. x+n, s += 2 sin(*p)   dx_i = 2 cos x_i
 *   gather: a 64-bit index, s += x_i x_(5i mod n)  (an indexed read)
 *   ulong:  an unsigned long trip count (an i64 const argument), starting at
 *           2, s += x_i x_(i-2)
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

static double down(double *x, int n) {
  double s = 0.0;
  for (int i = n - 1; i >= 0; i--)
    s = 0.9 * s + x[i] * x[i];
  return s;
}
static double stride(double *x, int n) {
  double s = 0.0;
  for (int i = 1; i < n; i += 3)
    s += x[i] * x[i - 1];
  return s;
}
static double ptr(double *x, int n) {
  double s = 0.0;
  for (double *p = x, *e = x + n; p != e; p++)
    s += 2.0 * sin(*p);
  return s;
}
static double gather(double *x, int n) {
  double s = 0.0;
  for (long i = 0; i < (long)n; i++)
    s += x[i] * x[(i * 5) % n];
  return s;
}
static double ulong_(double *x, unsigned long n) {
  double s = 0.0;
  for (unsigned long i = 2; i < n; i++)
    s += x[i] * x[i - 2];
  return s;
}
static double ulong_i(double *x, int n) { return ulong_(x, (unsigned long)n); }

#define N 37

static void down_grad(const double *x, int n, double *g) {
  for (int i = 0; i < n; i++)
    g[i] = 2.0 * x[i] * pow(0.9, i);
}
static void stride_grad(const double *x, int n, double *g) {
  for (int i = 0; i < n; i++)
    g[i] = 0.0;
  for (int i = 1; i < n; i += 3) {
    g[i] += x[i - 1];
    g[i - 1] += x[i];
  }
}
static void ptr_grad(const double *x, int n, double *g) {
  for (int i = 0; i < n; i++)
    g[i] = 2.0 * cos(x[i]);
}
static void gather_grad(const double *x, int n, double *g) {
  for (int i = 0; i < n; i++)
    g[i] = 0.0;
  for (int i = 0; i < n; i++) {
    g[i] += x[(i * 5) % n];
    g[(i * 5) % n] += x[i];
  }
}
static void ulong_grad(const double *x, int n, double *g) {
  for (int i = 0; i < n; i++)
    g[i] = 0.0;
  for (int i = 2; i < n; i++) {
    g[i] += x[i - 2];
    g[i - 2] += x[i];
  }
}

#ifdef NO_AD
static void emul(void (*grad)(const double *, int, double *), double *x,
                 double *dx, int n) {
  double g[N];
  grad(x, n, g);
  for (int i = 0; i < n; i++)
    dx[i] += g[i];
}
#define AUTODIFF(FN, FNI, GRAD, x, dx, n, N_ARG) emul(GRAD, x, dx, n)
#else
#define AUTODIFF(FN, FNI, GRAD, x, dx, n, N_ARG)                               \
  __enzyme_autodiff_v((void *)FN, enzyme_dup, x, dx, N_ARG)
#endif

/* FN: the function; FNI: it as double (*)(double *, int) for the FD;
 * N_ARG: the trip count argument as FN's parameter type */
#define DEFINE_TEST(FN, FNI, GRAD, NTYPE)                                      \
  static void test_##FN(const double *x0, int n) {                             \
    double x[N], dx[N] = {0}, g[N], fd[N];                                     \
    for (int i = 0; i < n; i++)                                                \
      x[i] = x0[i];                                                            \
    GRAD(x, n, g);                                                             \
    check_at(#FN " n=%d", n);                                                  \
    AUTODIFF(FN, FNI, GRAD, x, dx, n, (NTYPE)n);                               \
    check_close_arr("dx vs analytic", dx, g, n, TOL_AD);                       \
    for (int i = 0; i < n; i++)                                                \
      fd[i] = fdpn(FNI, x0, n, i);                                             \
    check_close_arr("dx vs FD", dx, fd, n, TOL_FD);                            \
  }

DEFINE_TEST(down, down, down_grad, int)
DEFINE_TEST(stride, stride, stride_grad, int)
DEFINE_TEST(ptr, ptr, ptr_grad, int)
DEFINE_TEST(gather, gather, gather_grad, int)
DEFINE_TEST(ulong_, ulong_i, ulong_grad, unsigned long)

int main(void) {
  const int ns[2] = {N, 2};
  double x0[N];
  for (int i = 0; i < N; i++)
    x0[i] = sin(1.3 * i + 0.5) + 0.2;
  for (int t = 0; t < 2; t++) {
    test_down(x0, ns[t]);
    test_stride(x0, ns[t]);
    test_ptr(x0, ns[t]);
    test_gather(x0, ns[t]);
    test_ulong_(x0, ns[t]);
  }
  return check_report();
}
