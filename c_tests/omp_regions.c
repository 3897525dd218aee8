/* omp_regions.c: OpenMP parallel regions (clang -fopenmp, libomp), their
 * gradients (reverse mode: the reverse sweep is a parallel region too),
 * split mode (__enzyme_augmentfwd then __enzyme_reverse, the regions in
 * the augmented part), forward derivatives and vector forward derivatives
 * (enzyme_width 2), at 1, 2 and 4 threads, the gradient against central
 * differences of the whole parallel primal, the other modes against it:
 *   reduction   parallel for reduction(+:s)
 *   scatter     #pragma omp atomic updates of shared bins that collide
 *   dynamic     schedule(dynamic) with a data-dependent inner trip count
 *   guided      the same with schedule(guided, 2)
 *   shared      a shared scalar every thread reads (its adjoint collides)
 *   critical    a sum under #pragma omp critical
 *   calls       a function called inside the region
 *   matvec      nested loops: every thread reads every x[j]
 *   threadsum   parallel region without worksharing: per-thread partial
 *               sums indexed by omp_get_thread_num()
 *   twoloops    two worksharing loops in one region, the second reading
 *               what other threads wrote in the first (implicit barrier)
 *   private     private scratch array and a firstprivate integer
 *   single      #pragma omp single computes a shared value every thread
 *               then reads (the single's implicit barrier mirrored)
 *   lastpriv    lastprivate(t): the last iteration's value, from whichever
 *               thread ran it
 *   chunked     schedule(static, 3)
 *   collapsed   collapse(2) (one linearised variable; every x atomic)
 *   arrayred    reduction(+ : a[:4]) over an array section
 *   nested      a parallel loop inside a parallel loop
 *   byvalue     a firstprivate double (passed by value, its bits in an
 *               integer), active, changed inside each thread
 *   numthreads  num_threads(3) on the region
 *   extrema     reduction(max:hi) reduction(min:lo): the adjoint reaches
 *               the element that is the extremum
 *   product     reduction(*:p)
 *   forloop     #pragma omp for reduction(+:s) inside a parallel region
 *               (the blocking reduction: the team waits at its end)
 */
// enz-cflags: -fopenmp
#include <math.h>
#include <omp.h>
#include <string.h>
#include "enzyme.h"
#include "check.h"

double __enzyme_autodiff_d(void *, ...);
double __enzyme_fwddiff_d(void *, ...);
void *__enzyme_augmentfwd(void *, ...);
void __enzyme_reverse_v(void *, ...);
typedef struct {
  double d[2];
} tan2;
tan2 __enzyme_fwddiff_w2(void *, ...);

#define N 24
#define NB 5

static const int idx[N] = {0, 3, 1, 4, 2, 0, 0, 3, 1, 4, 2, 2, 1, 0, 3, 4, 4, 1, 2, 0, 3, 1, 0, 2};
static const int cnt[N] = {1, 3, 2, 4, 1, 2, 3, 4, 2, 1, 1, 3, 4, 2, 2, 1, 3, 3, 4, 1, 2, 2, 4, 1};

double reduction(double *x) {
  double s = 0.0;
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < N; i++)
    s += sin(x[i]) * x[i] * (1.0 + 0.1 * i);
  return s;
}

double scatter(double *x) {
  double bins[NB] = {0};
#pragma omp parallel for
  for (int i = 0; i < N; i++) {
    double v = x[i] * x[i] + 0.5 * x[i];
#pragma omp atomic
    bins[idx[i]] += v;
  }
  double s = 0.0;
  for (int b = 0; b < NB; b++)
    s += bins[b] * bins[b] * (b + 1);
  return s;
}

double dynamic(double *x) {
  double s = 0.0;
#pragma omp parallel for schedule(dynamic) reduction(+ : s)
  for (int i = 0; i < N; i++) {
    double t = x[i];
    for (int k = 0; k < cnt[i]; k++)
      t = 0.5 * t * t + 0.1 * t + 0.05;
    s += t;
  }
  return s;
}

double guided(double *x) {
  double s = 0.0;
#pragma omp parallel for schedule(guided, 2) reduction(+ : s)
  for (int i = 0; i < N; i++) {
    double t = x[i];
    for (int k = 0; k < cnt[i]; k++)
      t = cos(t) * t + 0.1;
    s += t * t;
  }
  return s;
}

double shared(double *x) {
  double y[N];
  double a = x[0];
#pragma omp parallel for
  for (int i = 0; i < N; i++)
    y[i] = a * x[i] + sin(a);
  double s = 0.0;
  for (int i = 0; i < N; i++)
    s += y[i] * y[i];
  return s;
}

double critical(double *x) {
  double s = 0.0;
#pragma omp parallel for
  for (int i = 0; i < N; i++) {
    double v = exp(0.1 * x[i]) * x[i];
#pragma omp critical
    s += v;
  }
  return s;
}

__attribute__((noinline)) static double helper(double u, double w) {
  return u * tanh(w) + w * w * u;
}

