// cpp_vector_of_objects.cpp: objects made inside the differentiated
// function and kept in a growing std::vector, then changed and read
// through virtual calls, reverse and forward mode, with and without
// exceptions:
//  - by_pointer(x): std::vector<Shape *> filled by push_back (the second
//    push_back reallocates and moves the first pointer, which clang folds
//    into storing the pointer as an integer), each shape scaled by x2,
//    the areas summed, the shapes deleted;
//  - owned(x): the same with std::vector<std::unique_ptr<Shape>> and a
//    third shape Circle(x3 x0).
//   Circle(r).scale(s): r s;  area pi r^2
//   Rect(w, h).scale(s): w s, h s sqrt(s^2 + 1);  area w h
// so by_pointer = pi x0^2 x2^2 + x1 x2^2 q (q = sqrt(x2^2 + 1)) and owned
// adds pi x3^2 x0^2 x2^2. Checked against those derivatives and central
// finite differences.
#include <math.h>
#include <memory>
#include <vector>
#include "enzyme.h"
#include "check.h"

static const double PI = 3.14159265358979;

struct Shape {
  virtual ~Shape() {}
  virtual double area() const = 0;
  virtual void scale(double s) = 0;
};
struct Circle : Shape {
  double r;
  explicit Circle(double r) : r(r) {}
  double area() const override { return PI * r * r; }
  void scale(double s) override { r *= s; }
};
struct Rect : Shape {
  double w, h;
  Rect(double w, double h) : w(w), h(h) {}
  double area() const override { return w * h; }
  void scale(double s) override {
    w *= s;
    h *= s * sqrt(s * s + 1);
  }
};

double by_pointer(const double *x) {
  std::vector<Shape *> v;
  v.push_back(new Circle(x[0]));
  v.push_back(new Rect(x[1], 1.0));
  double t = 0;
  for (Shape *s : v) {
    s->scale(x[2]);
    t += s->area();
  }
  for (Shape *s : v)
    delete s;
  return t;
}

double owned(const double *x) {
  std::vector<std::unique_ptr<Shape>> v;
  v.push_back(std::make_unique<Circle>(x[0]));
  v.push_back(std::make_unique<Rect>(x[1], 1.0));
  v.push_back(std::make_unique<Circle>(x[3] * x[0]));
  double t = 0;
  for (auto &s : v) {
    s->scale(x[2]);
    t += s->area();
  }
  return t;
}

// Gradients of both (g[3] = 0 for by_pointer).
static void grad(const double *x, bool with_third, double *g) {
  double q = sqrt(x[2] * x[2] + 1), c = with_third ? 1 + x[3] * x[3] : 1;
  g[0] = 2 * PI * x[0] * x[2] * x[2] * c;
  g[1] = x[2] * x[2] * q;
  g[2] = 2 * PI * x[0] * x[0] * x[2] * c + x[1] * (2 * x[2] * q + x[2] * x[2] * x[2] / q);
  g[3] = with_third ? 2 * PI * x[3] * x[0] * x[0] * x[2] * x[2] : 0;
}

int main() {
  const double pts[3][4] = {{0.3, -0.7, 1.1, 0.2}, {-1.2, 0.4, 0.9, -0.3}, {0.5, 1.5, -0.6, 0.8}};
  for (int p = 0; p < 3; p++) {
    for (int which = 0; which < 2; which++) {
      double x[4], d[4] = {0, 0, 0, 0}, want[4];
      for (int i = 0; i < 4; i++)
        x[i] = pts[p][i];
      double (*f)(const double *) = which ? owned : by_pointer;
      grad(x, which, want);
      check_at("%s point %d", which ? "owned" : "by_pointer", p);
#ifdef NO_AD
      for (int i = 0; i < 4; i++)
        d[i] = want[i];
#else
      if (which)
        __enzyme_autodiff((void *)owned, x, d);
      else
        __enzyme_autodiff((void *)by_pointer, x, d);
#endif
      for (int i = 0; i < 4; i++) {
        check_close("reverse vs analytic", d[i], want[i], TOL_AD);
        check_close("reverse vs FD", d[i], fdn(f, x, 4, i), TOL_FD);
        double t[4] = {0, 0, 0, 0}, tan;
        t[i] = 1;
#ifdef NO_AD
        tan = want[i];
#else
        if (which)
          tan = __enzyme_fwddiff((void *)owned, x, t);
        else
          tan = __enzyme_fwddiff((void *)by_pointer, x, t);
#endif
        check_close("forward vs analytic", tan, want[i], TOL_AD);
      }
    }
  }
  return check_report();
}
