// C++ with exceptions (the default) reaches __enzyme_autodiff through
// `invoke` inside a try block with a destructor to run; the gradient of
// p0 * sin(p1) must come out right and the module must link.
#include <cstdio>
#include <cmath>
#include <stdexcept>
extern "C" { extern int enzyme_dup; void __enzyme_autodiff(void*, ...); }
struct Guard { ~Guard() { std::puts("guard"); } };
static double prod(const double *p) { return p[0] * std::sin(p[1]); }
int main() {
  double x[2] = {3.0, 0.5}, dx[2] = {0, 0};
#if __cpp_exceptions
  try { Guard g; __enzyme_autodiff((void*)prod, enzyme_dup, x, dx); }
  catch (const std::exception &e) { std::puts(e.what()); return 2; }
#else
  { Guard g; __enzyme_autodiff((void*)prod, enzyme_dup, x, dx); }
#endif
  std::printf("%.12f %.12f\n", dx[0], dx[1]);
  return (std::fabs(dx[0] - std::sin(0.5)) < 1e-12 && std::fabs(dx[1] - 3.0 * std::cos(0.5)) < 1e-12) ? 0 : 1;
}
