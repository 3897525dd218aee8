/* call_global_descriptor.c: a global whose initializer points into another
 * global (a descriptor of an array, as Fortran keeps for an allocatable,
 * or a table of row pointers). The function writes the array directly and
 * reads it back through the descriptor. The previous binary's activity
 * analysis saw the descriptor as constant memory, so the derivative of
 * every value read through it was lost (df/dx 6 instead of 8 below, in
 * both modes, exit 0), and the descriptor's shadow pointed nowhere.
 * Now the descriptor's shadow points into the array's shadow (its
 * integers copied), restored on entry of every derivative.
 *  - sum(x) = sum_i desc.base[i] * x after data[1] = x: (4 + x) x;
 *  - rows(x, y) through a table of two row pointers, rows[0][j] = x^j,
 *    rows[1][j] = y x: reverse, forward and forward of width 2;
 * each against the analytic derivative and central differences. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

typedef struct {
  double d[2];
} tan2;
tan2 __enzyme_fwddiff_w2(void *, ...) __asm__("__enzyme_fwddiff");

double data[3] = {1, 2, 3};
struct {
  double *base;
  long size;
} desc = {data, 3};

__attribute__((noinline)) double sum(double x) {
  data[1] = x;
  double s = 0;
  for (long i = 0; i < desc.size; i++)
    s += desc.base[i] * x;
  return s;
}

double row0[4], row1[4];
double *rows[2] = {row0, row1};

__attribute__((noinline)) static void fill(double x, double y) {
  double p = 1;
  for (int j = 0; j < 4; j++) {
    row0[j] = p;
    row1[j] = y * x;
    p *= x;
  }
}

double table(double x, double y) {
  fill(x, y);
  double s = 0;
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 4; j++)
      s += rows[i][j] * (j + 1);
  return s;
}

static double ty_, tx_;
static double table_x(double x) { return table(x, ty_); }
static double table_y(double y) { return table(tx_, y); }

int main(void) {
  for (double x = -1.0; x <= 2.0; x += 1.5) {
    check_at("sum x=%g", x);
    double want = 4 + 2 * x;
    check_close("reverse vs analytic", __enzyme_autodiff((void *)sum, x), want, TOL_AD);
    check_close("forward vs analytic", __enzyme_fwddiff((void *)sum, x, 1.0), want, TOL_AD);
    check_close("reverse vs FD", __enzyme_autodiff((void *)sum, x), fd1(sum, x), TOL_FD);

    double y = 0.5 + 0.25 * x;
    check_at("table x=%g y=%g", x, y);
    /* s = 1 + 2x + 3x^2 + 4x^3 + 10 y x */
    double dx = 2 + 6 * x + 12 * x * x + 10 * y, dy = 10 * x;
    tx_ = x;
    ty_ = y;
    check_close("reverse d/dx", __enzyme_autodiff((void *)table, x, enzyme_const, y), dx, TOL_AD);
    check_close("reverse d/dy", __enzyme_autodiff((void *)table, enzyme_const, x, y), dy, TOL_AD);
    check_close("forward along (1, 0)", __enzyme_fwddiff((void *)table, x, 1.0, y, 0.0), dx, TOL_AD);
    tan2 t = __enzyme_fwddiff_w2((void *)table, enzyme_width, 2, x, 1.0, 0.0, y, 0.0, 1.0);
    check_close("width 2, lane 0 vs analytic", t.d[0], dx, TOL_AD);
    check_close("width 2, lane 1 vs analytic", t.d[1], dy, TOL_AD);
    check_close("width 2, lane 0 vs FD", t.d[0], fd1(table_x, x), TOL_FD);
    check_close("width 2, lane 1 vs FD", t.d[1], fd1(table_y, y), TOL_FD);
  }
  return check_report();
}
