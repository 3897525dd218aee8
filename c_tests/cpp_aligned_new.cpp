// cpp_aligned_new.cpp: C++ allocation inside differentiated code, every
// variant of operator new and delete: new / new[] (_Znwm, _Znam), aligned
// (an over-aligned struct, new (std::align_val_t) T[n]), nothrow (also
// aligned nothrow), and their deletes: plain, sized (_ZdlPvm), aligned,
// sized aligned, nothrow and aligned nothrow (called as ::operator delete).
// Each block carries active data, so its shadow is allocated by the same
// operator new, zeroed, and released by the matching operator delete (with
// the alignment for aligned blocks) at the end of the reverse sweep.
//   a_i = x_i^2, b_i = sin(a_i), d_i = b_i x_i, t_i = d_i + a_i,
//   u_i = t_i b_i, c = sum_i u_i, s = c^2 / 2 + c
//   ds/dx_i = (c + 1) du_i/dx_i,
//   du_i/dx_i = dt_i b_i + t_i db_i, db_i = 2 x_i cos(a_i),
//   dt_i = db_i x_i + b_i + 2 x_i
// Checked against the analytic gradient and central finite differences, in
// reverse and forward mode. Build with -DNO_AD to replace the AD calls by
// the analytic derivatives.
#include <math.h>
#include <stdlib.h>
#include <new>
#include "enzyme.h"
#include "check.h"

#define N 3

extern "C" {
void __enzyme_autodiff_v(void *, ...);
double __enzyme_fwddiff_d(void *, ...);
}

struct alignas(64) Cell {
  double v;
};

__attribute__((noinline)) static double work(const double *x, int n) {
  double *a = new double[n];
  double *b = new (std::align_val_t(64)) double[n];
  double *d = new (std::nothrow) double[n];
  double *t = static_cast<double *>(::operator new(sizeof(double) * n, std::nothrow));
  double *u = static_cast<double *>(
      ::operator new(sizeof(double) * n, std::align_val_t(32), std::nothrow));
  double *q = static_cast<double *>(::operator new[](sizeof(double) * n, std::nothrow));
  if (!d || !t || !u || !q)
    abort();
  Cell *c = new Cell;
  Cell *e = new (std::nothrow) Cell;
  double *s = new double;
  c->v = 0.0;
  for (int i = 0; i < n; i++) {
    a[i] = x[i] * x[i];
    b[i] = sin(a[i]);
    d[i] = b[i] * x[i];
    t[i] = d[i] + a[i];
    u[i] = t[i] * b[i];
    q[i] = u[i];
    c->v += q[i];
  }
  e->v = c->v;
  *s = e->v * e->v / 2.0 + e->v;
  double r = *s;
  delete s;
  delete[] a;
  ::operator delete[](b, std::align_val_t(64));
  delete[] d;
  ::operator delete(t, std::nothrow);
  ::operator delete(u, std::align_val_t(32), std::nothrow);
  ::operator delete[](q, std::nothrow);
  delete c;
  delete e;
  return r;
}

static double f(double *x) { return work(x, N); }

static void grad(const double *x, double *g) {
  double c = 0.0, du[N];
  for (int i = 0; i < N; i++) {
    double a = x[i] * x[i], b = sin(a), t = b * x[i] + a;
    double db = 2.0 * x[i] * cos(a), dt = db * x[i] + b + 2.0 * x[i];
    c += t * b;
    du[i] = dt * b + t * db;
  }
  for (int i = 0; i < N; i++)
    g[i] = (c + 1.0) * du[i];
}

int main() {
  const double pts[2][N] = {{0.3, -0.7, 1.1}, {-1.2, 0.5, 0.9}};
  const double dir[N] = {0.4, -1.3, 0.7};
  for (int p = 0; p < 2; p++) {
    double x[N] = {pts[p][0], pts[p][1], pts[p][2]}, dx[N] = {0, 0, 0}, g[N];
    grad(x, g);
    check_at("point %d", p);
#ifdef NO_AD
    for (int k = 0; k < N; k++)
      dx[k] += g[k];
#else
    __enzyme_autodiff_v((void *)f, enzyme_dup, x, dx);
#endif
    double want = 0.0, fd = 0.0;
    for (int k = 0; k < N; k++) {
      double fdk = fdp(f, pts[p], N, k);
      check_close_i("dx vs analytic", k, dx[k], g[k], TOL_AD);
      check_close_i("dx vs FD", k, dx[k], fdk, TOL_FD);
      want += g[k] * dir[k];
      fd += fdk * dir[k];
    }
#ifdef NO_AD
    double tan = want;
#else
    double v[N] = {dir[0], dir[1], dir[2]};
    double tan = __enzyme_fwddiff_d((void *)f, enzyme_dup, x, v);
#endif
    check_close("tangent vs analytic", tan, want, TOL_AD);
    check_close("tangent vs FD", tan, fd, TOL_FD);
  }
  return check_report();
}
