/* split_mem.c: split reverse mode of a void function writing its result
 * through a dup pointer, with a malloc'd temporary (filled from x, freed
 * before returning: its shadow must survive until the reverse sweep):
 *   g(x, y, n): t_i = x_i x_(i+1 mod n); y_i = sin(t_i) + t_(i-1 mod n) x_i
 * The typical split-mode use: the forward sweep computes y, the caller then
 * evaluates a loss on y, L = 1/2 sum y_i^2, and only then seeds y's shadow
 * with dL/dy = y; the reverse sweep accumulates dL/dx into x's shadow and
 * consumes y's shadow (zero afterwards). Heap tape and caller-allocated
 * tape (enzyme_allocated, SIZE, enzyme_tape, buf prefix in both calls), with
 * unrelated memory scribbled over between the sweeps; n = 1, 5, 17.
 * Checked against a hand-written VJP, __enzyme_autodiff and FD.
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "enzyme.h"
#include "check.h"

void __enzyme_reverse_v(void *, ...);
void __enzyme_augmentfwd_v(void *, ...);
void __enzyme_autodiff_v(void *, ...);

#define NMAX 17
#define TAPE_SIZE 4096

static void g(double *x, double *y, int n) {
  double *t = (double *)malloc((size_t)n * sizeof(double));
  for (int i = 0; i < n; i++)
    t[i] = x[i] * x[(i + 1) % n];
  for (int i = 0; i < n; i++)
    y[i] = sin(t[i]) + t[(i + n - 1) % n] * x[i];
  free(t);
}

/* gx += J^T w */
static void g_vjp(const double *x, const double *w, double *gx, int n) {
  double t[NMAX], ta[NMAX];
  for (int i = 0; i < n; i++)
    t[i] = x[i] * x[(i + 1) % n];
  for (int i = 0; i < n; i++)
    ta[i] = w[i] * cos(t[i]) + w[(i + 1) % n] * x[(i + 1) % n];
  for (int i = 0; i < n; i++)
    gx[i] += w[i] * t[(i + n - 1) % n] + ta[i] * x[(i + 1) % n] +
             ta[(i + n - 1) % n] * x[(i + n - 1) % n];
}

static int g_n;
static void g_xy(double *x, double *y) { g(x, y, g_n); }

static double unrelated[512];
__attribute__((noinline)) static double scrub_stack(int depth) {
  volatile double buf[256];
  for (int i = 0; i < 256; i++)
    buf[i] = -1e200 + i + depth;
  return depth > 0 ? scrub_stack(depth - 1) + buf[depth] : buf[0];
}
static void scrub(void) {
  for (int i = 0; i < 512; i++)
    unrelated[i] = 3.0e150 * (i % 3);
  for (int k = 0; k < 32; k++) {
    size_t sz = 8 * (size_t)(1 + (k * 37) % 64);
    double *q = (double *)malloc(sz);
    if (q) {
      memset(q, 0x5A, sz);
      free(q);
    }
  }
  (void)scrub_stack(6);
}

#ifdef NO_AD
typedef struct { double x[NMAX]; } emul_tape;
static void emul_fill(emul_tape *t, double *x, double *y, int n) {
  memcpy(t->x, x, sizeof(double) * n);
  g(x, y, n);
}
static void emul_reverse(emul_tape *t, double *dx, double *dy, int n) {
  g_vjp(t->x, dy, dx, n);
  for (int i = 0; i < n; i++)
    dy[i] = 0.0;
}
#endif

int main(void) {
  const int ns[3] = {1, 5, NMAX};
  for (int a = 0; a < 3; a++)
    for (int variant = 0; variant < 2; variant++) {
      int n = ns[a];
      double x0[NMAX], x[NMAX], y[NMAX], dx[NMAX], dy[NMAX], yw[NMAX];
      double want[NMAX], fd[NMAX], zero[NMAX] = {0};
      for (int i = 0; i < n; i++) {
        x0[i] = x[i] = 0.8 * sin(1.1 * i + 0.5 * a) + 0.4;
        y[i] = 0.0;
        dx[i] = 0.25; /* adjoints accumulate into this */
        dy[i] = 0.0;
      }
      g(x0, yw, n);
      _Alignas(64) unsigned char buf[TAPE_SIZE];
      void *tape = 0;
      memset(buf, 0, sizeof buf);
      check_at("%s n=%d", variant ? "caller tape" : "heap tape", n);
#ifdef NO_AD
      if (variant)
        emul_fill((emul_tape *)buf, x, y, n);
      else {
        tape = malloc(sizeof(emul_tape));
        emul_fill((emul_tape *)tape, x, y, n);
      }
#else
      if (variant)
        __enzyme_augmentfwd_v((void *)g, enzyme_allocated, TAPE_SIZE,
                              enzyme_tape, buf, enzyme_dup, x, dx, enzyme_dup,
                              y, dy, n);
      else
        tape = __enzyme_augmentfwd((void *)g, enzyme_dup, x, dx, enzyme_dup, y,
                                   dy, n);
#endif
      check_close_arr("primal y after forward sweep", y, yw, n, TOL_AD);
      check_close_arr("x unchanged", x, x0, n, 0.0);
      /* the loss on the primal output, then the seed */
      double loss = 0.0;
      for (int i = 0; i < n; i++) {
        loss += 0.5 * y[i] * y[i];
        dy[i] = y[i];
      }
      check_close("loss finite", loss, loss, 0.0);
      scrub();
#ifdef NO_AD
      if (variant)
        emul_reverse((emul_tape *)buf, dx, dy, n);
      else {
        emul_reverse((emul_tape *)tape, dx, dy, n);
        free(tape);
      }
#else
      if (variant)
        __enzyme_reverse_v((void *)g, enzyme_allocated, TAPE_SIZE, enzyme_tape,
                           buf, enzyme_dup, x, dx, enzyme_dup, y, dy, n);
      else
        __enzyme_reverse_v((void *)g, enzyme_dup, x, dx, enzyme_dup, y, dy, n,
                           tape);
#endif
      for (int i = 0; i < n; i++)
        want[i] = 0.25;
      g_vjp(x0, yw, want, n);
      g_n = n;
      for (int i = 0; i < n; i++)
        fd[i] = 0.25 + fdvjp(g_xy, x0, n, i, yw, n);
      check_close_arr("dx vs reference (accumulated)", dx, want, n, TOL_AD);
      check_close_arr("dx vs FD", dx, fd, n, TOL_FD);
      check_close_arr("dy consumed", dy, zero, n, TOL_AD);

      /* __enzyme_autodiff from the same seed */
      double ax[NMAX], ay[NMAX], adx[NMAX], ady[NMAX];
      for (int i = 0; i < n; i++) {
        ax[i] = x0[i];
        ay[i] = 0.0;
        adx[i] = 0.25;
        ady[i] = yw[i];
      }
#ifdef NO_AD
      {
        emul_tape t;
        emul_fill(&t, ax, ay, n);
        emul_reverse(&t, adx, ady, n);
      }
#else
      __enzyme_autodiff_v((void *)g, enzyme_dup, ax, adx, enzyme_dup, ay, ady, n);
#endif
      check_close_arr("split dx vs autodiff", dx, adx, n, TOL_AD);
    }
  return check_report();
}
