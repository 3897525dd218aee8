/* call_aligned_local.c: a callee with an over-aligned local (a 64-byte
 * aligned vector of 8 doubles, as Rust's __m512d and AVX code keep them),
 * differentiated through its own augmented forward and reverse functions
 * (the ::no-inline trial, and callees kept as calls): the reverse function
 * runs after the augmented one's frame is gone, so the local's shadow is
 * on the heap, and the derivative's accesses to it claim the local's
 * alignment. A shadow from malloc (16-byte aligned) made the AVX-512
 * reverse of matrixmultiply's dgemm kernel fault (vmovapd) in rust_crates;
 * it now comes from aligned_alloc. The callee runs 40 times, so that a
 * misaligned shadow would be met.
 * With -mavx the accesses are 32-byte vmovapd: the previous binary's
 * ::no-inline trial crashed at -O0 and -O1 (SIGSEGV).
 * Checked: d/dx of sum_k g(x + k) against the analytic derivative and
 * central differences. */
// enz-cflags: -mavx
#include <math.h>
#include <string.h>
#include "enzyme.h"
#include "check.h"

typedef double v8 __attribute__((vector_size(64), aligned(64)));

/* buf is read back at indices from memory, so that it stays a local in
 * memory (not promoted to registers) in every clone. */
static const int perm[8] = {3, 0, 7, 1, 6, 2, 5, 4};

__attribute__((noinline)) double g(const double *x, double k) {
  v8 t, buf;
  for (int i = 0; i < 8; i++)
    t[i] = x[i] + k;
  buf = t * t;
  double s = 0;
  for (int i = 0; i < 8; i++)
    s += ((double *)&buf)[perm[i]] * (perm[i] + 1);
  return s;
}

double f(const double *x) {
  double s = 0;
  for (int k = 0; k < 40; k++)
    s += g(x, 0.01 * k);
  return s;
}

int main(void) {
  double x[8], dx[8] = {0};
  for (int i = 0; i < 8; i++)
    x[i] = 0.3 * i - 0.7;
  __enzyme_autodiff((void *)f, enzyme_dup, x, dx);
  check_at("x");
  for (int i = 0; i < 8; i++) {
    double want = 0;
    for (int k = 0; k < 40; k++)
      want += 2 * (x[i] + 0.01 * k) * (i + 1);
    check_close_i("dx vs analytic", i, dx[i], want, TOL_AD);
    check_close_i("dx vs FD", i, dx[i], fdn(f, x, 8, i), TOL_FD);
  }
  return check_report();
}