double calls(double *x) {
  double s = 0.0;
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < N; i++)
    s += helper(x[i], x[(i + 5) % N]);
  return s;
}

double matvec(double *x) {
  double y[N];
#pragma omp parallel for
  for (int i = 0; i < N; i++) {
    double t = 0.0;
    for (int j = 0; j < N; j++)
      t += x[j] * (1.0 / (1.0 + i + j));
    y[i] = tanh(t);
  }
  double s = 0.0;
  for (int i = 0; i < N; i++)
    s += y[i] * (i + 1);
  return s;
}

double threadsum(double *x) {
  double partial[64];
  int used = 1;
#pragma omp parallel shared(partial, used)
  {
    int t = omp_get_thread_num(), nt = omp_get_num_threads();
    double p = 0.0;
    for (int i = t; i < N; i += nt)
      p += x[i] * x[i] * x[i];
    partial[t] = p;
    if (t == 0)
      used = nt;
  }
  double s = 0.0;
  for (int t = 0; t < used; t++)
    s += partial[t];
  return s;
}

double twoloops(double *x) {
  double y[N], z[N];
#pragma omp parallel
  {
#pragma omp for
    for (int i = 0; i < N; i++)
      y[i] = x[i] * x[i] + 1.0;
#pragma omp for
    for (int i = 0; i < N; i++)
      z[i] = y[(i + 1) % N] * x[i] + y[(i + 7) % N];
  }
  double s = 0.0;
  for (int i = 0; i < N; i++)
    s += z[i] * z[i];
  return s;
}

double privates(double *x) {
  double s = 0.0;
  int off = 2;
  double tmp[3];
#pragma omp parallel for private(tmp) firstprivate(off) reduction(+ : s)
  for (int i = 0; i < N; i++) {
    for (int k = 0; k < 3; k++)
      tmp[k] = x[(i + k * off) % N] * (k + 1);
    s += tmp[0] * tmp[1] + tmp[2];
  }
  return s;
}

double single(double *x) {
  double c = 0.0, y[N];
#pragma omp parallel shared(c, y)
  {
#pragma omp single
    c = sin(x[0]) + x[3] * x[4];
#pragma omp for
    for (int i = 0; i < N; i++)
      y[i] = c * x[i] + c * c;
  }
  double s = 0.0;
  for (int i = 0; i < N; i++)
    s += y[i] * y[i];
  return s;
}

double lastpriv(double *x) {
  double t = 0.0, s = 0.0;
#pragma omp parallel for lastprivate(t) reduction(+ : s)
  for (int i = 0; i < N; i++) {
    t = x[i] * x[i];
    s += t;
  }
  return s + 3.0 * t;
}

double chunked(double *x) {
  double s = 0.0;
#pragma omp parallel for schedule(static, 3) reduction(+ : s)
  for (int i = 0; i < N; i++)
    s += sin(x[i]) * x[(i + 1) % N];
  return s;
}

double collapsed(double *x) {
  double s = 0.0;
#pragma omp parallel for collapse(2) reduction(+ : s)
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 6; j++)
      s += x[i * 6 + j] * x[j * 4 + i];
  return s;
}

double arrayred(double *x) {
  double a[4] = {0, 0, 0, 0};
#pragma omp parallel for reduction(+ : a[:4])
  for (int i = 0; i < N; i++)
    a[i % 4] += x[i] * x[i];
  return a[0] * a[1] + a[2] * a[3];
}

double nested(double *x) {
  double s = 0.0;
#pragma omp parallel for reduction(+ : s)
  for (int i = 0; i < 4; i++) {
    double t = 0.0;
#pragma omp parallel for reduction(+ : t)
    for (int j = 0; j < 6; j++)
      t += x[i * 6 + j] * (j + 1);
    s += t * t;
  }
  return s;
}

double byvalue(double *x) {
  double a = x[1] * x[2], s = 0.0;
#pragma omp parallel for firstprivate(a) reduction(+ : s)
  for (int i = 0; i < N; i++) {
    s += a * x[i];
    a = a * 0.5 + x[i] * 0.1;
  }
  return s;
}

double numthreads(double *x) {
  double s = 0.0;
#pragma omp parallel for num_threads(3) reduction(+ : s)
  for (int i = 0; i < N; i++)
    s += x[i] * exp(-x[i] * x[i]);
  return s;
}

double extrema(double *x) {
  double hi = -1e300, lo = 1e300;
#pragma omp parallel for reduction(max : hi) reduction(min : lo)
  for (int i = 0; i < N; i++) {
    double v = sin(3.0 * x[i]) + 0.01 * i;
    if (v > hi)
      hi = v;
    if (v < lo)
      lo = v;
  }
  return hi * hi - 2.0 * lo;
}

double product(double *x) {
  double p = 1.0;
#pragma omp parallel for reduction(* : p)
  for (int i = 0; i < N; i++)
    p *= 1.0 + 0.1 * x[i] * x[i];
  return p;
}

