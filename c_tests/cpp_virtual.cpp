// cpp_virtual.cpp: C++ virtual calls through base pointers, in reverse
// mode, with and without exceptions:
//  - energy(): a sum over an array of Shape* (Spring, Pendulum, Coupled)
//    of shape->energy(x), differentiated with respect to x (dup) and the
//    objects' parameters (dup'd objects: shadow objects whose vtable
//    pointer is set with __enzyme_virtualreverse);
//  - make_and_eval(): objects created (new) and deleted (virtual
//    destructor) inside the differentiated function, whose shadow objects
//    enz-rs builds itself.
//   Spring:   k/2 (x_i - r)^2          Pendulum: m (1 - cos x_i)
//   Coupled:  c x_i x_j
// Derivatives are checked against the analytic ones and central finite
// differences. Build with -DNO_AD to replace the AD calls by the analytic
// derivatives.
#include <math.h>
#include "enzyme.h"
#include "check.h"

struct Shape {
  virtual ~Shape() {}
  virtual double energy(const double *x) const = 0;
};
struct Spring : Shape {
  int i;
  double k, r;
  Spring(int i, double k, double r) : i(i), k(k), r(r) {}
  double energy(const double *x) const override {
    double d = x[i] - r;
    return 0.5 * k * d * d;
  }
};
struct Pendulum : Shape {
  int i;
  double m;
  Pendulum(int i, double m) : i(i), m(m) {}
  double energy(const double *x) const override { return m * (1.0 - cos(x[i])); }
};
struct Coupled : Shape {
  int i, j;
  double c;
  Coupled(int i, int j, double c) : i(i), j(j), c(c) {}
  double energy(const double *x) const override { return c * x[i] * x[j]; }
};

__attribute__((noinline)) double energy(Shape *const *shapes, int n, const double *x) {
  double e = 0.0;
  for (int s = 0; s < n; s++)
    e += shapes[s]->energy(x);
  return e;
}

double make_and_eval(double x0, double x1, int which) {
  double x[2] = {x0, x1};
  Shape *s;
  if (which == 0)
    s = new Spring(0, 3.0, 0.5);
  else if (which == 1)
    s = new Pendulum(1, 2.0);
  else
    s = new Coupled(0, 1, 1.5);
  double e = s->energy(x) * x0;
  delete s;
  return e;
}

static double x_e[3];
static Shape *shapes_e[3];
static double energy_v(const double *x) { return energy(shapes_e, 3, x); }
static int which_e;
static double make_v(const double *x) { return make_and_eval(x[0], x[1], which_e); }

typedef struct {
  double d0, d1;
} grad2;
extern "C" grad2 __enzyme_autodiff_g2(void *, ...);

int main() {
  const double pts[2][3] = {{0.4, -0.9, 1.2}, {1.1, 0.3, -0.5}};
  for (int p = 0; p < 2; p++) {
    Spring a(0, 2.0, 0.3), da(0, 0.0, 0.0);
    Pendulum b(1, 1.5), db(1, 0.0);
    Coupled c(0, 2, 0.7), dc(0, 2, 0.0);
#ifndef NO_AD
    *(void **)&da = __enzyme_virtualreverse(*(void **)&a);
    *(void **)&db = __enzyme_virtualreverse(*(void **)&b);
    *(void **)&dc = __enzyme_virtualreverse(*(void **)&c);
#endif
    Shape *shapes[3] = {&a, &b, &c}, *dshapes[3] = {&da, &db, &dc};
    double x[3], dx[3] = {0, 0, 0};
    for (int k = 0; k < 3; k++)
      x[k] = x_e[k] = pts[p][k];
    for (int k = 0; k < 3; k++)
      shapes_e[k] = shapes[k];
    double gx[3] = {a.k * (x[0] - a.r) + c.c * x[2], b.m * sin(x[1]), c.c * x[0]};
    double gk = 0.5 * (x[0] - a.r) * (x[0] - a.r), gr = -a.k * (x[0] - a.r);
    double gm = 1.0 - cos(x[1]), gc = x[0] * x[2];
    check_at("energy point %d", p);
#ifdef NO_AD
    for (int k = 0; k < 3; k++)
      dx[k] = gx[k];
    da.k = gk, da.r = gr, db.m = gm, dc.c = gc;
#else
    __enzyme_autodiff((void *)energy, enzyme_dup, shapes, dshapes, enzyme_const, 3,
                      enzyme_dup, x, dx);
#endif
    for (int k = 0; k < 3; k++) {
      check_close_i("dx vs analytic", k, dx[k], gx[k], TOL_AD);
      check_close_i("dx vs FD", k, dx[k], fdn(energy_v, x, 3, k), TOL_FD);
    }
    check_close("dk vs analytic", da.k, gk, TOL_AD);
    check_close("dr vs analytic", da.r, gr, TOL_AD);
    check_close("dm vs analytic", db.m, gm, TOL_AD);
    check_close("dc vs analytic", dc.c, gc, TOL_AD);

    for (int w = 0; w < 3; w++) {
      double x0 = pts[p][0], x1 = pts[p][1], v[2] = {x0, x1};
      double e, d0, d1;
      if (w == 0) {
        e = 1.5 * (x0 - 0.5) * (x0 - 0.5);
        d0 = 3.0 * (x0 - 0.5) * x0 + e, d1 = 0.0;
      } else if (w == 1) {
        e = 2.0 * (1.0 - cos(x1));
        d0 = e, d1 = 2.0 * sin(x1) * x0;
      } else {
        e = 1.5 * x0 * x1;
        d0 = 1.5 * x1 * x0 + e, d1 = 1.5 * x0 * x0;
      }
      which_e = w;
      check_at("make_and_eval point %d which %d", p, w);
#ifdef NO_AD
      grad2 g = {d0, d1};
#else
      grad2 g = __enzyme_autodiff_g2((void *)make_and_eval, x0, x1, enzyme_const, w);
#endif
      check_close("d0 vs analytic", g.d0, d0, TOL_AD);
      check_close("d1 vs analytic", g.d1, d1, TOL_AD);
      check_close("d0 vs FD", g.d0, fdn(make_v, v, 2, 0), TOL_FD);
      check_close("d1 vs FD", g.d1, fdn(make_v, v, 2, 1), TOL_FD);
    }
  }
  return check_report();
}
