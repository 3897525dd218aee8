/* mem_struct_ptrs.c: structs holding pointers to data. The shadow struct
 * holds a shadow pointer to shadow data (and a shadow scalar field):
 *   f(V *v) reads v->scale and v->data[0..3];
 *   g(IO *io) reads io->in[0..1] and writes io->out[0..1] (void; the caller
 *   seeds the shadow out with w, which ends zeroed).
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_autodiff_v(void *, ...);

typedef struct {
  double *data;
  double scale;
} V;

static double f(V *v) {
  double s = v->scale;
  double *d = v->data;
  return s * (d[0] * d[1] + exp(d[2])) + s * s * d[3];
}
/* u = {scale, d0, d1, d2, d3} */
static double f_v(double *u) {
  V v = {u + 1, u[0]};
  return f(&v);
}
static void f_grad(const double *u, double *g) {
  double s = u[0];
  const double *d = u + 1;
  g[0] = d[0] * d[1] + exp(d[2]) + 2.0 * s * d[3];
  g[1] = s * d[1];
  g[2] = s * d[0];
  g[3] = s * exp(d[2]);
  g[4] = s * s;
}

typedef struct {
  double *in;
  double *out;
} IO;

static void g(IO *io) {
  io->out[0] = io->in[0] * io->in[1];
  io->out[1] = sin(io->in[0]) - io->in[1] * io->in[1];
}
static void g_xy(double *x, double *y) {
  IO io = {x, y};
  g(&io);
}
static void g_vjp(const double *x, const double *w, double *gx) {
  gx[0] = w[0] * x[1] + w[1] * cos(x[0]);
  gx[1] = w[0] * x[0] - w[1] * 2.0 * x[1];
}

#ifdef NO_AD
static void emul_f(V *v, V *dv) {
  double u[5] = {v->scale, v->data[0], v->data[1], v->data[2], v->data[3]}, gr[5];
  f_grad(u, gr);
  dv->scale += gr[0];
  for (int k = 0; k < 4; k++)
    dv->data[k] += gr[1 + k];
}
static void emul_g(IO *io, IO *dio) {
  double gx[2];
  g_vjp(io->in, dio->out, gx);
  g(io);
  dio->in[0] += gx[0];
  dio->in[1] += gx[1];
  dio->out[0] = dio->out[1] = 0.0;
}
#endif

int main(void) {
  const double pts[2][5] = {{1.3, 0.5, -1.25, 0.3, 2.5}, {-0.7, -2.1, 0.2, -0.9, -0.6}};
  for (int p = 0; p < 2; p++) {
    double data[4], ddata[4] = {0}, gr[5];
    for (int k = 0; k < 4; k++)
      data[k] = pts[p][1 + k];
    V v = {data, pts[p][0]};
    V dv = {ddata, 0.0};
    f_grad(pts[p], gr);
    check_at("f point %d", p);
#ifdef NO_AD
    emul_f(&v, &dv);
#else
    __enzyme_autodiff_v((void *)f, enzyme_dup, &v, &dv);
#endif
    check_close("dscale vs analytic", dv.scale, gr[0], TOL_AD);
    check_close("dscale vs FD", dv.scale, fdp(f_v, pts[p], 5, 0), TOL_FD);
    for (int k = 0; k < 4; k++) {
      check_close_i("ddata vs analytic", k, ddata[k], gr[1 + k], TOL_AD);
      check_close_i("ddata vs FD", k, ddata[k], fdp(f_v, pts[p], 5, 1 + k), TOL_FD);
    }
    check_close("shadow data pointer kept", dv.data == ddata, 1.0, 0.0);

    const double w[2] = {p ? -1.5 : 1.0, p ? 0.5 : 2.0};
    double in[2] = {pts[p][1], pts[p][2]}, out[2] = {0};
    double din[2] = {0}, dout[2] = {w[0], w[1]}, gx[2];
    IO io = {in, out}, dio = {din, dout};
    g_vjp(in, w, gx);
    check_at("g point %d", p);
#ifdef NO_AD
    emul_g(&io, &dio);
#else
    __enzyme_autodiff_v((void *)g, &io, &dio);
#endif
    for (int k = 0; k < 2; k++) {
      check_close_i("din vs analytic", k, din[k], gx[k], TOL_AD);
      check_close_i("din vs FD", k, din[k], fdvjp(g_xy, pts[p] + 1, 2, k, w, 2), TOL_FD);
      check_close_i("dout zeroed", k, dout[k], 0.0, TOL_AD);
    }
    check_close("primal out[0]", out[0], in[0] * in[1], TOL_AD);
    check_close("primal out[1]", out[1], sin(in[0]) - in[1] * in[1], TOL_AD);
  }
  return check_report();
}
