/* call_global_lanes.c: derivatives through a writable global written by a
 * callee from scalar arguments (its only inputs are numbers, no pointer),
 * and vector forward mode (enzyme_width) through globals.
 *  - put(x) writes G = x^2 out of line (::no-inline), f returns 3 G: the
 *    previous binary's ::no-inline trial gave df/dx = 0 in forward and
 *    reverse mode (x was "not useful": only a pointer argument counted as
 *    a way into a global);
 *  - h(x, y) through two globals written by a callee from x and y, in
 *    forward mode of width 2 and 3: each lane its own tangent of the
 *    globals (the previous binary had one shadow global for every lane,
 *    and an internal error at ::no-inline);
 * each against the analytic derivative and central differences. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

typedef struct {
  double d[2];
} tan2;
typedef struct {
  double d[3];
} tan3;
tan2 __enzyme_fwddiff_w2(void *, ...) __asm__("__enzyme_fwddiff");
tan3 __enzyme_fwddiff_w3(void *, ...) __asm__("__enzyme_fwddiff");

double G, P[2];

__attribute__((noinline)) void put(double x) { G = x * x; }

double f(double x) {
  put(x);
  return 3.0 * G;
}

__attribute__((noinline)) void pair(double x, double y) {
  P[0] = x * y;
  P[1] = sin(x) + y;
}

double h(double x, double y) {
  pair(x, y);
  return P[0] * P[1] + P[0];
}

static double hy_, hx_;
static double h_x(double x) { return h(x, hy_); }
static double h_y(double y) { return h(hx_, y); }

int main(void) {
  for (double x = -1.25; x <= 2.0; x += 1.0) {
    check_at("f x=%g", x);
    double r = __enzyme_autodiff((void *)f, x);
    check_close("reverse vs analytic", r, 6 * x, TOL_AD);
    check_close("reverse vs FD", r, fd1(f, x), TOL_FD);
    double t = __enzyme_fwddiff((void *)f, x, 1.0);
    check_close("forward vs analytic", t, 6 * x, TOL_AD);

    double y = 0.5 - 0.3 * x;
    check_at("h x=%g y=%g", x, y);
    double p0 = x * y, p1 = sin(x) + y;
    double hx = y * p1 + p0 * cos(x) + y, hy = x * p1 + p0 + x;
    hx_ = x;
    hy_ = y;
    tan2 t2 = __enzyme_fwddiff_w2((void *)h, enzyme_width, 2, x, 1.0, 0.0, y, 0.0, 1.0);
    check_close("width 2, lane 0 = dh/dx vs analytic", t2.d[0], hx, TOL_AD);
    check_close("width 2, lane 1 = dh/dy vs analytic", t2.d[1], hy, TOL_AD);
    check_close("width 2, lane 0 vs FD", t2.d[0], fd1(h_x, x), TOL_FD);
    check_close("width 2, lane 1 vs FD", t2.d[1], fd1(h_y, y), TOL_FD);
    tan3 t3 = __enzyme_fwddiff_w3((void *)h, enzyme_width, 3, x, 1.0, 0.0, 2.0, y, 0.0,
                                  1.0, -1.0);
    check_close("width 3, lane 0", t3.d[0], hx, TOL_AD);
    check_close("width 3, lane 1", t3.d[1], hy, TOL_AD);
    check_close("width 3, lane 2 along (2, -1)", t3.d[2], 2 * hx - hy, TOL_AD);
    double rh = __enzyme_autodiff((void *)h, x, enzyme_const, y);
    check_close("reverse dh/dx", rh, hx, TOL_AD);
  }
  return check_report();
}
