/*
 * check.h -- tiny self-checking helpers for the c_tests programs.
 *
 *   check_at("x=%g", x);                     label for the following checks
 *   check_close("dx vs analytic", got, want, TOL_AD);
 *   check_close("dx vs FD", got, fd1(f, x), TOL_FD);
 *   return check_report();                   exit status: 0 iff all passed
 *
 * A check passes iff got and want are finite and
 *   |got - want| <= rel_tol * (1 + |want|)
 * (relative for large values, absolute near zero). NaN or inf never passes.
 * check_report() fails when a check failed or when no check ran at all.
 *
 * Finite differences are central differences of the primal. The step is
 * scaled by 1 + |x|, and the quotient uses the step actually taken
 * ((x+h) - (x-h) after rounding), which matters for float:
 *   fd1(f, x), fd1_h(f, x, h), fd1f(ff, x)        one-argument functions
 *   fdn(f_v, x, n, i), fdn_h(...), fdnf(ff_v, ...) d/dx[i] of a function
 *                                                 taking its args as array
 * CHECK_GRAD1(f, df, x) / CHECK_GRAD1F(ff, df, x) do both checks of the
 * __enzyme_autodiff of a one-argument function (needs enzyme.h).
 */
#ifndef ENZ_CHECK_H
#define ENZ_CHECK_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

/* Tolerances that hold at -O0..-O3. */
#define TOL_AD 1e-9   /* AD vs analytic derivative, double */
#define TOL_FD 1e-5   /* AD vs central finite differences, double */
#define TOL_AD_F 1e-4 /* AD vs analytic derivative, float */
#define TOL_FD_F 2e-2 /* AD vs central finite differences, float */

#define FD_REL 1e-6   /* FD step for double functions, times (1 + |x|) */
#define FD_REL_F 1e-3 /* FD step for float functions, times (1 + |x|) */

#define CHECK_MAXN 8 /* most arguments fdn/fdnf handle */

#define CHECK_UNUSED __attribute__((unused))

static int check_total_;
static int check_failed_;
static char check_ctx_[160];

/* Sets a label (printf format) printed with every following check. */
CHECK_UNUSED static void check_at(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(check_ctx_, sizeof check_ctx_, fmt, ap);
  va_end(ap);
}

CHECK_UNUSED static int check_close(const char *what, double got, double want,
                                    double rel_tol) {
  double err = fabs(got - want);
  double tol = rel_tol * (1.0 + fabs(want));
  int ok = isfinite(got) && isfinite(want) && err <= tol;
  check_total_++;
  if (!ok)
    check_failed_++;
  printf("%s [%s] %s: got %.17g want %.17g (err %.3g, tol %.3g)\n",
         ok ? "ok  " : "FAIL", check_ctx_, what, got, want, err, tol);
  return ok;
}

/* Prints "N checks, M failed"; returns the exit status for main. */
CHECK_UNUSED static int check_report(void) {
  printf("%d checks, %d failed\n", check_total_, check_failed_);
  if (check_total_ == 0) {
    printf("FAIL: no check ran\n");
    return 1;
  }
  return check_failed_ ? 1 : 0;
}

/* d f / dx at x by central differences with step h. */
CHECK_UNUSED static double fd1_h(double (*f)(double), double x, double h) {
  double xp = x + h, xm = x - h;
  return (f(xp) - f(xm)) / (xp - xm);
}

CHECK_UNUSED static double fd1(double (*f)(double), double x) {
  return fd1_h(f, x, FD_REL * (1.0 + fabs(x)));
}

CHECK_UNUSED static double fd1f(float (*f)(float), float x) {
  float h = (float)(FD_REL_F * (1.0 + fabs(x)));
  float xp = x + h, xm = x - h;
  return ((double)f(xp) - (double)f(xm)) / ((double)xp - (double)xm);
}

