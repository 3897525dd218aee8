// cpp_nested_vector.cpp: std::vector<std::vector<double>> rows made as
// copies of a prototype row (std::uninitialized_fill_n copies its buffer
// with memmove, typed only by clang's pointer TBAA: the begin and end
// pointers are `double *`), reverse and forward mode, with and without
// exceptions:
//  - zero_rows(x): M = 2 rows of vector<double>(2) (zeros), M[i][j] =
//    x[2i+j], f = sum M_ij^3            df/dx_k = 3 x_k^2
//  - rows(x): proto = x[0..4), M = 3 copies of proto, M[i][j] *= (i+1) x_j,
//    f = sum M_ij^2 = 14 sum x_j^4     df/dx_j = 56 x_j^3
// Checked against those derivatives and central finite differences.
#include <math.h>
#include <vector>
#include "enzyme.h"
#include "check.h"

double zero_rows(const double *x) {
  std::vector<std::vector<double>> M(2, std::vector<double>(2));
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++)
      M[i][j] = x[2 * i + j];
  double t = 0;
  for (auto &row : M)
    for (double e : row)
      t += e * e * e;
  return t;
}

double rows(const double *x) {
  std::vector<double> proto(x, x + 4);
  std::vector<std::vector<double>> M(3, proto);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 4; j++)
      M[i][j] *= (i + 1) * x[j];
  double t = 0;
  for (auto &row : M)
    for (double e : row)
      t += e * e;
  return t;
}

int main() {
  const double pts[3][4] = {{0.3, -0.7, 1.1, 0.2}, {-1.2, 0.4, 0.9, -0.3}, {0.5, 1.5, -0.6, 0.8}};
  for (int p = 0; p < 3; p++) {
    for (int which = 0; which < 2; which++) {
      double x[4], d[4] = {0, 0, 0, 0};
      for (int i = 0; i < 4; i++)
        x[i] = pts[p][i];
      double (*f)(const double *) = which ? rows : zero_rows;
      check_at("%s point %d", which ? "rows" : "zero_rows", p);
#ifdef NO_AD
      for (int i = 0; i < 4; i++)
        d[i] = which ? 56 * x[i] * x[i] * x[i] : 3 * x[i] * x[i];
#else
      if (which)
        __enzyme_autodiff((void *)rows, x, d);
      else
        __enzyme_autodiff((void *)zero_rows, x, d);
#endif
      for (int i = 0; i < 4; i++) {
        double want = which ? 56 * x[i] * x[i] * x[i] : 3 * x[i] * x[i];
        check_close("reverse vs analytic", d[i], want, TOL_AD);
        check_close("reverse vs FD", d[i], fdn(f, x, 4, i), TOL_FD);
        double t[4] = {0, 0, 0, 0}, tan;
        t[i] = 1;
#ifdef NO_AD
        tan = want;
#else
        if (which)
          tan = __enzyme_fwddiff((void *)rows, x, t);
        else
          tan = __enzyme_fwddiff((void *)zero_rows, x, t);
#endif
        check_close("forward vs analytic", tan, want, TOL_AD);
      }
    }
  }
  return check_report();
}
