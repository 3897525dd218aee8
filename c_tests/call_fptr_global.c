/* call_fptr_global.c: functions reached through global function pointers:
 *  - g_rhs, a writable global initialised to a function (external
 *    linkage, so clang cannot fold it into a direct call), called in an
 *    explicit Euler loop: y += h g_rhs(y, a), n steps;
 *  - g_out, a global the differentiated function itself sets before
 *    calling through it;
 *  - g_alloc, an allocator reached through a global function pointer
 *    (malloc itself): the buffer it returns holds active values, so its
 *    shadow is allocated (zeroed) by the allocator's shadow.
 *   f(y0, a) = out(y_n) with y_{k+1} = y_k + h (-a y_k + sin(y_k)), out(u) = u^2
 * Derivatives with respect to y0 and a are checked against a hand-written
 * tangent of the same recurrence and central finite differences.
 * Build with -DNO_AD to replace the AD calls by the hand-written tangent. */
#include <math.h>
#include <stdlib.h>
#include "enzyme.h"
#include "check.h"

typedef struct {
  double dy0, da;
} grad2;
grad2 __enzyme_autodiff_g2(void *, ...);

static double decay(double y, double a) { return -a * y + sin(y); }
static double square(double u) { return u * u; }

double (*g_rhs)(double, double) = decay;
double (*g_out)(double);
void *(*g_alloc)(size_t) = malloc;

#define STEPS 12
static const double H = 0.1;

static double f(double y0, double a) {
  g_out = square;
  double *ys = g_alloc((STEPS + 1) * sizeof(double));
  ys[0] = y0;
  for (int k = 0; k < STEPS; k++)
    ys[k + 1] = ys[k] + H * g_rhs(ys[k], a);
  double r = g_out(ys[STEPS]);
  free(ys);
  return r;
}
static double f_v(const double *v) { return f(v[0], v[1]); }

static void tangent(double y0, double a, double *dy0, double *da) {
  double y = y0, ty = 1.0, ta = 0.0;
  for (int k = 0; k < STEPS; k++) {
    double j = 1.0 + H * (-a + cos(y));
    ta = j * ta - H * y;
    ty = j * ty;
    y = y + H * decay(y, a);
  }
  *dy0 = 2.0 * y * ty;
  *da = 2.0 * y * ta;
}

int main(void) {
  const double pts[3][2] = {{0.9, 0.4}, {-1.2, 1.3}, {2.0, -0.2}};
  for (int p = 0; p < 3; p++) {
    double y0 = pts[p][0], a = pts[p][1], wy, wa;
    tangent(y0, a, &wy, &wa);
    check_at("y0=%g a=%g", y0, a);
#ifdef NO_AD
    grad2 g = {wy, wa};
#else
    grad2 g = __enzyme_autodiff_g2((void *)f, y0, a);
#endif
    check_close("dy0 vs hand tangent", g.dy0, wy, TOL_AD);
    check_close("da vs hand tangent", g.da, wa, TOL_AD);
    check_close("dy0 vs FD", g.dy0, fdn(f_v, pts[p], 2, 0), TOL_FD);
    check_close("da vs FD", g.da, fdn(f_v, pts[p], 2, 1), TOL_FD);
  }
  return check_report();
}
