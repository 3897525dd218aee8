/* fit.c: gradient descent on loss() of energy.c, its gradient made by
 * enz-rs at link time; checked against central finite differences. */
#include <enzyme.h>
#include <math.h>
#include <stdio.h>

double loss(const double *w, const double *x, const double *y, int n);
void __enzyme_autodiff_v(void *, ...);

static int checks, failed;
static void check(const char *what, double got, double want, double tol) {
  int ok = fabs(got - want) <= tol * (1 + fabs(want));
  checks++;
  failed += !ok;
  printf("%s %s: %.12g vs %.12g\n", ok ? "ok  " : "FAIL", what, got, want);
}

int main(void) {
  enum { N = 16 };
  double x[N], y[N], w[3] = {0.1, 0.5, 0.5};
  for (int i = 0; i < N; i++) {
    x[i] = -2 + 4.0 * i / (N - 1);
    y[i] = 0.3 + 1.7 * tanh(0.8 * x[i]);
  }
  double first = loss(w, x, y, N);
  for (int step = 0; step < 200; step++) {
    double dw[3] = {0, 0, 0};
    __enzyme_autodiff_v((void *)loss, enzyme_dup, w, dw, enzyme_const, x, enzyme_const, y, N);
    if (step == 0)
      for (int j = 0; j < 3; j++) {
        double h = 1e-6, s = w[j];
        w[j] = s + h;
        double up = loss(w, x, y, N);
        w[j] = s - h;
        double down = loss(w, x, y, N);
        w[j] = s;
        check("dloss/dw[j]", dw[j], (up - down) / (2 * h), 1e-5);
      }
    for (int j = 0; j < 3; j++)
      w[j] -= 0.2 * dw[j];
  }
  double last = loss(w, x, y, N);
  printf("loss %g -> %g\n", first, last);
  check("loss decreased 10x", last < first / 10 ? 1 : 0, 1, 0);
  printf("%d checks, %d failed\n", checks, failed);
  return failed != 0;
}
