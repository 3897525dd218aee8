/* call_qsort.c: qsort inside differentiated code. The elements move in
 * libc, so enz-rs sorts an index array there instead and moves the
 * elements itself (preprocess/sort.rs): derivatives follow their
 * elements. Reverse and forward mode:
 *  - sorted(x): v_i = (i+1) x_i + 0.1 i (doubles), s = v sorted,
 *    f = s0 + 2 s1^2 + 3 s2 + 4 sin(s3)
 *    df/dx_p(r) = (p(r)+1) c_r'(s_r), p the sorting permutation
 *  - by_key(x): records {key = x_(i+1)%4 - 0.2 i, w = x_i^2, id = i}
 *    sorted by key, f = sum_r (r+1) w_r + key_r id_r
 *  - median(x): a malloc'd copy of x sorted, m = (s1 + s2)/2,
 *    f = m^2 + x0
 *  - sortedf(x): floats, f = sum_r (r+1) s_r^2 with s = sort(x)
 * Checked against these derivatives (the permutation computed here by
 * insertion sort) and central finite differences. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "enzyme.h"
#include "check.h"

static int by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}
static int by_valuef(const void *a, const void *b) {
  float x = *(const float *)a, y = *(const float *)b;
  return (x > y) - (x < y);
}
typedef struct {
  double key, w;
  int id;
} record;
static int by_key_cmp(const void *a, const void *b) {
  const record *p = a, *q = b;
  return (p->key > q->key) - (p->key < q->key);
}

double sorted(const double *x) {
  double v[4];
  for (int i = 0; i < 4; i++)
    v[i] = x[i] * (i + 1) + 0.1 * i;
  qsort(v, 4, sizeof(double), by_value);
  return v[0] + 2 * v[1] * v[1] + 3 * v[2] + 4 * sin(v[3]);
}

double by_key(const double *x) {
  record r[4];
  for (int i = 0; i < 4; i++) {
    r[i].key = x[(i + 1) % 4] - 0.2 * i;
    r[i].w = x[i] * x[i];
    r[i].id = i;
  }
  qsort(r, 4, sizeof(record), by_key_cmp);
  double s = 0;
  for (int k = 0; k < 4; k++)
    s += (k + 1) * r[k].w + r[k].key * r[k].id;
  return s;
}

double median(const double *x) {
  double *v = malloc(4 * sizeof(double));
  memcpy(v, x, 4 * sizeof(double));
  qsort(v, 4, sizeof(double), by_value);
  double m = 0.5 * (v[1] + v[2]);
  free(v);
  return m * m + x[0];
}

float sortedf(const float *x) {
  float v[4];
  memcpy(v, x, sizeof v);
  qsort(v, 4, sizeof(float), by_valuef);
  float s = 0;
  for (int k = 0; k < 4; k++)
    s += (k + 1) * v[k] * v[k];
  return s;
}

/* The permutation p with key[p[0]] <= key[p[1]] <= ... (stable). */
static void order(const double *key, int *p) {
  for (int i = 0; i < 4; i++) {
    int j = i;
    while (j > 0 && key[p[j - 1]] > key[i]) {
      p[j] = p[j - 1];
      j--;
    }
    p[j] = i;
  }
}

static void analytic(int which, const double *x, double *g) {
  double key[4];
  int p[4];
  memset(g, 0, 4 * sizeof(double));
  if (which == 0) {
    for (int i = 0; i < 4; i++)
      key[i] = x[i] * (i + 1) + 0.1 * i;
    order(key, p);
    double c[4] = {1, 4 * key[p[1]], 3, 4 * cos(key[p[3]])};
    for (int r = 0; r < 4; r++)
      g[p[r]] += c[r] * (p[r] + 1);
  } else if (which == 1) {
    for (int i = 0; i < 4; i++)
      key[i] = x[(i + 1) % 4] - 0.2 * i;
    order(key, p);
    for (int r = 0; r < 4; r++) {
      int i = p[r];
      g[i] += (r + 1) * 2 * x[i];
      g[(i + 1) % 4] += i;
    }
  } else if (which == 2) {
    order(x, p);
    double m = 0.5 * (x[p[1]] + x[p[2]]);
    g[p[1]] += m;
    g[p[2]] += m;
    g[0] += 1;
  } else {
    order(x, p);
    for (int r = 0; r < 4; r++)
      g[p[r]] += (r + 1) * 2 * x[p[r]];
  }
}

int main(void) {
  const double pts[3][4] = {{0.3, -0.7, 1.1, 0.2}, {-1.2, 0.4, 0.9, -0.3}, {0.5, 1.5, -0.6, 0.8}};
  double (*fs[3])(const double *) = {sorted, by_key, median};
  for (int p = 0; p < 3; p++) {
    for (int which = 0; which < 4; which++) {
      const double *x = pts[p];
      double want[4], d[4] = {0, 0, 0, 0};
      analytic(which, x, want);
      check_at("function %d point %d", which, p);
      if (which == 3) {
        float xf[4], df[4] = {0, 0, 0, 0};
        for (int i = 0; i < 4; i++)
          xf[i] = (float)x[i];
#ifdef NO_AD
        for (int i = 0; i < 4; i++)
          df[i] = (float)want[i];
#else
        __enzyme_autodiff((void *)sortedf, xf, df);
#endif
        for (int i = 0; i < 4; i++) {
          check_close("float reverse vs analytic", df[i], want[i], TOL_AD_F);
          check_close("float reverse vs FD", df[i], fdnf(sortedf, xf, 4, i), TOL_FD_F);
        }
        continue;
      }
#ifdef NO_AD
      memcpy(d, want, sizeof d);
#else
      if (which == 0)
        __enzyme_autodiff((void *)sorted, x, d);
      else if (which == 1)
        __enzyme_autodiff((void *)by_key, x, d);
      else
        __enzyme_autodiff((void *)median, x, d);
#endif
      for (int i = 0; i < 4; i++) {
        check_close("reverse vs analytic", d[i], want[i], TOL_AD);
        check_close("reverse vs FD", d[i], fdn(fs[which], x, 4, i), TOL_FD);
        double t[4] = {0, 0, 0, 0}, tan;
        t[i] = 1;
#ifdef NO_AD
        tan = want[i];
#else
        if (which == 0)
          tan = __enzyme_fwddiff((void *)sorted, x, t);
        else if (which == 1)
          tan = __enzyme_fwddiff((void *)by_key, x, t);
        else
          tan = __enzyme_fwddiff((void *)median, x, t);
#endif
        check_close("forward vs analytic", tan, want[i], TOL_AD);
      }
    }
  }
  return check_report();
}
