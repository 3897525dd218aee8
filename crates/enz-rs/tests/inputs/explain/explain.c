/* Input of tests/explain.rs: one loop of each kind `--explain` tells
 * apart. Line numbers matter: the test looks for them. */
#include <math.h>
extern double __enzyme_autodiff(void *, ...);
extern double __enzyme_fwddiff(void *, ...);
extern int enzyme_dup, enzyme_const;

/* An elementwise chain: exp and log results are cached per iteration. */
void chain(const double *x, double *y, int n) {
  for (int i = 0; i < n; i++)
    y[i] = log(1.0 + exp(x[i]));
}

/* A sum of squares: nothing cached, x[i] is re-read. */
double sumsq(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += x[i] * x[i];
  return s;
}

/* A nest whose inner loop caches a running value; the inner trip count is
 * bounded before the nest (triangular). */
double nest(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < i; j++)
      s = sin(s + x[j] * x[i]);
  return s;
}

/* A loop whose trip count depends on the data: its caches grow. */
double until(const double *x, double eps) {
  double s = 1;
  int k = 0;
  while (s > eps)
    s = s * cos(x[k++ & 7]);
  return s;
}

void d_chain(const double *x, double *dx, double *y, double *dy, int n) {
  __enzyme_autodiff((void *)chain, enzyme_dup, x, dx, enzyme_dup, y, dy, enzyme_const, n);
}
void d_sumsq(const double *x, double *dx, int n) { __enzyme_autodiff((void *)sumsq, x, dx, n); }
void d_nest(const double *x, double *dx, int n) { __enzyme_autodiff((void *)nest, x, dx, n); }
void d_until(const double *x, double *dx, double eps) {
  __enzyme_autodiff((void *)until, x, dx, eps);
}
double t_sumsq(const double *x, const double *tx, int n) {
  return __enzyme_fwddiff((void *)sumsq, x, tx, n);
}

/* With --cache-budget: a time loop over a state in memory (checkpointed),
 * and one that scatters through an index array (not checkpointed: the
 * bytes it writes are not known before it). */
double heat(double *u, double *tmp, int n, int T) {
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < n - 1; i++)
      tmp[i] = u[i] + 0.2 * (u[i - 1] - 2.0 * u[i] + u[i + 1]) - 0.1 * u[i] * u[i];
    for (int i = 1; i < n - 1; i++)
      u[i] = tmp[i];
  }
  return u[n / 2];
}
double scattered(double *u, const int *perm, int n, int T) {
  for (int t = 0; t < T; t++)
    for (int i = 0; i < n; i++)
      u[perm[i]] = sin(u[i]);
  return u[0];
}
void d_heat(double *u, double *du, double *tmp, double *dtmp, int n, int T) {
  __enzyme_autodiff((void *)heat, enzyme_dup, u, du, enzyme_dup, tmp, dtmp, n, T);
}
void d_scattered(double *u, double *du, const int *perm, int n, int T) {
  __enzyme_autodiff((void *)scattered, enzyme_dup, u, du, enzyme_const, perm, n, T);
}

/* A time loop whose trip count is known only as it runs (line 81): under
 * the machine's budget it is checkpointed when a bound on one iteration's
 * caches is more than 64 KiB, chosen before it. */
double relax(double *u, double *tmp, int n, double tol) {
  double err;
  do {
    err = 0.0;
    for (int i = 1; i < n - 1; i++) {
      tmp[i] = 0.5 * u[i] + 0.25 * (u[i - 1] + u[i + 1]);
      err += fabs(tmp[i] - u[i]);
    }
    for (int i = 1; i < n - 1; i++)
      u[i] = tmp[i];
  } while (err > tol);
  return u[n / 2];
}
void d_relax(double *u, double *du, double *tmp, double *dtmp, int n, double tol) {
  __enzyme_autodiff((void *)relax, enzyme_dup, u, du, enzyme_dup, tmp, dtmp, n, enzyme_const, tol);
}

/* Forward mode: a loop that only accumulates into out's tangent what it
 * computes from m's tangent, run without that work when m's tangent is
 * all zero (a Jacobian column that does not reach it). */
