// cpp_io.cpp: active code surrounded by I/O, in reverse and forward mode,
// with and without exceptions: values printed with iostream and printf,
// written to a file with fstream and formatted into a stringstream carry
// no derivative and change nothing:
//   f(x, y) = sin(x) * y + x^2 y, with intermediates printed, written and
//   formatted (the stream's text is used only to compute a length that
//   is printed)
//   df/dx = cos(x) y + 2 x y,   df/dy = sin(x) + x^2
// Checked against the analytic derivatives and central finite differences.
#include <math.h>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include "enzyme.h"
#include "check.h"

static int verbose = 0;

double logged(double x, double y) {
  double s = sin(x) * y;
  std::ostringstream os;
  os << "s=" << s << " x=" << x;
  std::string text = os.str();
  if (verbose)
    std::cout << text << " (" << text.size() << " chars)" << std::endl;
  {
    std::ofstream out("/dev/null");
    out << s << ' ' << y << '\n';
  }
  double q = x * x * y;
  if (verbose)
    printf("q=%g\n", q);
  std::cerr << "";
  return s + q;
}

static double y_g;
static double logged_x(double x) { return logged(x, y_g); }
static double x_g;
static double logged_y(double y) { return logged(x_g, y); }

typedef struct {
  double dx, dy;
} grad2;
extern "C" grad2 __enzyme_autodiff_g2(void *, ...);

int main(int argc, char **argv) {
  (void)argv;
  verbose = argc > 1;
  const double pts[3][2] = {{0.3, 1.2}, {-1.4, 0.7}, {2.2, -0.5}};
  for (int p = 0; p < 3; p++) {
    double x = pts[p][0], y = pts[p][1];
    x_g = x;
    y_g = y;
    double wx = cos(x) * y + 2 * x * y, wy = sin(x) + x * x;
    check_at("x=%g y=%g", x, y);
#ifdef NO_AD
    grad2 g = {wx, wy};
    double tx = wx, ty = wy;
#else
    grad2 g = __enzyme_autodiff_g2((void *)logged, x, y);
    double tx = __enzyme_fwddiff((void *)logged, x, 1.0, y, 0.0);
    double ty = __enzyme_fwddiff((void *)logged, x, 0.0, y, 1.0);
#endif
    check_close("dx vs analytic", g.dx, wx, TOL_AD);
    check_close("dy vs analytic", g.dy, wy, TOL_AD);
    check_close("dx vs FD", g.dx, fd1(logged_x, x), TOL_FD);
    check_close("dy vs FD", g.dy, fd1(logged_y, y), TOL_FD);
    check_close("forward dx vs analytic", tx, wx, TOL_AD);
    check_close("forward dy vs analytic", ty, wy, TOL_AD);
  }
  return check_report();
}
