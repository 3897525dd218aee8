/* rev_int_rotate.c: doubles moved only as integers: an array rotated by
 * one place through a `uint64_t` carried from iteration to iteration
 * (clang keeps it in an `i64` phi around the loop, and the vectoriser
 * moves the elements as `<2 x i64>` with shuffles at -O2/-O3), and one of
 * two saved doubles chosen by a `select` of integers after their source
 * was overwritten. Synthesis gives integers no derivatives, so every
 * derivative these moved was silently lost (30 of 30 checks failed at
 * -O0..-O3); preprocessing now rebuilds such integer moves as moves of
 * doubles where type analysis says they carry doubles.
 *   save: s = c ? x0 : x1 (saved); x0 <- 2 x0, x1 <- 3 x1
 *   rotate: x'[j] = x[j - 1], x'[0] = x[n - 1]
 *   f = sum_j (j + 1) x'[j]^2 + s^2 x'[2]
 * Reverse mode and forward mode (one direction), checked against the
 * analytic gradient and central finite differences.
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "enzyme.h"
#include "check.h"

#define N 7

static void rotate(double *x, int n) {
  uint64_t carry;
  memcpy(&carry, &x[n - 1], 8);
  for (int i = 0; i < n; i++) {
    uint64_t next;
    memcpy(&next, &x[i], 8);
    memcpy(&x[i], &carry, 8);
    carry = next;
  }
}

static double save(double *x, int c) {
  uint64_t a, b;
  memcpy(&a, &x[0], 8);
  memcpy(&b, &x[1], 8);
  x[0] = 2 * x[0];
  x[1] = 3 * x[1];
  uint64_t t = c ? a : b;
  double s;
  memcpy(&s, &t, 8);
  return s;
}

static double f(double *x, int n, int c) {
  double s = save(x, c);
  rotate(x, n);
  double sum = s * s * x[2];
  for (int j = 0; j < n; j++)
    sum += (j + 1) * x[j] * x[j];
  return sum;
}

static int cc;
static double f_d(const double *z) {
  double x[N];
  for (int j = 0; j < N; j++) x[j] = z[j];
  return f(x, N, cc);
}

/* df/dx_k at z (c = cc) */
static void grad(const double *z, double *g) {
  /* after save: X0 = 2 x0, X1 = 3 x1; rotated: x'[j] = X[j-1] */
  double X[N];
  for (int j = 0; j < N; j++) X[j] = z[j];
  X[0] *= 2, X[1] *= 3;
  double s = cc ? z[0] : z[1];
  for (int k = 0; k < N; k++) {
    int j = (k + 1) % N; /* where X[k] lands */
    g[k] = 2.0 * (j + 1) * X[k];
    if (j == 2) g[k] += s * s;
  }
  g[0] *= 2, g[1] *= 3;
  g[cc ? 0 : 1] += 2 * s * X[1]; /* x'[2] = X1 */
}

double __enzyme_autodiff(void *, ...);
double __enzyme_fwddiff(void *, ...);

/* x (4 doubles) rotated in place after x2 is read: at -O2/-O3 clang
 * loads x0, x1 as one <2 x i64> and stores x3 over x0 before storing
 * them back; only the read of x2 says that x holds doubles (enz-fuzz diff
 * seed 301033: wrong tangents of x at -O2/-O3 before the vector load
 * became a copy of memory). An adjoint seeded after the call comes back
 * rotated the other way (plus the return's on x2); a tangent comes out
 * rotated. */
static double rotate4(double *x) {
  double r = x[2];
  rotate(x, 4);
  return r;
}

int main(void) {
  const double base[N] = {0.3, -0.7, 0.9, 0.4, 1.2, -1.1, 0.6};
  for (cc = 0; cc < 2; cc++) {
    double g[N], x[N], dx[N];
    grad(base, g);
    for (int j = 0; j < N; j++) x[j] = base[j], dx[j] = 0;
#ifdef NO_AD
    for (int j = 0; j < N; j++) dx[j] = g[j];
#else
    __enzyme_autodiff((void *)f, enzyme_dup, x, dx, enzyme_const, N, enzyme_const, cc);
#endif
    check_at("reverse c %d", cc);
    for (int j = 0; j < N; j++) {
      check_close("vs analytic", dx[j], g[j], TOL_AD);
      check_close("vs FD", dx[j], fdn(f_d, base, N, j), TOL_FD);
    }
    double v[N], want = 0;
    for (int j = 0; j < N; j++) v[j] = 0.5 - 0.25 * j, want += g[j] * v[j];
    for (int j = 0; j < N; j++) x[j] = base[j];
#ifdef NO_AD
    double t = want;
#else
    double t = __enzyme_fwddiff((void *)f, enzyme_dup, x, v, enzyme_const, N, enzyme_const, cc);
#endif
    check_at("forward c %d", cc);
    check_close("vs analytic", t, want, TOL_AD);
  }
  {
    double x[4] = {0.1, 0.2, 0.3, 0.4}, d[4] = {1, 2, 3, 4};
    const double back[4] = {2, 3, 4 + 1, 1}, ahead[4] = {4, 1, 2, 3};
#ifdef NO_AD
    for (int j = 0; j < 4; j++) d[j] = back[j];
#else
    __enzyme_autodiff((void *)rotate4, enzyme_dup, x, d);
#endif
    check_at("rotate4 reverse");
    for (int j = 0; j < 4; j++)
      check_close("adjoint", d[j], back[j], TOL_AD);
    double y[4] = {0.1, 0.2, 0.3, 0.4}, t[4] = {1, 2, 3, 4};
#ifdef NO_AD
    double r = 3;
    for (int j = 0; j < 4; j++) t[j] = ahead[j];
#else
    double r = __enzyme_fwddiff((void *)rotate4, enzyme_dup, y, t);
#endif
    check_at("rotate4 forward");
    check_close("return tangent", r, 3.0, TOL_AD);
    for (int j = 0; j < 4; j++)
      check_close("tangent", t[j], ahead[j], TOL_AD);
  }
  return check_report();
}