void blend(const double *restrict m, const double *w, double *restrict out, int n) {
  for (int v = 0; v < n; v++)
    for (int r = 0; r < 3; r++)
      out[3 * v + r] += w[v] * (m[4 * r] + m[4 * r + 1]);
}
void t_blend(const double *m, const double *dm, const double *w, double *out, double *dout, int n) {
  __enzyme_fwddiff((void *)blend, enzyme_dup, m, dm, enzyme_const, w, enzyme_dup, out, dout,
                   enzyme_const, n);
}
/* A triangular product through scratch vectors the outer loop overwrites
 * (line 120: the column loop; line 121: the row loop): xc[col] does not
 * change inside the row loop, which writes only z, so it is cached once
 * per column, not once per row. */
double trisq(const double *x, const double *L, const double *mu, int n, int d) {
  double *xc = __builtin_malloc(sizeof(double) * d), *z = __builtin_malloc(sizeof(double) * d);
  double s = 0;
  for (int p = 0; p < n; p++) {
    for (int k = 0; k < d; k++) z[k] = xc[k] = x[p * d + k] - mu[k];
    int li = 0;
    for (int col = 0; col < d; col++)
      for (int row = col + 1; row < d; row++)
        z[row] += L[li++] * xc[col];
    for (int k = 0; k < d; k++) s += z[k] * z[k];
  }
  __builtin_free(xc);
  __builtin_free(z);
  return s;
}
void d_trisq(const double *x, const double *L, double *dL, const double *mu, double *dmu, int n,
             int d) {
  __enzyme_autodiff((void *)trisq, enzyme_const, x, enzyme_dup, L, dL, enzyme_dup, mu, dmu,
                    enzyme_const, n, enzyme_const, d);
}
/* A time loop whose result leaves through a pointer that may alias its
 * state (line 138: the time loop): checkpointed all the same, the final
 * store being made after the reverse sweep. */
void heat_out(double *u, double *tmp, int n, int T, double *out) {
  for (int t = 0; t < T; t++) {
    for (int i = 1; i < n - 1; i++)
      tmp[i] = u[i] + 0.1 * (u[i - 1] - 2 * u[i] + u[i + 1]) + 0.01 * sin(u[i]);
    for (int i = 1; i < n - 1; i++)
      u[i] = tmp[i];
  }
  double s = 0;
  for (int i = 0; i < n; i++)
    s += u[i] * u[i];
  *out = s;
}
void d_heat_out(double *u, double *du, double *tmp, double *dtmp, int n, int T, double *out,
                double *dout) {
  __enzyme_autodiff((void *)heat_out, enzyme_dup, u, du, enzyme_dup, tmp, dtmp, enzyme_const, n,
                    enzyme_const, T, enzyme_dup, out, dout);
}
/* A loop repeating one computation (line 160: the rep loop) over scratch
 * blocks allocated before it: one iteration is differentiated, the
 * element loop left inside (line 163) caches per element, not per
 * (repetition, element). */
double eos_rep(const double *e, const double *v, int n, int rep) {
  double *c = __builtin_malloc(sizeof(double) * n), *p = __builtin_malloc(sizeof(double) * n);
  for (int j = 0; j < rep; j++) {
    for (int i = 0; i < n; i++)
      c[i] = 1.0 / v[i] - 1.0;
    for (int i = 0; i < n; i++)
      p[i] = sqrt(e[i] * e[i] + c[i] * c[i]) * c[i];
  }
  double s = 0;
  for (int i = 0; i < n; i++)
    s += p[i];
  __builtin_free(c);
  __builtin_free(p);
  return s;
}
void d_eos_rep(const double *e, double *de, const double *v, double *dv, int n, int rep) {
  __enzyme_autodiff((void *)eos_rep, enzyme_dup, e, de, enzyme_dup, v, dv, enzyme_const, n,
                    enzyme_const, rep);
}
/* A product a rule reads is recomputed from a load that is cached anyway
 * because a recomputed difference a rule reads needs it (line 182: the
 * loop caches x[i], which it overwrites, and not g too). */
double at_hand(double *x, const double *y, int n) {
  double s = 0;
  for (int i = 0; i < n; i++) {
    double d = x[i] - y[i];
    double g = __builtin_fma(x[i], 2.0, y[i]);
    s += d * d + g * g;
    x[i] = 0.5;
  }
  return s;
}
void d_at_hand(double *x, double *dx, const double *y, double *dy, int n) {
  __enzyme_autodiff((void *)at_hand, enzyme_dup, x, dx, enzyme_dup, y, dy, enzyme_const, n);
}