double forloop(double *x) {
  double s = 0.0, q = 1.0;
#pragma omp parallel
  {
#pragma omp for reduction(+ : s) reduction(* : q)
    for (int i = 0; i < N; i++) {
      s += x[i] * x[i] * x[(i + 3) % N];
      q *= 1.0 + 0.01 * x[i];
    }
  }
  return s * q;
}

typedef double (*objective)(double *);

/* d f / d x[i] by central differences, the primal running in parallel. */
static double fd(objective f, const double *x, int i) {
  double p[N], m[N];
  memcpy(p, x, sizeof p);
  memcpy(m, x, sizeof m);
  double h = 1e-6 * (1.0 + fabs(x[i]));
  p[i] += h;
  m[i] -= h;
  return (f(p) - f(m)) / (p[i] - m[i]);
}

static void check_case(const char *name, objective f, double df(double *, double *),
                       double fwd(double *, double *), void split(double *, double *),
                       tan2 fwd2(double *, double *, double *)) {
  double x[N], dx[N], v[N], dv[N], w[N], dw[N], ds[N];
  for (int i = 0; i < N; i++)
    x[i] = 0.3 + 0.05 * i - 0.002 * i * i;
  for (int threads = 1; threads <= 4; threads *= 2) {
    omp_set_num_threads(threads);
    check_at("%s, %d threads", name, threads);
    memset(dx, 0, sizeof dx);
    df(x, dx);
    double dot = 0.0;
    for (int i = 0; i < N; i++) {
      check_close_i("reverse vs FD", i, dx[i], fd(f, x, i), TOL_FD);
      v[i] = 0.5 + 0.25 * ((i * 7) % 5);
      dot += dx[i] * v[i];
    }
    memcpy(dv, v, sizeof v);
    double t = fwd(x, dv);
    check_close("forward . v vs reverse . v", t, dot, TOL_AD);
    /* split mode: the same gradient */
    memset(ds, 0, sizeof ds);
    split(x, ds);
    for (int i = 0; i < N; i++)
      check_close_i("split vs combined", i, ds[i], dx[i], TOL_AD);
    /* width 2: v and w at once */
    double dot_w = 0.0;
    for (int i = 0; i < N; i++) {
      w[i] = 1.0 - 0.03 * i;
      dot_w += dx[i] * w[i];
    }
    memcpy(dv, v, sizeof v);
    memcpy(dw, w, sizeof w);
    tan2 t2 = fwd2(x, dv, dw);
    check_close("width 2, lane 0 vs reverse . v", t2.d[0], dot, TOL_AD);
    check_close("width 2, lane 1 vs reverse . w", t2.d[1], dot_w, TOL_AD);
  }
}

#define CASE(F)                                                                \
  static double grad_##F(double *x, double *dx) {                              \
    return __enzyme_autodiff_d((void *)F, enzyme_dup, x, dx);                  \
  }                                                                            \
  static double fwd_##F(double *x, double *v) {                                \
    return __enzyme_fwddiff_d((void *)F, enzyme_dup, x, v);                    \
  }                                                                            \
  static void out_##F(double *x, double *out) { *out = F(x); }                 \
  static void split_##F(double *x, double *dx) {                               \
    double out, dout = 0.0;                                                    \
    void *tape = __enzyme_augmentfwd((void *)out_##F, enzyme_dup, x, dx,       \
                                     enzyme_dup, &out, &dout);                 \
    dout = 1.0;                                                                \
    __enzyme_reverse_v((void *)out_##F, enzyme_dup, x, dx, enzyme_dup, &out,   \
                       &dout, tape);                                           \
  }                                                                            \
  static tan2 fwd2_##F(double *x, double *v, double *w) {                      \
    return __enzyme_fwddiff_w2((void *)F, enzyme_width, 2, x, v, w);           \
  }

CASE(reduction)
CASE(scatter)
CASE(dynamic)
CASE(guided)
CASE(shared)
CASE(critical)
CASE(calls)
CASE(matvec)
CASE(threadsum)
CASE(twoloops)
CASE(privates)
CASE(numthreads)
CASE(single)
CASE(lastpriv)
CASE(chunked)
CASE(collapsed)
CASE(arrayred)
CASE(nested)
CASE(byvalue)
CASE(extrema)
CASE(product)
CASE(forloop)

#define RUN(F) check_case(#F, F, grad_##F, fwd_##F, split_##F, fwd2_##F)

int main(void) {
  RUN(reduction);
  RUN(scatter);
  RUN(dynamic);
  RUN(guided);
  RUN(shared);
  RUN(critical);
  RUN(calls);
  RUN(matvec);
  RUN(threadsum);
  RUN(twoloops);
  RUN(privates);
  RUN(numthreads);
  RUN(single);
  RUN(lastpriv);
  RUN(chunked);
  RUN(collapsed);
  RUN(arrayred);
  RUN(nested);
  RUN(byvalue);
  RUN(extrema);
  RUN(product);
  RUN(forloop);
  return check_report();
}
