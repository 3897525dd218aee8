/* read_constant_input.c: floats read inside differentiated code from input
 * the derivative did not write (sscanf of a literal, fread and fscanf of a
 * file written before the call) are constants of the derivative, as in
 * Enzyme's cin.cpp; only a read after a write of floats in the same
 * differentiated code is refused (tests/inputs/stream_read_float.ll).
 *  - f(x) = x^2 a b with a, b parsed from "14 1.5": 2 x a b, analytic and FD;
 *  - g(x, y) = sum_k w_k sin(k x) y with w read back from a temporary file
 *    (fread, then fscanf of its text copy): reverse and forward mode,
 *    analytic and FD. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "enzyme.h"
#include "check.h"

double f(double x) {
  double a;
  float b;
  sscanf("14 1.5 rest", "%lf %f", &a, &b);
  return x * x * a * b;
}

static FILE *bin, *txt;

double g(double x, double y) {
  double w[3];
  rewind(bin);
  if (fread(w, sizeof(double), 3, bin) != 3)
    abort();
  double extra;
  rewind(txt);
  if (fscanf(txt, "%lf", &extra) != 1)
    abort();
  double s = extra * x;
  for (int k = 0; k < 3; k++)
    s += w[k] * sin((k + 1) * x) * y;
  return s;
}

static double f_of(double x) { return f(x); }
static double gy_;
static double g_x(double x) { return g(x, gy_); }
static double gx_;
static double g_y(double y) { return g(gx_, y); }

int main(void) {
  const double W[3] = {0.5, -1.25, 2.0};
  bin = tmpfile();
  txt = tmpfile();
  if (!bin || !txt || fwrite(W, sizeof(double), 3, bin) != 3)
    return 1;
  fprintf(txt, "%.17g\n", 0.75);
  fflush(bin);
  fflush(txt);

  for (double x = -1.0; x <= 1.5; x += 1.25) {
    check_at("f x=%g", x);
    double d = __enzyme_autodiff((void *)f, x);
    check_close("df vs analytic", d, 2 * x * 14 * 1.5, TOL_AD);
    check_close("df vs FD", d, fd1(f_of, x), TOL_FD);

    double y = 0.3 + x * x;
    check_at("g x=%g y=%g", x, y);
    double dgx = 0.75, dgy = 0;
    for (int k = 0; k < 3; k++) {
      dgx += W[k] * (k + 1) * cos((k + 1) * x) * y;
      dgy += W[k] * sin((k + 1) * x);
    }
    gy_ = y;
    gx_ = x;
    double rx = __enzyme_autodiff((void *)g, x, enzyme_const, y);
    check_close("reverse dg/dx vs analytic", rx, dgx, TOL_AD);
    check_close("reverse dg/dx vs FD", rx, fd1(g_x, x), TOL_FD);
    double ry = __enzyme_autodiff((void *)g, enzyme_const, x, y);
    check_close("reverse dg/dy vs analytic", ry, dgy, TOL_AD);
    check_close("reverse dg/dy vs FD", ry, fd1(g_y, y), TOL_FD);
    double t = __enzyme_fwddiff((void *)g, x, 1.0, y, 2.0);
    check_close("forward along (1, 2) vs analytic", t, dgx + 2 * dgy, TOL_AD);
  }
  fclose(bin);
  fclose(txt);
  return check_report();
}