/* d f / d x[i] for f taking its n <= CHECK_MAXN arguments as an array. */
CHECK_UNUSED static double fdn_h(double (*f)(const double *), const double *x,
                                 int n, int i, double h) {
  double p[CHECK_MAXN], m[CHECK_MAXN];
  if (n > CHECK_MAXN || i < 0 || i >= n)
    return NAN; /* a misuse: fails the check that uses it */
  for (int k = 0; k < n; k++)
    p[k] = m[k] = x[k];
  p[i] = x[i] + h;
  m[i] = x[i] - h;
  return (f(p) - f(m)) / (p[i] - m[i]);
}

CHECK_UNUSED static double fdn(double (*f)(const double *), const double *x,
                               int n, int i) {
  return fdn_h(f, x, n, i, FD_REL * (1.0 + fabs(x[i])));
}

CHECK_UNUSED static double fdnf(float (*f)(const float *), const float *x,
                                int n, int i) {
  float p[CHECK_MAXN], m[CHECK_MAXN], h;
  if (n > CHECK_MAXN || i < 0 || i >= n)
    return NAN; /* a misuse: fails the check that uses it */
  h = (float)(FD_REL_F * (1.0 + fabs(x[i])));
  for (int k = 0; k < n; k++)
    p[k] = m[k] = x[k];
  p[i] = x[i] + h;
  m[i] = x[i] - h;
  return ((double)f(p) - (double)f(m)) / ((double)p[i] - (double)m[i]);
}

/* For programs that include enzyme.h: checks the reverse-mode derivative of
 * a double -> double function F at X against DF(X) and central FD. DF takes
 * and returns double. The call site names F directly, as the tool needs. */
