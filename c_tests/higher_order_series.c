/* higher_order_series.c: the fourth derivative of a truncated sine
 * series, by __enzyme_autodiff of __enzyme_autodiff, four levels deep (as
 * Enzyme's ReverseMode/mycos.c). The series loop skips even terms with
 * `continue`, so it leaves from two blocks, and each term divides by a
 * recursive (noinline) factorial.
 *
 * The reverse of a loop that leaves from two blocks is entered at either
 * block's reverse: the third derivative's reverse sweep holds a cycle
 * entered at two blocks (irreducible control flow). It was not taken for
 * a loop, and the fourth derivative reversed it as straight-line code: with
 * the previous binary this program never returned at -O1 and -O2 (CLI), and
 * neither did Enzyme's mycos.c at -O1..-O3.
 * Preprocessing now makes such cycles loops (`fix-irreducible`), and a
 * cycle left irreducible is refused with a diagnostic.
 *
 * Checked at x = 1.23 and -0.4: the first to fourth derivatives against
 * the truncated series differentiated by hand, and the fourth against
 * central differences of the third. */
#include <math.h>
#include "enzyme.h"
#include "check.h"

#define TERMS 12

__attribute__((noinline)) unsigned long long factorial(unsigned long long n) {
  if (n == 0)
    return 1;
  return n * factorial(n - 1);
}

double series(double x) {
  double s = 0;
  for (unsigned long long i = 0; i <= TERMS; i++) {
    if (i % 2 == 0)
      continue;
    s += pow(x, (double)i) / (double)factorial(i) * (i % 4 == 1 ? 1 : -1);
  }
  return s;
}

double d1(double x) { return __enzyme_autodiff((void *)series, x); }
double d2(double x) { return __enzyme_autodiff((void *)d1, x); }
double d3(double x) { return __enzyme_autodiff((void *)d2, x); }
double d4(double x) { return __enzyme_autodiff((void *)d3, x); }

/* The k-th derivative of the series, term by term. */
static double series_derivative(double x, int k) {
  double s = 0;
  for (int i = 1; i <= TERMS; i += 2) {
    if (i < k)
      continue;
    double fall = 1; /* i! / (i - k)! */
    for (int j = 0; j < k; j++)
      fall *= i - j;
    double fact = 1;
    for (int j = 2; j <= i; j++)
      fact *= j;
    s += (i % 4 == 1 ? 1 : -1) * fall * pow(x, i - k) / fact;
  }
  return s;
}

int main(void) {
  const double xs[] = {1.23, -0.4};
  for (int k = 0; k < 2; k++) {
    double x = xs[k];
    check_at("x=%g", x);
    check_close("d1 vs series", d1(x), series_derivative(x, 1), TOL_AD);
    check_close("d2 vs series", d2(x), series_derivative(x, 2), TOL_AD);
    check_close("d3 vs series", d3(x), series_derivative(x, 3), TOL_AD);
    check_close("d4 vs series", d4(x), series_derivative(x, 4), TOL_AD);
    check_close("d4 vs FD of d3", d4(x), fd1(d3, x), TOL_FD);
  }
  return check_report();
}
