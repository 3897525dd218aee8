/* fwd_split.c: forward split mode, __enzyme_augmentfwd then
 * __enzyme_fwdsplit with its tape (which __enzyme_fwdsplit frees):
 *   g(a, b) = a exp(b) + sin(a b)          (floats: tangents after each)
 *     dg = (exp(b) + b cos(ab)) da + (a exp(b) + a cos(ab)) db
 *   smooth(x[n], n, y[n]): a malloc'ed buffer t_i = x_i^2, then
 *     y_i = t_i + 0.5 (t_{i-1} + t_{i+1}) sin(x_i) (ends clamped), in loops
 *     (the tape holds loop caches)
 *     dy_i = 2 x_i dx_i + 0.5 (2 x_{i-1} dx_{i-1} + 2 x_{i+1} dx_{i+1}) sin x_i
 *            + 0.5 (t_{i-1} + t_{i+1}) cos(x_i) dx_i
 *     (restrict pointers: y cannot overwrite x, so running smooth again
 *     from the memory __enzyme_augmentfwd left gives the same values);
 *   also with the caller's tape buffer (enzyme_allocated, enzyme_tape);
 * checked against the analytic tangents and central finite differences.
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include <stdlib.h>
#include "enzyme.h"
#include "check.h"

static double g(double a, double b) { return a * exp(b) + sin(a * b); }

#define N 6
static void smooth(const double *restrict x, int n, double *restrict y) {
  double *t = (double *)malloc(n * sizeof(double));
  for (int i = 0; i < n; i++)
    t[i] = x[i] * x[i];
  for (int i = 0; i < n; i++) {
    double l = t[i > 0 ? i - 1 : 0], r = t[i + 1 < n ? i + 1 : n - 1];
    y[i] = t[i] + 0.5 * (l + r) * sin(x[i]);
  }
  free(t);
}

typedef struct {
  void *tape;
  double r;
} aug_d;
aug_d __enzyme_augmentfwd_d(void *, ...);
double __enzyme_fwdsplit_d(void *, ...);
void __enzyme_fwdsplit(void *, ...);

static double ga(double a) { return g(a, 0.4); }
static int fd_i;
static const double *fd_dir;
static double smooth_dir(double h) {
  double x[N], y[N];
  extern const double X0[N];
  for (int k = 0; k < N; k++)
    x[k] = X0[k] + h * fd_dir[k];
  smooth(x, N, y);
  return y[fd_i];
}
const double X0[N] = {0.3, -1.1, 0.8, 1.7, -0.4, 0.9};

int main(void) {
  const double pts[3][2] = {{0.7, 0.4}, {-1.2, 0.9}, {2.0, -0.3}};
  for (int p = 0; p < 3; p++) {
    double a = pts[p][0], b = pts[p][1], da = 0.6, db = -1.3;
    double want = (exp(b) + b * cos(a * b)) * da + (a * exp(b) + a * cos(a * b)) * db;
    check_at("g a=%g b=%g", a, b);
#ifdef NO_AD
    double r = g(a, b), t = want;
#else
    aug_d aug = __enzyme_augmentfwd_d((void *)g, a, b);
    double r = aug.r;
    double t = __enzyme_fwdsplit_d((void *)g, a, da, b, db, aug.tape);
#endif
    check_close("primal", r, g(a, b), TOL_AD);
    check_close("tangent vs analytic", t, want, TOL_AD);
  }
  check_at("g a=0.7 b=0.4 unit");
#ifdef NO_AD
  double t1 = exp(0.4) + 0.4 * cos(0.28);
#else
  aug_d aug1 = __enzyme_augmentfwd_d((void *)g, 0.7, 0.4);
  double t1 = __enzyme_fwdsplit_d((void *)g, 0.7, 1.0, 0.4, 0.0, aug1.tape);
#endif
  check_close("tangent vs FD", t1, fd1(ga, 0.7), TOL_FD);

  for (int mode = 0; mode < 2; mode++) {
    double x[N], dx[N], y[N], dy[N];
    for (int k = 0; k < N; k++) {
      x[k] = X0[k];
      dx[k] = 0.5 - 0.3 * k;
      dy[k] = 0;
    }
#ifdef NO_AD
    smooth(x, N, y);
    for (int i = 0; i < N; i++) {
      int l = i > 0 ? i - 1 : 0, r = i + 1 < N ? i + 1 : N - 1;
      dy[i] = 2 * x[i] * dx[i] + 0.5 * (2 * x[l] * dx[l] + 2 * x[r] * dx[r]) * sin(x[i]) +
              0.5 * (x[l] * x[l] + x[r] * x[r]) * cos(x[i]) * dx[i];
    }
#else
    if (mode == 0) {
      void *tape = __enzyme_augmentfwd((void *)smooth, enzyme_dup, x, dx, enzyme_const, N,
                                       enzyme_dup, y, dy);
      __enzyme_fwdsplit((void *)smooth, enzyme_dup, x, dx, enzyme_const, N, enzyme_dup, y,
                        dy, tape);
    } else {
      static char buf[4096];
      __enzyme_augmentfwd((void *)smooth, enzyme_allocated, (int)sizeof buf, enzyme_tape,
                          buf, enzyme_dup, x, dx, enzyme_const, N, enzyme_dup, y, dy);
      __enzyme_fwdsplit((void *)smooth, enzyme_allocated, (int)sizeof buf, enzyme_tape, buf,
                        enzyme_dup, x, dx, enzyme_const, N, enzyme_dup, y, dy);
    }
#endif
    fd_dir = dx;
    for (int i = 0; i < N; i++) {
      check_at("smooth %s i=%d", mode ? "caller tape" : "heap tape", i);
      int l = i > 0 ? i - 1 : 0, r = i + 1 < N ? i + 1 : N - 1;
      double want = 2 * x[i] * dx[i] + 0.5 * (2 * x[l] * dx[l] + 2 * x[r] * dx[r]) * sin(x[i]) +
                    0.5 * (x[l] * x[l] + x[r] * x[r]) * cos(x[i]) * dx[i];
      fd_i = i;
      check_close("primal", y[i], x[i] * x[i] + 0.5 * (x[l] * x[l] + x[r] * x[r]) * sin(x[i]),
                  TOL_AD);
      check_close("tangent vs analytic", dy[i], want, TOL_AD);
      check_close("tangent vs FD", dy[i], fd1(smooth_dir, 0.0), TOL_FD);
    }
  }
  return check_report();
}
