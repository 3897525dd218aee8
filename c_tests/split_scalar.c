/* split_scalar.c: split reverse mode on scalar functions.
 *   tape = __enzyme_augmentfwd((void *)f, <args as for __enzyme_autodiff>)
 *     runs the forward sweep and returns an opaque heap tape;
 *   __enzyme_reverse((void *)f, <same args>, dret, tape)
 *     runs the reverse sweep with the return adjoint seeded with dret (NOT
 *     implicitly 1.0) and returns the adjoints of the `out` parameters
 *     (a double for one, a struct for several, as __enzyme_autodiff).
 *   f(x, y) = x^2 y + sin(x y)   both `out` (unmarked), and x enzyme_const
 *   h(x)    = exp(0.5 x) / (1 + x^2)
 * Checked: dret scaling (1, 2.5, -0.75, 0), agreement with
 * __enzyme_autodiff, analytic and FD; two tapes live at once, reversed in
 * either order (each call owns its tape).
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include <stdlib.h>
#include "enzyme.h"
#include "check.h"

typedef struct { double dx, dy; } grad2;
grad2 __enzyme_autodiff_grad2(void *, ...);
grad2 __enzyme_reverse_grad2(void *, ...);
double __enzyme_reverse_d(void *, ...);

static double f(double x, double y) { return x * x * y + sin(x * y); }
static double f_v(double *v) { return f(v[0], v[1]); }
static grad2 f_grad(double x, double y) {
  grad2 g = {2.0 * x * y + y * cos(x * y), x * x + x * cos(x * y)};
  return g;
}
static double h(double x) { return exp(0.5 * x) / (1.0 + x * x); }
static double dh(double x) {
  double q = 1.0 + x * x;
  return exp(0.5 * x) * (0.5 * q - 2.0 * x) / (q * q);
}

#ifdef NO_AD
/* the tape: the inputs the reverse sweep needs */
typedef struct { double x, y; } emul_tape;
static void *emul_aug(double x, double y) {
  emul_tape *t = (emul_tape *)malloc(sizeof *t);
  t->x = x;
  t->y = y;
  (void)f(x, y); /* the primal */
  return t;
}
static grad2 emul_rev(double dret, void *tape) {
  emul_tape *t = (emul_tape *)tape;
  grad2 g = f_grad(t->x, t->y);
  g.dx *= dret;
  g.dy *= dret;
  free(t);
  return g;
}
static double emul_rev_h(double dret, void *tape) {
  double d = dh(((emul_tape *)tape)->x) * dret;
  free(tape);
  return d;
}
#endif

int main(void) {
  const double pts[3][2] = {{0.7, -1.3}, {-1.1, 0.4}, {1.6, 0.9}};
  const double drets[4] = {1.0, 2.5, -0.75, 0.0};
  const double ex[2] = {1.0, 0.0}, ey[2] = {0.0, 1.0};
  for (int p = 0; p < 3; p++) {
    double x = pts[p][0], y = pts[p][1];
    grad2 w = f_grad(x, y);
    for (int r = 0; r < 4; r++) {
      double dret = drets[r];
      check_at("f point %d dret=%g", p, dret);
#ifdef NO_AD
      void *tape = emul_aug(x, y);
      grad2 g = emul_rev(dret, tape);
#else
      void *tape = __enzyme_augmentfwd((void *)f, x, y);
      grad2 g = __enzyme_reverse_grad2((void *)f, x, y, dret, tape);
#endif
      check_close("dx vs analytic", g.dx, dret * w.dx, TOL_AD);
      check_close("dy vs analytic", g.dy, dret * w.dy, TOL_AD);
      check_close("dx vs FD", g.dx, dret * fddir(f_v, pts[p], ex, 2), TOL_FD);
      check_close("dy vs FD", g.dy, dret * fddir(f_v, pts[p], ey, 2), TOL_FD);
    }
    /* against __enzyme_autodiff (dret = 1) */
    check_at("f point %d vs autodiff", p);
#ifdef NO_AD
    grad2 a = f_grad(x, y);
    grad2 s = emul_rev(1.0, emul_aug(x, y));
#else
    grad2 a = __enzyme_autodiff_grad2((void *)f, x, y);
    void *tape = __enzyme_augmentfwd((void *)f, enzyme_out, x, enzyme_out, y);
    grad2 s = __enzyme_reverse_grad2((void *)f, enzyme_out, x, enzyme_out, y, 1.0, tape);
#endif
    check_close("split dx vs autodiff", s.dx, a.dx, TOL_AD);
    check_close("split dy vs autodiff", s.dy, a.dy, TOL_AD);

    /* x const: one `out` parameter, a double result */
    check_at("f (x const) point %d", p);
#ifdef NO_AD
    double dy1 = emul_rev(3.0, emul_aug(x, y)).dy;
#else
    void *tc = __enzyme_augmentfwd((void *)f, enzyme_const, x, y);
    double dy1 = __enzyme_reverse_d((void *)f, enzyme_const, x, y, 3.0, tc);
#endif
    check_close("dy vs analytic", dy1, 3.0 * w.dy, TOL_AD);

    /* h: one parameter */
    check_at("h x=%g", x);
#ifdef NO_AD
    double dhx = emul_rev_h(-2.0, emul_aug(x, 0.0));
#else
    void *th = __enzyme_augmentfwd((void *)h, x);
    double dhx = __enzyme_reverse_d((void *)h, x, -2.0, th);
#endif
    check_close("dx vs analytic", dhx, -2.0 * dh(x), TOL_AD);
    check_close("dx vs FD", dhx, -2.0 * fd1(h, x), TOL_FD);
  }

  /* two tapes live at once */
  for (int order = 0; order < 2; order++) {
    double x1 = pts[0][0], y1 = pts[0][1], x2 = pts[2][0], y2 = pts[2][1];
    grad2 w1 = f_grad(x1, y1), w2 = f_grad(x2, y2), g1, g2;
    check_at("two live tapes, order %d", order);
#ifdef NO_AD
    void *t1 = emul_aug(x1, y1);
    void *t2 = emul_aug(x2, y2);
    if (order == 0) {
      g2 = emul_rev(1.5, t2);
      g1 = emul_rev(0.5, t1);
    } else {
      g1 = emul_rev(0.5, t1);
      g2 = emul_rev(1.5, t2);
    }
#else
    void *t1 = __enzyme_augmentfwd((void *)f, x1, y1);
    void *t2 = __enzyme_augmentfwd((void *)f, x2, y2);
    if (order == 0) {
      g2 = __enzyme_reverse_grad2((void *)f, x2, y2, 1.5, t2);
      g1 = __enzyme_reverse_grad2((void *)f, x1, y1, 0.5, t1);
    } else {
      g1 = __enzyme_reverse_grad2((void *)f, x1, y1, 0.5, t1);
      g2 = __enzyme_reverse_grad2((void *)f, x2, y2, 1.5, t2);
    }
#endif
    check_close("first dx", g1.dx, 0.5 * w1.dx, TOL_AD);
    check_close("first dy", g1.dy, 0.5 * w1.dy, TOL_AD);
    check_close("second dx", g2.dx, 1.5 * w2.dx, TOL_AD);
    check_close("second dy", g2.dy, 1.5 * w2.dy, TOL_AD);
  }
  return check_report();
}
