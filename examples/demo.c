/* A small program that asks enz-rs for a gradient: the derivative of a
 * smooth piecewise function f(x, y) with respect to both arguments.
 * Build and run with scripts/demo.sh. */
#include <math.h>
#include <stdio.h>
#include "enzyme.h"

static double f(double x, double y) {
  if (x > 0)
    return sin(x) * y + exp(x * y) / (1.0 + y * y);
  return x * x * y;
}

typedef struct { double dx, dy; } grad2;
grad2 __enzyme_autodiff_grad2(void *, ...);

int main(void) {
  double x = 0.7, y = 1.3;
  grad2 g = __enzyme_autodiff_grad2((void *)f, x, y);
  double h = 1e-6;
  double fdx = (f(x + h, y) - f(x - h, y)) / (2 * h);
  double fdy = (f(x, y + h) - f(x, y - h)) / (2 * h);
  printf("f(%.2f, %.2f)   = %.10f\n", x, y, f(x, y));
  printf("df/dx (enz-rs) = %.10f   finite differences: %.10f\n", g.dx, fdx);
  printf("df/dy (enz-rs) = %.10f   finite differences: %.10f\n", g.dy, fdy);
  return fabs(g.dx - fdx) < 1e-6 && fabs(g.dy - fdy) < 1e-6 ? 0 : 1;
}
