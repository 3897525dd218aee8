/* loop_vreduce_dot.c: dot products that clang vectorises under fast math
 * (from -O2: vector fmuls accumulated in vector phis, then
 * llvm.vector.reduce.fadd), with both arrays dup, or one const:
 *   dot(a, b, n)  = sum_i a_i b_i          da_i = b_i, db_i = a_i
 *   dotf(a, b, n) = the same in float
 *   wdot(a, b, n) = sum_i a_i b_i sin(a_i) da_i = b_i (sin a_i + a_i cos a_i)
 * n = 1, 5, 16, 37, 100. Shadows start at zero, inputs must not change.
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
// enz-cflags: -ffast-math -fno-finite-math-only
#include <math.h>
#include <stdlib.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

static double dot(double *a, double *b, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += a[i] * b[i];
  return s;
}

static float dotf(float *a, float *b, int n) {
  float s = 0.0f;
  for (int i = 0; i < n; i++)
    s += a[i] * b[i];
  return s;
}

static double wdot(double *a, double *b, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++)
    s += a[i] * b[i] * sin(a[i]);
  return s;
}

#define NMAX 100
static double *g_b; /* the other operand, for finite differences */
static float *g_bf;
static double dot_a(double *a, int n) { return dot(a, g_b, n); }
static float dotf_a(float *a, int n) { return dotf(a, g_bf, n); }
static double wdot_a(double *a, int n) { return wdot(a, g_b, n); }

#ifdef NO_AD
static void emul_dot(double *a, double *da, double *b, double *db, int n) {
  for (int i = 0; i < n; i++) {
    da[i] += b[i];
    if (db)
      db[i] += a[i];
  }
}
static void emul_dotf(float *a, float *da, float *b, float *db, int n) {
  for (int i = 0; i < n; i++) {
    da[i] += b[i];
    db[i] += a[i];
  }
}
static void emul_wdot(double *a, double *da, double *b, int n) {
  for (int i = 0; i < n; i++)
    da[i] += b[i] * (sin(a[i]) + a[i] * cos(a[i]));
}
#endif

int main(void) {
  const int sizes[5] = {1, 5, 16, 37, 100};
  double a[NMAX], b[NMAX], da[NMAX], db[NMAX], want[NMAX], fd[NMAX];
  float af[NMAX], bf[NMAX], daf[NMAX], dbf[NMAX];
  g_b = b;
  g_bf = bf;
  for (int s = 0; s < 5; s++) {
    int n = sizes[s];
    for (int i = 0; i < n; i++) {
      a[i] = 0.9 * sin(0.37 * i + 0.2);
      b[i] = 0.6 * cos(0.53 * i) + 0.1;
      af[i] = (float)a[i];
      bf[i] = (float)b[i];
      da[i] = db[i] = 0.0;
      daf[i] = dbf[i] = 0.0f;
    }
    check_at("dot n=%d", n);
#ifdef NO_AD
    emul_dot(a, da, b, db, n);
#else
    __enzyme_autodiff_v((void *)dot, a, da, b, db, n);
#endif
    check_close_arr("da vs analytic", da, b, n, TOL_AD);
    check_close_arr("db vs analytic", db, a, n, TOL_AD);
    for (int i = 0; i < n; i++)
      fd[i] = fdpn(dot_a, a, n, i);
    check_close_arr("da vs FD", da, fd, n, TOL_FD);

    check_at("dot b const n=%d", n);
    for (int i = 0; i < n; i++)
      da[i] = 0.0;
#ifdef NO_AD
    emul_dot(a, da, b, 0, n);
#else
    __enzyme_autodiff_v((void *)dot, enzyme_dup, a, da, enzyme_const, b, n);
#endif
    check_close_arr("da vs analytic", da, b, n, TOL_AD);

    check_at("dotf n=%d", n);
#ifdef NO_AD
    emul_dotf(af, daf, bf, dbf, n);
#else
    __enzyme_autodiff_v((void *)dotf, af, daf, bf, dbf, n);
#endif
    for (int i = 0; i < n; i++) {
      want[i] = bf[i];
      fd[i] = fdpnf(dotf_a, af, n, i);
    }
    check_close_arrf("da vs analytic", daf, want, n, TOL_AD_F);
    check_close_arrf("da vs FD", daf, fd, n, TOL_FD_F);
    for (int i = 0; i < n; i++)
      want[i] = af[i];
    check_close_arrf("db vs analytic", dbf, want, n, TOL_AD_F);

    check_at("wdot n=%d", n);
    for (int i = 0; i < n; i++)
      da[i] = 0.0;
#ifdef NO_AD
    emul_wdot(a, da, b, n);
#else
    __enzyme_autodiff_v((void *)wdot, enzyme_dup, a, da, enzyme_const, b, n);
#endif
    for (int i = 0; i < n; i++) {
      want[i] = b[i] * (sin(a[i]) + a[i] * cos(a[i]));
      fd[i] = fdpn(wdot_a, a, n, i);
    }
    check_close_arr("da vs analytic", da, want, n, TOL_AD);
    check_close_arr("da vs FD", da, fd, n, TOL_FD);

    for (int i = 0; i < n; i++) {
      check_close_i("a unchanged", i, a[i], 0.9 * sin(0.37 * i + 0.2), 0.0);
      check_close_i("b unchanged", i, b[i], 0.6 * cos(0.53 * i) + 0.1, 0.0);
    }
  }
  return check_report();
}
