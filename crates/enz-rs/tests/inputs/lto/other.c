/* The functions main.c differentiates, in their own translation unit. */
#include <math.h>

double f(double x, double y) { return sin(x) * y * y + exp(x * y); }

void g(const double *x, double *out, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += f(x[i], -1.1);
  *out = s;
}
