/* rev_multi_out_mixed.c: `out` args of mixed float/double type: the result
 * struct has the parameters' types in C layout: {float,double} (registers),
 * {double,float,double} (sret), {double,float} with a const int between. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

typedef struct { float da; double db; } g_fd;
typedef struct { double da; float db; double dc; } g_dfd;
typedef struct { double dx; float dy; } g_df;
g_fd __enzyme_autodiff_fd(void *, ...);
g_dfd __enzyme_autodiff_dfd(void *, ...);
g_df __enzyme_autodiff_df(void *, ...);

static double h(float a, double b) { return a * b + sin(b) * a * a; }
static double h_v(const double *v) { return h((float)v[0], v[1]); }
static double k(double a, float b, double c) { return a * b * c + b * b; }
static double k_v(const double *v) { return k(v[0], (float)v[1], v[2]); }
static double m(double x, int n, float y) { return x * y * n + y; }
static int cur_n;
static double m_v(const double *v) { return m(v[0], cur_n, (float)v[1]); }

int main(void) {
  /* float-typed coordinates are exact in float */
  const double p[3][3] = {{0.75, 1.3, -0.6}, {-1.5, 0.4, 2.2}, {2.25, -0.9, 1.1}};
  for (int i = 0; i < 3; i++) {
    double a = p[i][0], b = p[i][1], c = p[i][2];
    double fa = 1e-3 * (1 + fabs(a)), fb = 1e-3 * (1 + fabs(b));
    check_at("h a=%g b=%g", a, b);
    g_fd r = __enzyme_autodiff_fd((void *)h, (float)a, b);
    check_close("da (float) vs analytic", r.da, b + 2.0 * a * sin(b), TOL_AD_F);
    check_close("db vs analytic", r.db, a + a * a * cos(b), TOL_AD);
    check_close("da vs FD", r.da, fdn_h(h_v, p[i], 2, 0, fa), TOL_FD_F);
    check_close("db vs FD", r.db, fdn(h_v, p[i], 2, 1), TOL_FD);

    double q[3] = {c, (float)b, a};
    check_at("k a=%g b=%g c=%g", c, q[1], a);
    g_dfd s = __enzyme_autodiff_dfd((void *)k, c, (float)b, a);
    check_close("da vs analytic", s.da, q[1] * a, TOL_AD);
    check_close("db (float) vs analytic", s.db, c * a + 2.0 * q[1], TOL_AD_F);
    check_close("dc vs analytic", s.dc, c * q[1], TOL_AD);
    check_close("da vs FD", s.da, fdn(k_v, q, 3, 0), TOL_FD);
    check_close("db vs FD", s.db, fdn_h(k_v, q, 3, 1, fb), TOL_FD_F);
    check_close("dc vs FD", s.dc, fdn(k_v, q, 3, 2), TOL_FD);

    int n = 2 - i;
    cur_n = n;
    double u[2] = {c, (float)a};
    check_at("m x=%g n=%d y=%g", c, n, u[1]);
    g_df t = __enzyme_autodiff_df((void *)m, c, n, (float)a);
    check_close("dx vs analytic", t.dx, u[1] * n, TOL_AD);
    check_close("dy (float) vs analytic", t.dy, c * n + 1.0, TOL_AD_F);
    check_close("dx vs FD", t.dx, fdn(m_v, u, 2, 0), TOL_FD);
    check_close("dy vs FD", t.dy, fdn_h(m_v, u, 2, 1, fa), TOL_FD_F);
  }
  return check_report();
}