#define CHECK_GRAD1(F, DF, X)                                                  \
  do {                                                                         \
    double x_ = (X);                                                           \
    check_at(#F " x=%g", x_);                                                  \
    double d_ = __enzyme_autodiff((void *)(F), x_);                            \
    check_close("d/dx vs analytic", d_, (DF)(x_), TOL_AD);                     \
    check_close("d/dx vs FD", d_, fd1((F), x_), TOL_FD);                       \
  } while (0)

/* The same for a float -> float function F; DF is still double -> double. */
#define CHECK_GRAD1F(F, DF, X)                                                 \
  do {                                                                         \
    float x_ = (float)(X);                                                     \
    check_at(#F " x=%g", x_);                                                  \
    float d_ = __enzyme_autodiff_f32((void *)(F), x_);                         \
    check_close("d/dx vs analytic", d_, (DF)((double)x_), TOL_AD_F);           \
    check_close("d/dx vs FD", d_, fd1f((F), x_), TOL_FD_F);                    \
  } while (0)


/* ---- Helpers for tests with pointer arguments (memory and calls). ---- */

/* check_close with the label "what[i]". */
CHECK_UNUSED static int check_close_i(const char *what, int i, double got,
                                      double want, double rel_tol) {
  char buf[128];
  snprintf(buf, sizeof buf, "%s[%d]", what, i);
  return check_close(buf, got, want, rel_tol);
}

/* d f / d x[i] for f taking n <= 32 doubles through a pointer, step h.
 * f may overwrite its argument: every evaluation gets a fresh copy of x, so
 * this is the derivative w.r.t. the values x held before the call. */
CHECK_UNUSED static double fdp_h(double (*f)(double *), const double *x,
                                 int n, int i, double h) {
  double p[32], m[32], step, fp, fm;
  if (n > 32 || i < 0 || i >= n)
    return NAN; /* a misuse: fails the check that uses it */
  for (int k = 0; k < n; k++)
    p[k] = m[k] = x[k];
  p[i] = x[i] + h;
  m[i] = x[i] - h;
  step = p[i] - m[i]; /* before f can overwrite p and m */
  fp = f(p);
  fm = f(m);
  return (fp - fm) / step;
}

CHECK_UNUSED static double fdp(double (*f)(double *), const double *x, int n,
                               int i) {
  return fdp_h(f, x, n, i, FD_REL * (1.0 + fabs(x[i])));
}

/* The same for float functions (step FD_REL_F, quotient in double). */
CHECK_UNUSED static double fdpf(float (*f)(float *), const float *x, int n,
                                int i) {
  float p[32], m[32], h;
  double step, fp, fm;
  if (n > 32 || i < 0 || i >= n)
    return NAN;
  h = (float)(FD_REL_F * (1.0 + fabs(x[i])));
  for (int k = 0; k < n; k++)
    p[k] = m[k] = x[k];
  p[i] = x[i] + h;
  m[i] = x[i] - h;
  step = (double)p[i] - (double)m[i];
  fp = f(p);
  fm = f(m);
  return (fp - fm) / step;
}

/* A vector-Jacobian product by central differences: d/dx[i] of
 * sum_j w[j] * y[j], where f(x, y) reads x[0..n-1] (it may overwrite them:
 * each evaluation gets a fresh copy) and writes y[0..m-1] (zeroed before each
 * evaluation); n, m <= 32. This is what the shadow of x receives from a
 * reverse-mode call whose output shadow was seeded with w. */
CHECK_UNUSED static double fdvjp(void (*f)(double *, double *),
                                 const double *x, int n, int i,
                                 const double *w, int m) {
  double p[32], q[32], y[32], h, step, sp = 0.0, sm = 0.0;
  if (n > 32 || m > 32 || i < 0 || i >= n)
    return NAN;
  h = FD_REL * (1.0 + fabs(x[i]));
  for (int k = 0; k < n; k++)
    p[k] = q[k] = x[k];
  p[i] = x[i] + h;
  q[i] = x[i] - h;
  step = p[i] - q[i];
  for (int j = 0; j < m; j++)
    y[j] = 0.0;
  f(p, y);
  for (int j = 0; j < m; j++)
    sp += w[j] * y[j];
  for (int j = 0; j < m; j++)
    y[j] = 0.0;
  f(q, y);
  for (int j = 0; j < m; j++)
    sm += w[j] * y[j];
  return (sp - sm) / step;
}

/* The same for float functions (sums in double). */
CHECK_UNUSED static double fdvjpf(void (*f)(float *, float *), const float *x,
                                  int n, int i, const float *w, int m) {
  float p[32], q[32], y[32], h;
  double step, sp = 0.0, sm = 0.0;
  if (n > 32 || m > 32 || i < 0 || i >= n)
    return NAN;
  h = (float)(FD_REL_F * (1.0 + fabs(x[i])));
  for (int k = 0; k < n; k++)
    p[k] = q[k] = x[k];
  p[i] = x[i] + h;
  q[i] = x[i] - h;
  step = (double)p[i] - (double)q[i];
  for (int j = 0; j < m; j++)
    y[j] = 0.0f;
  f(p, y);
  for (int j = 0; j < m; j++)
    sp += (double)w[j] * (double)y[j];
  for (int j = 0; j < m; j++)
    y[j] = 0.0f;
  f(q, y);
  for (int j = 0; j < m; j++)
    sm += (double)w[j] * (double)y[j];
  return (sp - sm) / step;
}

/* In-place functions: f(x) overwrites x[0..n-1] (n <= 32). Returns d/dx[i]
 * (w.r.t. the values before the call) of sum_j w[j] * x_after[j]: what the
 * shadow of x holds after a reverse-mode call that started from shadow w. */
CHECK_UNUSED static double fdinplace(void (*f)(double *), const double *x,
                                     int n, int i, const double *w) {
  double p[32], q[32], h, step, sp = 0.0, sm = 0.0;
  if (n > 32 || i < 0 || i >= n)
    return NAN;
  h = FD_REL * (1.0 + fabs(x[i]));
  for (int k = 0; k < n; k++)
    p[k] = q[k] = x[k];
  p[i] = x[i] + h;
  q[i] = x[i] - h;
  step = p[i] - q[i];
  f(p);
  f(q);
  for (int j = 0; j < n; j++) {
    sp += w[j] * p[j];
    sm += w[j] * q[j];
  }
  return (sp - sm) / step;
}

#endif /* ENZ_CHECK_H */

/* ---- Helpers for tests with loops (arrays of any length). ----
 *
 *   check_close_arr("dx vs analytic", dx, g, n, TOL_AD);   n checks, one line
 *   fdpn(f, x, n, i)          d f(x, n) / d x[i], x of any length (heap copies)
 *   fd_slot(eval, ctx, &v)    d eval(ctx) / d v for any input v that eval
 *                             reads; v is restored afterwards
 */
#include <stdlib.h>

/* Checks got[i] against want[i] for i < n, counting n checks. Prints the
 * first 8 failures and one summary line (with the largest error relative to
 * its tolerance), so long arrays do not flood the output. */
CHECK_UNUSED static int check_close_arr(const char *what, const double *got,
                                        const double *want, int n,
                                        double rel_tol) {
  int bad = 0, worst_i = -1;
  double worst = 0.0;
  for (int i = 0; i < n; i++) {
    double err = fabs(got[i] - want[i]);
    double tol = rel_tol * (1.0 + fabs(want[i]));
    int ok = isfinite(got[i]) && isfinite(want[i]) && err <= tol;
    double r = !isfinite(err) ? INFINITY : err == 0.0 ? 0.0 : err / tol;
    check_total_++;
    if (!ok) {
      check_failed_++;
      if (bad++ < 8)
        printf("FAIL [%s] %s[%d]: got %.17g want %.17g (err %.3g, tol %.3g)\n",
               check_ctx_, what, i, got[i], want[i], err, tol);
    }
    if (worst_i < 0 || !(r <= worst)) {
      worst = r;
      worst_i = i;
    }
  }
  if (n <= 0)
    printf("ok   [%s] %s: no values\n", check_ctx_, what);
  else
    printf("%s [%s] %s[0..%d]: %d values, %d failed, worst err/tol %.3g at [%d]\n",
           bad ? "FAIL" : "ok  ", check_ctx_, what, n - 1, n, bad, worst,
           worst_i);
  return bad == 0;
}

/* The same for float results (want in double). */
CHECK_UNUSED static int check_close_arrf(const char *what, const float *got,
                                         const double *want, int n,
                                         double rel_tol) {
  double *g = (double *)malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
  int ok;
  if (!g)
    return check_close(what, NAN, 0.0, rel_tol);
  for (int i = 0; i < n; i++)
    g[i] = (double)got[i];
  ok = check_close_arr(what, g, want, n, rel_tol);
  free(g);
  return ok;
}

/* d f(x, n) / d x[i] for f taking n doubles (any n) through a pointer; every
 * evaluation gets a fresh heap copy of x, so f may overwrite it. */
CHECK_UNUSED static double fdpn(double (*f)(double *, int), const double *x,
                                int n, int i) {
  double *p, h, step, fp, fm;
  if (n <= 0 || i < 0 || i >= n)
    return NAN;
  p = (double *)malloc((size_t)n * sizeof(double));
  if (!p)
    return NAN;
  h = FD_REL * (1.0 + fabs(x[i]));
  for (int k = 0; k < n; k++)
    p[k] = x[k];
  p[i] = x[i] + h;
  step = p[i];
  fp = f(p, n);
  for (int k = 0; k < n; k++)
    p[k] = x[k];
  p[i] = x[i] - h;
  step -= p[i];
  fm = f(p, n);
  free(p);
  return (fp - fm) / step;
}

/* The same for float functions (step FD_REL_F, quotient in double). */
CHECK_UNUSED static double fdpnf(float (*f)(float *, int), const float *x,
                                 int n, int i) {
  float *p, h;
  double step, fp, fm;
  if (n <= 0 || i < 0 || i >= n)
    return NAN;
  p = (float *)malloc((size_t)n * sizeof(float));
  if (!p)
    return NAN;
  h = (float)(FD_REL_F * (1.0 + fabs(x[i])));
  for (int k = 0; k < n; k++)
    p[k] = x[k];
  p[i] = x[i] + h;
  step = (double)p[i];
  fp = f(p, n);
  for (int k = 0; k < n; k++)
    p[k] = x[k];
  p[i] = x[i] - h;
  step -= (double)p[i];
  fm = f(p, n);
  free(p);
  return (fp - fm) / step;
}

/* d eval(ctx) / d v by central differences with step h, where v = *slot is
 * an input that eval reads (a global, a field of ctx, an element of an array
 * ctx points to). eval must not change *slot: give it copies of any input it
 * overwrites. *slot is restored before returning. */
CHECK_UNUSED static double fd_slot_h(double (*eval)(void *), void *ctx,
                                     double *slot, double h) {
  double v = *slot, step, fp, fm;
  *slot = v + h;
  step = *slot;
  fp = eval(ctx);
  *slot = v - h;
  step -= *slot;
  fm = eval(ctx);
  *slot = v;
  return (fp - fm) / step;
}

CHECK_UNUSED static double fd_slot(double (*eval)(void *), void *ctx,
                                   double *slot) {
  return fd_slot_h(eval, ctx, slot, FD_REL * (1.0 + fabs(*slot)));
}

/* The same for a float input (step FD_REL_F); eval returns double. */
CHECK_UNUSED static double fd_slotf(double (*eval)(void *), void *ctx,
                                    float *slot) {
  float v = *slot, h = (float)(FD_REL_F * (1.0 + fabs(v)));
  double step, fp, fm;
  *slot = v + h;
  step = (double)*slot;
  fp = eval(ctx);
  *slot = v - h;
  step -= (double)*slot;
  fm = eval(ctx);
  *slot = v;
  return (fp - fm) / step;
}

/* ---- Helpers for forward-mode, vector-mode and Jacobian tests. ----
 *
 *   check_seed(s); check_rand();   deterministic uniform numbers in [-1, 1)
 *   check_rand_dir(v, n)           a random direction: entries in
 *                                  [-1, -0.2] u [0.2, 1] (no tiny entries)
 *   fddir(f, x, v, n)              d/dt f(x + t v) at t = 0, f(double *)
 *   fddirn(f, x, v, n)             the same for f(double *, int n)
 *   fddirf(ff, x, v, n)            the same for float ff(float *)
 *   fdjvp(f, x, n, v, y_m, out)    out[j] = d/dt y_j(x + t v) for
 *                                  f(x, y) writing y[0..m-1] (a JVP)
 *   fdjvpf(...)                    the same for float f(float *, float *)
 *   fdjvp_inplace(f, x, n, v, out) out[k] = d/dt x_after[k] for f(x) that
 *                                  updates x in place
 * Every evaluation gets fresh heap copies of x (f may overwrite them); the
 * step is FD_REL (FD_REL_F) times 1 + max |x_k|, any n. */
#ifndef ENZ_CHECK_FWD_H
#define ENZ_CHECK_FWD_H

static unsigned long long check_rng_ = 0x9E3779B97F4A7C15ull;

CHECK_UNUSED static void check_seed(unsigned long long s) {
  check_rng_ = s * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull;
  if (check_rng_ == 0)
    check_rng_ = 1;
}

/* xorshift64*: uniform in [-1, 1), the same sequence on every build. */
CHECK_UNUSED static double check_rand(void) {
  unsigned long long r;
  check_rng_ ^= check_rng_ >> 12;
  check_rng_ ^= check_rng_ << 25;
  check_rng_ ^= check_rng_ >> 27;
  r = check_rng_ * 0x2545F4914F6CDD1Dull;
  return (double)(r >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

CHECK_UNUSED static void check_rand_dir(double *v, int n) {
  for (int k = 0; k < n; k++) {
    double r = check_rand();
    v[k] = r < 0.0 ? -0.2 + 0.8 * r : 0.2 + 0.8 * r;
  }
}

CHECK_UNUSED static void check_rand_dirf(float *v, int n) {
  for (int k = 0; k < n; k++) {
    double r = check_rand();
    v[k] = (float)(r < 0.0 ? -0.2 + 0.8 * r : 0.2 + 0.8 * r);
  }
}

CHECK_UNUSED static double check_maxabs_(const double *x, int n) {
  double m = 0.0;
  for (int k = 0; k < n; k++)
    if (fabs(x[k]) > m)
      m = fabs(x[k]);
  return m;
}

/* x + s h v into p (n doubles) */
CHECK_UNUSED static void check_shift_(double *p, const double *x,
                                      const double *v, int n, double s) {
  for (int k = 0; k < n; k++)
    p[k] = x[k] + s * v[k];
}

/* d/dt f(x + t v) at t = 0 by central differences; f may overwrite x. */
CHECK_UNUSED static double fddir(double (*f)(double *), const double *x,
                                 const double *v, int n) {
  double *p, h, fp, fm;
  if (n <= 0)
    return NAN;
  p = (double *)malloc((size_t)n * sizeof(double));
  if (!p)
    return NAN;
  h = FD_REL * (1.0 + check_maxabs_(x, n));
  check_shift_(p, x, v, n, h);
  fp = f(p);
  check_shift_(p, x, v, n, -h);
  fm = f(p);
  free(p);
  return (fp - fm) / (2.0 * h);
}

/* The same for f(x, n) taking the length as its second argument. */
CHECK_UNUSED static double fddirn(double (*f)(double *, int), const double *x,
                                  const double *v, int n) {
  double *p, h, fp, fm;
  if (n <= 0)
    return NAN;
  p = (double *)malloc((size_t)n * sizeof(double));
  if (!p)
    return NAN;
  h = FD_REL * (1.0 + check_maxabs_(x, n));
  check_shift_(p, x, v, n, h);
  fp = f(p, n);
  check_shift_(p, x, v, n, -h);
  fm = f(p, n);
  free(p);
  return (fp - fm) / (2.0 * h);
}

/* Float functions: step FD_REL_F, quotient in double over the step taken
 * along the largest direction entry. */
CHECK_UNUSED static double fddirf(float (*f)(float *), const float *x,
                                  const float *v, int n) {
  float *p, h;
  double m = 0.0, fp, fm;
  if (n <= 0)
    return NAN;
  p = (float *)malloc((size_t)n * sizeof(float));
  if (!p)
    return NAN;
  for (int k = 0; k < n; k++)
    if (fabs(x[k]) > m)
      m = fabs(x[k]);
  h = (float)(FD_REL_F * (1.0 + m));
  for (int k = 0; k < n; k++)
    p[k] = x[k] + h * v[k];
  fp = f(p);
  for (int k = 0; k < n; k++)
    p[k] = x[k] - h * v[k];
  fm = f(p);
  free(p);
  return (fp - fm) / (2.0 * (double)h);
}

/* out[j] = d/dt y_j(x + t v), j < m, for f(x, y) writing y[0..m-1] (y is
 * zeroed before each evaluation). */
CHECK_UNUSED static void fdjvp(void (*f)(double *, double *), const double *x,
                               int n, const double *v, int m, double *out) {
  double *p = (double *)malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
  double *yp = (double *)calloc((size_t)(m > 0 ? m : 1), sizeof(double));
  double *ym = (double *)calloc((size_t)(m > 0 ? m : 1), sizeof(double));
  double h = FD_REL * (1.0 + check_maxabs_(x, n));
  if (!p || !yp || !ym) {
    for (int j = 0; j < m; j++)
      out[j] = NAN;
  } else {
    check_shift_(p, x, v, n, h);
    f(p, yp);
    check_shift_(p, x, v, n, -h);
    f(p, ym);
    for (int j = 0; j < m; j++)
      out[j] = (yp[j] - ym[j]) / (2.0 * h);
  }
  free(p);
  free(yp);
  free(ym);
}

CHECK_UNUSED static void fdjvpf(void (*f)(float *, float *), const float *x,
                                int n, const float *v, int m, double *out) {
  float *p = (float *)malloc((size_t)(n > 0 ? n : 1) * sizeof(float));
  float *yp = (float *)calloc((size_t)(m > 0 ? m : 1), sizeof(float));
  float *ym = (float *)calloc((size_t)(m > 0 ? m : 1), sizeof(float));
  double mx = 0.0;
  float h;
  for (int k = 0; k < n; k++)
    if (fabs(x[k]) > mx)
      mx = fabs(x[k]);
  h = (float)(FD_REL_F * (1.0 + mx));
  if (!p || !yp || !ym) {
    for (int j = 0; j < m; j++)
      out[j] = NAN;
  } else {
    for (int k = 0; k < n; k++)
      p[k] = x[k] + h * v[k];
    f(p, yp);
    for (int k = 0; k < n; k++)
      p[k] = x[k] - h * v[k];
    f(p, ym);
    for (int j = 0; j < m; j++)
      out[j] = ((double)yp[j] - (double)ym[j]) / (2.0 * (double)h);
  }
  free(p);
  free(yp);
  free(ym);
}

/* out[k] = d/dt x_after[k] for f(x) that updates x[0..n-1] in place. */
CHECK_UNUSED static void fdjvp_inplace(void (*f)(double *), const double *x,
                                       int n, const double *v, double *out) {
  double *p = (double *)malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
  double *q = (double *)malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
  double h = FD_REL * (1.0 + check_maxabs_(x, n));
  if (!p || !q) {
    for (int k = 0; k < n; k++)
      out[k] = NAN;
  } else {
    check_shift_(p, x, v, n, h);
    check_shift_(q, x, v, n, -h);
    f(p);
    f(q);
    for (int k = 0; k < n; k++)
      out[k] = (p[k] - q[k]) / (2.0 * h);
  }
  free(p);
  free(q);
}

#endif /* ENZ_CHECK_FWD_H */

/* ---- Forward-mode one-argument checks (need enzyme.h unless NO_AD). ----
 * CHECK_FWD1(F, DF, X, DX): the tangent __enzyme_fwddiff((void *)F, x, dx)
 * of a double -> double F against DF(x) dx and against FD(x) dx. With
 * -DNO_AD the call is replaced by DF(x) dx. CHECK_FWD1F: the same for a
 * float -> float F through __enzyme_fwddiff_f32 (declared by the test:
 * `float __enzyme_fwddiff_f32(void *, ...);`), DF still double -> double. */
#ifndef ENZ_CHECK_FWD1_H
#define ENZ_CHECK_FWD1_H
#ifdef NO_AD
#define CHECK_FWD1_CALL_(F, DF, x_, dx_) ((DF)(x_) * (dx_))
#define CHECK_FWD1F_CALL_(F, DF, x_, dx_) ((float)((DF)((double)(x_)) * (dx_)))
#else
#define CHECK_FWD1_CALL_(F, DF, x_, dx_) __enzyme_fwddiff((void *)(F), x_, dx_)
#define CHECK_FWD1F_CALL_(F, DF, x_, dx_)                                      \
  __enzyme_fwddiff_f32((void *)(F), x_, dx_)
#endif

#define CHECK_FWD1(F, DF, X, DX)                                               \
  do {                                                                         \
    double x_ = (X), dx_ = (DX);                                               \
    check_at(#F " fwd x=%g dx=%g", x_, dx_);                                   \
    double t_ = CHECK_FWD1_CALL_(F, DF, x_, dx_);                              \
    check_close("tangent vs analytic", t_, (DF)(x_) * dx_, TOL_AD);            \
    check_close("tangent vs FD", t_, fd1((F), x_) * dx_, TOL_FD);              \
  } while (0)

#define CHECK_FWD1F(F, DF, X, DX)                                              \
  do {                                                                         \
    float x_ = (float)(X), dx_ = (float)(DX);                                  \
    check_at(#F " fwd x=%g dx=%g", x_, dx_);                                   \
    float t_ = CHECK_FWD1F_CALL_(F, DF, x_, dx_);                              \
    check_close("tangent vs analytic", t_, (DF)((double)x_) * dx_, TOL_AD_F);  \
    check_close("tangent vs FD", t_, fd1f((F), x_) * dx_, TOL_FD_F);           \
  } while (0)
#endif /* ENZ_CHECK_FWD1_H */
