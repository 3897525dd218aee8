/* energy.c: the loss of a small model, in its own translation unit. */
#include <math.h>

/* Mean squared error of y ~ w0 + w1 tanh(w2 x). */
double loss(const double *w, const double *x, const double *y, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    double r = w[0] + w[1] * tanh(w[2] * x[i]) - y[i];
    s += r * r;
  }
  return s / n;
}
