/* error_estimate.c: __enzyme_error_estimate, forward mode whose tangents
 * are bounds on rounding error. Each operation r of operands x_k carrying
 * errors e_k gets
 *     e(r) = max(ulp(r), sum_k |dr/dx_k * x_k / r * e_k|),
 * ulp(r) = |r - r'| with r' the float whose lowest bit differs from r's.
 * Every bound is checked (relative 1e-12) against the same recurrence
 * written out here operation by operation:
 *  - (1 - cos x) / x^2 at x = 1e-7: catastrophic cancellation, a bound of
 *    2.2e-2 on a result of 0.5; exact input, and an input error of 1e-20;
 *  - a + b through pointers (the bound lands in the shadow of *ret), with
 *    input errors on a and b;
 *  - Horner's rule over a loop, through a callee kept out of line, with an
 *    error on x;
 *  - a float function (float ulps);
 *  - the logger: enzymeLogError(id, err) is called once per operation
 *    (4, then 6 for Horner's three steps), its last bound the result's. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "enzyme.h"
#include "check.h"

float __enzyme_error_estimate_f(void *, ...);

static int logged;
static double last_logged;

void enzymeLogError(const char *id, double err) {
  (void)id;
  logged++;
  last_logged = err;
}

static double ulp(double r) {
  uint64_t bits;
  memcpy(&bits, &r, sizeof bits);
  bits ^= 1;
  double n;
  memcpy(&n, &bits, sizeof n);
  return fabs(r - n);
}

static float ulpf(float r) {
  uint32_t bits;
  memcpy(&bits, &r, sizeof bits);
  bits ^= 1;
  float n;
  memcpy(&n, &bits, sizeof n);
  return fabsf(r - n);
}

static double bound(double r, double propagated) {
  double u = ulp(r);
  return propagated > u ? propagated : u;
}

/* got / want within 1e-12 of 1 (the bounds are far below check_close's
 * absolute floor). */
static void check_rel(const char *what, double got, double want) {
  printf("     %s: bound %.17g, recurrence %.17g\n", what, got, want);
  check_close(what, got / want, 1.0, 1e-12);
}

/* --- (1 - cos x) / x^2 ------------------------------------------------- */

double cancel(double x) {
  double v1 = cos(x);
  double v2 = 1.0 - v1;
  double v3 = x * x;
  return v2 / v3;
}

static double cancel_bound(double x, double ex) {
  double v1 = cos(x), v2 = 1.0 - v1, v3 = x * x, v4 = v2 / v3;
  double e1 = bound(v1, fabs(-sin(x) * (ex * x / v1)));
  double e2 = bound(v2, fabs(-(e1 * v1 / v2)));
  double e3 = bound(v3, fabs(ex * x / v3 * x) + fabs(ex * x / v3 * x));
  double e4 = bound(v4, fabs((e2 * v2 / v4) / v3) + fabs((e3 * v3 / v4) * v2 / (v3 * v3)));
  return e4;
}

/* --- a + b through pointers ---------------------------------------------- */

void add_ptr(const double *a, const double *b, double *ret) { *ret = *a + *b; }

/* --- Horner's rule in a callee ---------------------------------------------- */

static const double C[4] = {0.75, -1.5, 2.25, 1.125};

__attribute__((noinline)) double horner(double x) {
  double s = C[3];
  for (int k = 2; k >= 0; k--) {
    double t = s * x;
    s = t + C[k];
  }
  return s;
}

double horner_twice(double x) { return horner(x) * 2.0; }

static double horner_bound(double x, double ex) {
  double s = C[3], es = 0;
  for (int k = 2; k >= 0; k--) {
    double t = s * x;
    double et = bound(t, fabs(es * s / t * x) + fabs(ex * x / t * s));
    double u = t + C[k];
    es = bound(u, fabs(et * t / u));
    s = u;
  }
  double r = s * 2.0;
  return bound(r, fabs(es * s / r * 2.0));
}

/* --- float ------------------------------------------------------------------- */

float squaref(float x) {
  float t = x * x;
  return t * 3.0f;
}

static float squaref_bound(float x, float ex) {
  float t = x * x, r = t * 3.0f;
  float et0 = fabsf(ex * x / t * x) + fabsf(ex * x / t * x);
  float et = et0 > ulpf(t) ? et0 : ulpf(t);
  float er0 = fabsf(et * t / r * 3.0f);
  return er0 > ulpf(r) ? er0 : ulpf(r);
}

int main(void) {
  const double xs[] = {1e-7, 1e-3, 0.5};
  for (int k = 0; k < 3; k++) {
    double x = xs[k];
    check_at("cancel x=%g", x);
    logged = 0;
    double e = __enzyme_error_estimate((void *)cancel, x, 0.0);
    check_rel("exact input", e, cancel_bound(x, 0.0));
    check_close("operations logged", logged, 4, 0);
    check_rel("last logged is the result's", last_logged, e);
    double e2 = __enzyme_error_estimate((void *)cancel, x, 1e-20);
    check_rel("input error 1e-20", e2, cancel_bound(x, 1e-20));
  }
  check_close("cancellation at 1e-7: bound 2.2e-2", __enzyme_error_estimate((void *)cancel, 1e-7, 0.0), 2.2222222222e-2, 1e-4);

  double a = 99.0, b = 127.0, ea = 3e-15, eb = 1e-14, r = 0, er = 0;
  check_at("add_ptr");
  __enzyme_error_estimate((void *)add_ptr, &a, &ea, &b, &eb, &r, &er);
  check_close("primal", r, 226.0, 0);
  check_rel("bound", er, bound(226.0, fabs(ea * a / r) + fabs(eb * b / r)));
  ea = eb = 0;
  __enzyme_error_estimate((void *)add_ptr, &a, &ea, &b, &eb, &r, &er);
  check_rel("exact inputs: one ulp of 226 (2^-45)", er, ldexp(1.0, -45));

  for (int k = 0; k < 3; k++) {
    double x = 0.3 + 0.7 * k, ex = 1e-15 * (k + 1);
    check_at("horner x=%g", x);
    logged = 0;
    double e = __enzyme_error_estimate((void *)horner_twice, x, ex);
    check_rel("bound", e, horner_bound(x, ex));
    check_close("operations logged", logged, 7, 0);
  }

  check_at("squaref");
  float ef = __enzyme_error_estimate_f((void *)squaref, 1.7f, 1e-7f);
  printf("     float bound %.9g, recurrence %.9g\n", ef, squaref_bound(1.7f, 1e-7f));
  check_close("float bound / recurrence", ef / squaref_bound(1.7f, 1e-7f), 1.0, 1e-5);
  return check_report();
}
