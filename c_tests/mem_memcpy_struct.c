/* mem_memcpy_struct.c: memcpy of structs that hold pointers. The function
 * copies an array of two P structs into a local array (selected later by a
 * variable index, so the copy survives -O2) and follows the copied
 * pointers; the shadow structs (holding shadow pointers) must be copied the
 * same way. With q = ps[i], o = ps[1-i]:
 *   f = q.k q.a[0] q.b[1] + sin(q.a[1]) o.k
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include <string.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

typedef struct {
  double *a;
  double *b;
  double k;
} P;

static double f(P *ps, int i) {
  P tmp[2];
  memcpy(tmp, ps, sizeof tmp);
  P *q = &tmp[i];
  return q->k * q->a[0] * q->b[1] + sin(q->a[1]) * tmp[1 - i].k;
}

/* v = {k0, k1, A0[0..1], B0[0..1], A1[0..1], B1[0..1]} (10 values) */
static int g_i;
static double f_v(double *v) {
  P ps[2] = {{v + 2, v + 4, v[0]}, {v + 6, v + 8, v[1]}};
  return f(ps, g_i);
}
static void grad(const double *v, int i, double *g) {
  int o = 1 - i;
  const double *a = v + 2 + 4 * i, *b = v + 4 + 4 * i;
  double k = v[i], ko = v[o];
  for (int n = 0; n < 10; n++)
    g[n] = 0.0;
  g[i] = a[0] * b[1];
  g[o] = sin(a[1]);
  g[2 + 4 * i] = k * b[1];        /* a[0] */
  g[2 + 4 * i + 1] = cos(a[1]) * ko; /* a[1] */
  g[4 + 4 * i + 1] = k * a[0];    /* b[1] */
}

#ifdef NO_AD
static void emul(P *ps, P *dps, int i) {
  double v[10] = {ps[0].k, ps[1].k}, g[10];
  for (int s = 0; s < 2; s++)
    for (int n = 0; n < 2; n++) {
      v[2 + 4 * s + n] = ps[s].a[n];
      v[4 + 4 * s + n] = ps[s].b[n];
    }
  grad(v, i, g);
  for (int s = 0; s < 2; s++) {
    dps[s].k += g[s];
    for (int n = 0; n < 2; n++) {
      dps[s].a[n] += g[2 + 4 * s + n];
      dps[s].b[n] += g[4 + 4 * s + n];
    }
  }
}
#endif

int main(void) {
  const double pts[2][10] = {{1.5, -0.7, 0.4, 1.2, -0.9, 2.1, 0.3, -1.6, 0.8, 1.1},
                             {-0.6, 2.2, -1.3, 0.5, 1.7, -0.4, 0.9, 0.2, -2.0, 0.6}};
  for (int p = 0; p < 2; p++)
    for (int i = 0; i < 2; i++) {
      double A0[2], B0[2], A1[2], B1[2], dA0[2] = {0}, dB0[2] = {0}, dA1[2] = {0},
             dB1[2] = {0}, g[10];
      for (int n = 0; n < 2; n++) {
        A0[n] = pts[p][2 + n];
        B0[n] = pts[p][4 + n];
        A1[n] = pts[p][6 + n];
        B1[n] = pts[p][8 + n];
      }
      P ps[2] = {{A0, B0, pts[p][0]}, {A1, B1, pts[p][1]}};
      P dps[2] = {{dA0, dB0, 0.0}, {dA1, dB1, 0.0}};
      g_i = i;
      grad(pts[p], i, g);
      check_at("f i=%d point %d", i, p);
#ifdef NO_AD
      emul(ps, dps, i);
#else
      __enzyme_autodiff_v((void *)f, enzyme_dup, ps, dps, i);
#endif
      double got[10] = {dps[0].k, dps[1].k, dA0[0], dA0[1], dB0[0], dB0[1],
                        dA1[0], dA1[1], dB1[0], dB1[1]};
      for (int n = 0; n < 10; n++) {
        check_close_i("d(k0,k1,A0,B0,A1,B1) vs analytic", n, got[n], g[n], TOL_AD);
        check_close_i("d(k0,k1,A0,B0,A1,B1) vs FD", n, got[n], fdp(f_v, pts[p], 10, n), TOL_FD);
      }
      check_close("shadow pointers kept", dps[0].a == dA0 && dps[0].b == dB0 &&
                  dps[1].a == dA1 && dps[1].b == dB1, 1.0, 0.0);
    }
  return check_report();
}
