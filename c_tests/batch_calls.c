/* batch_calls.c: __enzyme_batch, the batched primal (N calls of a function
 * at once), and batches of derivatives:
 *  - g(x, p) = p sin(x) + x^2 batched over 4 lanes of x with p shared
 *    (enzyme_scalar), the results returned through sret (4 doubles);
 *  - the same over 2 lanes with x unmarked (enzyme_vector by default) and
 *    p read per lane from a buffer (enzyme_buffer), returned in registers;
 *  - scale(v, s): a void function writing through its pointer argument, 3
 *    lanes of pointers;
 *  - dg(x, p) = d g / d x by __enzyme_fwddiff inside the batched function,
 *    4 lanes: checked against cos-based analytic values and central finite
 *    differences of g; and 2 lanes with enzyme_vector written twice (one
 *    load of the marker passed twice at -O1 and above).
 * Every lane is checked against the direct call. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

typedef struct {
  double r[4];
} d4;
typedef struct {
  double a, b;
} d2;
d4 __enzyme_batch_d4(void *, ...);
d2 __enzyme_batch_d2(void *, ...);
void __enzyme_batch_void(void *, ...);

double g(double x, double p) { return p * sin(x) + x * x; }
void scale(double *v, double s) {
  v[0] *= s;
  v[1] += s * v[0];
}
double dg(double x, double p) {
#ifdef NO_AD
  return p * cos(x) + 2 * x;
#else
  return __enzyme_fwddiff((void *)g, x, 1.0, enzyme_const, p);
#endif
}

static double p_g;
static double g_x(double x) { return g(x, p_g); }

int main(void) {
  const double xs[4] = {0.3, -1.2, 2.5, 0.8};
  const double p = 1.7;
  check_at("batch of 4, sret");
#ifdef NO_AD
  d4 y = {{g(xs[0], p), g(xs[1], p), g(xs[2], p), g(xs[3], p)}};
#else
  d4 y = __enzyme_batch_d4((void *)g, enzyme_width, 4, enzyme_vector, xs[0], xs[1], xs[2],
                           xs[3], enzyme_scalar, p);
#endif
  for (int l = 0; l < 4; l++)
    check_close("lane vs direct call", y.r[l], g(xs[l], p), TOL_AD);

  check_at("batch of 2, buffer");
  double ps[2] = {0.5, -2.0};
#ifdef NO_AD
  d2 z = {g(xs[0], ps[0]), g(xs[1], ps[1])};
#else
  d2 z = __enzyme_batch_d2((void *)g, enzyme_width, 2, xs[0], xs[1], enzyme_buffer, ps);
#endif
  check_close("lane 0 vs direct call", z.a, g(xs[0], ps[0]), TOL_AD);
  check_close("lane 1 vs direct call", z.b, g(xs[1], ps[1]), TOL_AD);

  check_at("void batch of 3");
  double v0[2] = {1, 2}, v1[2] = {3, 4}, v2[2] = {5, 6}, w[3][2] = {{1, 2}, {3, 4}, {5, 6}};
#ifdef NO_AD
  scale(v0, 2.0);
  scale(v1, 2.0);
  scale(v2, 2.0);
#else
  __enzyme_batch_void((void *)scale, enzyme_width, 3, enzyme_vector, v0, v1, v2, enzyme_scalar,
                      2.0);
#endif
  for (int l = 0; l < 3; l++)
    scale(w[l], 2.0);
  check_close("v0[0]", v0[0], w[0][0], TOL_AD);
  check_close("v0[1]", v0[1], w[0][1], TOL_AD);
  check_close("v1[1]", v1[1], w[1][1], TOL_AD);
  check_close("v2[0]", v2[0], w[2][0], TOL_AD);
  check_close("v2[1]", v2[1], w[2][1], TOL_AD);

  check_at("batch of derivatives");
#ifdef NO_AD
  d4 d = {{dg(xs[0], p), dg(xs[1], p), dg(xs[2], p), dg(xs[3], p)}};
#else
  d4 d = __enzyme_batch_d4((void *)dg, enzyme_width, 4, xs[0], xs[1], xs[2], xs[3],
                           enzyme_scalar, p);
#endif
  check_at("batch with a marker passed twice");
  double q0 = 0.25, q1 = -0.75;
#ifdef NO_AD
  d2 e = {dg(xs[0], q0), dg(xs[1], q1)};
#else
  d2 e = __enzyme_batch_d2((void *)dg, enzyme_width, 2, enzyme_vector, xs[0], xs[1], enzyme_vector,
                           q0, q1);
#endif
  check_close("lane 0 vs analytic", e.a, q0 * cos(xs[0]) + 2 * xs[0], TOL_AD);
  check_close("lane 1 vs analytic", e.b, q1 * cos(xs[1]) + 2 * xs[1], TOL_AD);
  p_g = p;
  for (int l = 0; l < 4; l++) {
    check_close("lane vs analytic", d.r[l], p * cos(xs[l]) + 2 * xs[l], TOL_AD);
    check_close("lane vs FD", d.r[l], fd1(g_x, xs[l]), TOL_FD);
  }
  return check_report();
}
