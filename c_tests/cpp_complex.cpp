// cpp_complex.cpp: std::complex<double> arithmetic with abs, arg and exp,
// reverse and forward mode, with and without exceptions (and so through
// libgcc's __muldc3/__divdc3 and libm's cabs/carg/cexp where clang calls
// them):
//   z = x + i y,  w = z * z / (z + 2) ,  u = exp(w) * conj(z)
//   f(x, y) = |u| + arg(w) + real(u)
// Derivatives checked against central finite differences and against the
// analytic ones computed with complex calculus: for holomorphic g,
// d g / dx = g'(z), d g / dy = i g'(z); with h = |u| + arg(w) + re(u):
//   dh = re(conj(u)/|u| du) + im(dw / w) + re(du)
// where du = exp(w) w' conj(z) dz + exp(w) conj(dz), w' = (z^2 + 4z)/(z+2)^2.
#include <complex>
#include <math.h>
#include "enzyme.h"
#include "check.h"

typedef std::complex<double> cd;

double cfun(double x, double y) {
  cd z(x, y);
  cd w = z * z / (z + 2.0);
  cd u = std::exp(w) * std::conj(z);
  return std::abs(u) + std::arg(w) + u.real();
}

static void analytic(double x, double y, double *gx, double *gy) {
  cd z(x, y);
  cd w = z * z / (z + 2.0);
  cd wp = (z * z + 4.0 * z) / ((z + 2.0) * (z + 2.0));
  cd u = std::exp(w) * std::conj(z);
  for (int k = 0; k < 2; k++) {
    cd dz = k == 0 ? cd(1, 0) : cd(0, 1);
    cd dw = wp * dz;
    cd du = std::exp(w) * dw * std::conj(z) + std::exp(w) * std::conj(dz);
    double dh = (std::conj(u) * du).real() / std::abs(u) + (dw / w).imag() + du.real();
    (k == 0 ? *gx : *gy) = dh;
  }
}

static double y_g;
static double fx(double x) { return cfun(x, y_g); }
static double x_g;
static double fy(double y) { return cfun(x_g, y); }

typedef struct {
  double dx, dy;
} grad2;
extern "C" grad2 __enzyme_autodiff_g2(void *, ...);

int main() {
  const double pts[3][2] = {{0.7, 0.4}, {-0.5, 1.3}, {1.6, -0.8}};
  for (int p = 0; p < 3; p++) {
    double x = pts[p][0], y = pts[p][1];
    x_g = x;
    y_g = y;
    double wx, wy;
    analytic(x, y, &wx, &wy);
    check_at("x=%g y=%g", x, y);
#ifdef NO_AD
    grad2 g = {wx, wy};
    double tx = wx, ty = wy;
#else
    grad2 g = __enzyme_autodiff_g2((void *)cfun, x, y);
    double tx = __enzyme_fwddiff((void *)cfun, x, 1.0, y, 0.0);
    double ty = __enzyme_fwddiff((void *)cfun, x, 0.0, y, 1.0);
#endif
    check_close("dx vs analytic", g.dx, wx, TOL_AD);
    check_close("dy vs analytic", g.dy, wy, TOL_AD);
    check_close("dx vs FD", g.dx, fd1(fx, x), TOL_FD);
    check_close("dy vs FD", g.dy, fd1(fy, y), TOL_FD);
    check_close("forward dx vs analytic", tx, wx, TOL_AD);
    check_close("forward dy vs analytic", ty, wy, TOL_AD);
  }
  return check_report();
}
