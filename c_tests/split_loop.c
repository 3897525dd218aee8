/* split_loop.c: split reverse mode of a loop over dup arrays with a scalar
 * `out` parameter, which overwrites its input array (the reverse sweep needs
 * the old values: the tape must hold them):
 *   step(x, y, c, n): for i < n: t = x_i; x_i = c sin t; y_i = t x_i + c y_i;
 *                     s += x_i t;   returns s
 * Objective L = dret s + w1 . x_after + w2 . y_after; after the reverse
 * sweep the shadows hold dL/dx, dL/dy w.r.t. the values before the call
 * (the seeds w1, w2 are consumed) and the call returns dL/dc.
 * The seeds are written into the shadows AFTER the forward sweep. Between
 * the two sweeps the test scribbles over unrelated stack, heap and global
 * memory. Variants:
 *   heap tape:      tape = __enzyme_augmentfwd(step, args...);
 *                   dc = __enzyme_reverse(step, args..., dret, tape);
 *   caller tape:    __enzyme_augmentfwd(step, enzyme_allocated, SIZE,
 *                       enzyme_tape, buf, args...);   (returns nothing)
 *                   dc = __enzyme_reverse(step, enzyme_allocated, SIZE,
 *                       enzyme_tape, buf, args..., dret);
 *   two heap tapes live at once (different n), reversed last-first.
 * Checked: the primal outputs after the forward sweep, the gradient against
 * a hand-written reverse, __enzyme_autodiff (dret = 1) and FD.
 * Build with -DNO_AD to replace the AD calls by the analytic derivative. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "enzyme.h"
#include "check.h"

double __enzyme_reverse_d(void *, ...);
void __enzyme_augmentfwd_v(void *, ...);

#define NMAX 40
#define TAPE_SIZE 4096

static double step(double *x, double *y, double c, int n) {
  double s = 0.0;
  for (int i = 0; i < n; i++) {
    double t = x[i];
    x[i] = c * sin(t);
    y[i] = t * x[i] + c * y[i];
    s += x[i] * t;
  }
  return s;
}

/* Reference: the gradient of L w.r.t. the original x, y and c. */
static double ref_vjp(const double *x, const double *y, double c, int n,
                      double dret, const double *w1, const double *w2,
                      double *gx, double *gy) {
  double gc = 0.0;
  for (int i = 0; i < n; i++) {
    double t = x[i], u = c * sin(t), du = c * cos(t);
    gx[i] = dret * (du * t + u) + w1[i] * du + w2[i] * (u + t * du);
    gy[i] = w2[i] * c;
    gc += dret * t * sin(t) + w1[i] * sin(t) + w2[i] * (t * sin(t) + y[i]);
  }
  return gc;
}

/* FD of L on z = (x, y, c) */
static int g_n;
static double g_dret, *g_w1, *g_w2;
static double L_z(double *z, int m) {
  double x[NMAX], y[NMAX];
  int n = g_n;
  (void)m;
  memcpy(x, z, sizeof(double) * n);
  memcpy(y, z + n, sizeof(double) * n);
  double L = g_dret * step(x, y, z[2 * n], n);
  for (int i = 0; i < n; i++)
    L += g_w1[i] * x[i] + g_w2[i] * y[i];
  return L;
}

/* Memory the function never sees, scribbled over between the sweeps. */
static double unrelated[1024];
__attribute__((noinline)) static double scrub_stack(int depth) {
  volatile double buf[512];
  for (int i = 0; i < 512; i++)
    buf[i] = 1e300 * (i & 1 ? -1.0 : 1.0) + depth;
  return depth > 0 ? scrub_stack(depth - 1) + buf[depth] : buf[0];
}
static void scrub(void) {
  for (int i = 0; i < 1024; i++)
    unrelated[i] = -7.0e100 + i;
  for (int k = 0; k < 64; k++) {
    size_t sz = 16 + (size_t)(k * 997) % 8192;
    unsigned char *q = (unsigned char *)malloc(sz);
    if (q) {
      memset(q, 0xA5, sz);
      free(q);
    }
  }
  (void)scrub_stack(8);
}

#ifdef NO_AD
/* Tapes of the emulation: the original inputs. */
typedef struct {
  double x[NMAX], y[NMAX];
} emul_tape;
static void emul_fill(emul_tape *t, double *x, double *y, double c, int n) {
  memcpy(t->x, x, sizeof(double) * n);
  memcpy(t->y, y, sizeof(double) * n);
  (void)step(x, y, c, n);
}
static double emul_reverse(emul_tape *t, double *dx, double *dy, double c,
                           int n, double dret) {
  double w1[NMAX], w2[NMAX];
  memcpy(w1, dx, sizeof(double) * n);
  memcpy(w2, dy, sizeof(double) * n);
  return ref_vjp(t->x, t->y, c, n, dret, w1, w2, dx, dy);
}
static void *emul_aug(double *x, double *y, double c, int n) {
  emul_tape *t = (emul_tape *)malloc(sizeof *t);
  emul_fill(t, x, y, c, n);
  return t;
}
static double emul_rev(double *dx, double *dy, double c, int n, double dret,
                       void *tape) {
  double r = emul_reverse((emul_tape *)tape, dx, dy, c, n, dret);
  free(tape);
  return r;
}
#endif

typedef struct {
  double x0[NMAX], y0[NMAX], w1[NMAX], w2[NMAX];
  double gx[NMAX], gy[NMAX], gc;
  double xa[NMAX], ya[NMAX]; /* primal outputs */
  double c, dret;
  int n;
} problem;

static void setup(problem *P, int n, double c, double dret, int seed) {
  P->n = n;
  P->c = c;
  P->dret = dret;
  for (int i = 0; i < n; i++) {
    P->x0[i] = sin(0.9 * i + 0.1 * seed) + 0.3;
    P->y0[i] = cos(1.4 * i - 0.2 * seed);
    P->w1[i] = 0.5 * sin(2.1 * i + seed);
    P->w2[i] = 1.0 - 0.3 * cos(0.6 * i);
    P->xa[i] = P->x0[i];
    P->ya[i] = P->y0[i];
  }
  (void)step(P->xa, P->ya, c, n);
  P->gc = ref_vjp(P->x0, P->y0, c, n, dret, P->w1, P->w2, P->gx, P->gy);
}

/* checks the primal outputs (after the forward sweep) */
static void check_primal(const problem *P, const double *x, const double *y) {
  check_close_arr("primal x after forward sweep", x, P->xa, P->n, TOL_AD);
  check_close_arr("primal y after forward sweep", y, P->ya, P->n, TOL_AD);
}
/* checks the gradient */
static void check_grad(const problem *P, const double *dx, const double *dy,
                       double dc, int with_fd) {
  check_close_arr("dx vs reference", dx, P->gx, P->n, TOL_AD);
  check_close_arr("dy vs reference", dy, P->gy, P->n, TOL_AD);
  check_close("dc vs reference", dc, P->gc, TOL_AD);
  if (with_fd && P->n > 0) {
    double z[2 * NMAX + 1], fd[2 * NMAX + 1];
    int n = P->n;
    memcpy(z, P->x0, sizeof(double) * n);
    memcpy(z + n, P->y0, sizeof(double) * n);
    z[2 * n] = P->c;
    g_n = n;
    g_dret = P->dret;
    g_w1 = (double *)P->w1;
    g_w2 = (double *)P->w2;
    for (int i = 0; i <= 2 * n; i++)
      fd[i] = fdpn(L_z, z, 2 * n + 1, i);
    check_close_arr("dx vs FD", dx, fd, n, TOL_FD);
    check_close_arr("dy vs FD", dy, fd + n, n, TOL_FD);
    check_close("dc vs FD", dc, fd[2 * n], TOL_FD);
  }
}

int main(void) {
  const int ns[3] = {1, 9, NMAX};
  const double drets[2] = {1.0, -0.6};
  for (int a = 0; a < 3; a++)
    for (int b = 0; b < 2; b++) {
      problem P;
      int n = ns[a];
      double c = 0.7 + 0.2 * b, dret = drets[b];
      setup(&P, n, c, dret, a + 3 * b);
      double x[NMAX], y[NMAX], dx[NMAX], dy[NMAX], dc;

      /* heap tape */
      memcpy(x, P.x0, sizeof x);
      memcpy(y, P.y0, sizeof y);
      memset(dx, 0, sizeof dx);
      memset(dy, 0, sizeof dy);
      check_at("heap tape n=%d dret=%g", n, dret);
#ifdef NO_AD
      void *tape = emul_aug(x, y, c, n);
#else
      void *tape = __enzyme_augmentfwd((void *)step, enzyme_dup, x, dx,
                                       enzyme_dup, y, dy, c, n);
#endif
      check_primal(&P, x, y);
      scrub();
      memcpy(dx, P.w1, sizeof(double) * n);
      memcpy(dy, P.w2, sizeof(double) * n);
#ifdef NO_AD
      dc = emul_rev(dx, dy, c, n, dret, tape);
#else
      dc = __enzyme_reverse_d((void *)step, enzyme_dup, x, dx, enzyme_dup, y,
                              dy, c, n, dret, tape);
#endif
      check_grad(&P, dx, dy, dc, 1);
      check_primal(&P, x, y); /* the reverse sweep leaves the primal alone */

      /* caller-allocated tape */
      _Alignas(64) unsigned char buf[TAPE_SIZE];
      memset(buf, 0, sizeof buf);
      memcpy(x, P.x0, sizeof x);
      memcpy(y, P.y0, sizeof y);
      memset(dx, 0, sizeof dx);
      memset(dy, 0, sizeof dy);
      check_at("caller tape n=%d dret=%g", n, dret);
#ifdef NO_AD
      emul_fill((emul_tape *)buf, x, y, c, n);
#else
      __enzyme_augmentfwd_v((void *)step, enzyme_allocated, TAPE_SIZE,
                            enzyme_tape, buf, enzyme_dup, x, dx, enzyme_dup, y,
                            dy, c, n);
#endif
      check_primal(&P, x, y);
      scrub();
      memcpy(dx, P.w1, sizeof(double) * n);
      memcpy(dy, P.w2, sizeof(double) * n);
#ifdef NO_AD
      dc = emul_reverse((emul_tape *)buf, dx, dy, c, n, dret);
#else
      dc = __enzyme_reverse_d((void *)step, enzyme_allocated, TAPE_SIZE,
                              enzyme_tape, buf, enzyme_dup, x, dx, enzyme_dup,
                              y, dy, c, n, dret);
#endif
      check_grad(&P, dx, dy, dc, 0);

      /* __enzyme_autodiff agrees when dret = 1 */
      if (dret == 1.0) {
        double ax[NMAX], ay[NMAX], adx[NMAX], ady[NMAX];
        memcpy(ax, P.x0, sizeof ax);
        memcpy(ay, P.y0, sizeof ay);
        memcpy(adx, P.w1, sizeof adx);
        memcpy(ady, P.w2, sizeof ady);
        check_at("autodiff n=%d", n);
#ifdef NO_AD
        emul_tape t;
        emul_fill(&t, ax, ay, c, n);
        double adc = emul_reverse(&t, adx, ady, c, n, 1.0);
#else
        double adc = __enzyme_autodiff((void *)step, enzyme_dup, ax, adx,
                                       enzyme_dup, ay, ady, c, n);
#endif
        check_close_arr("split dx vs autodiff", dx, adx, n, TOL_AD);
        check_close_arr("split dy vs autodiff", dy, ady, n, TOL_AD);
        check_close("split dc vs autodiff", dc, adc, TOL_AD);
      }
    }

  /* two heap tapes live at once, different trip counts */
  {
    problem P1, P2;
    setup(&P1, 9, 0.8, 1.3, 11);
    setup(&P2, NMAX, 1.1, -0.4, 12);
    double x1[NMAX], y1[NMAX], dx1[NMAX] = {0}, dy1[NMAX] = {0};
    double x2[NMAX], y2[NMAX], dx2[NMAX] = {0}, dy2[NMAX] = {0};
    memcpy(x1, P1.x0, sizeof x1);
    memcpy(y1, P1.y0, sizeof y1);
    memcpy(x2, P2.x0, sizeof x2);
    memcpy(y2, P2.y0, sizeof y2);
    check_at("two live tapes");
#ifdef NO_AD
    void *t1 = emul_aug(x1, y1, P1.c, P1.n);
    void *t2 = emul_aug(x2, y2, P2.c, P2.n);
#else
    void *t1 = __enzyme_augmentfwd((void *)step, enzyme_dup, x1, dx1,
                                   enzyme_dup, y1, dy1, P1.c, P1.n);
    void *t2 = __enzyme_augmentfwd((void *)step, enzyme_dup, x2, dx2,
                                   enzyme_dup, y2, dy2, P2.c, P2.n);
#endif
    check_primal(&P1, x1, y1);
    check_primal(&P2, x2, y2);
    scrub();
    memcpy(dx1, P1.w1, sizeof(double) * P1.n);
    memcpy(dy1, P1.w2, sizeof(double) * P1.n);
    memcpy(dx2, P2.w1, sizeof(double) * P2.n);
    memcpy(dy2, P2.w2, sizeof(double) * P2.n);
#ifdef NO_AD
    double dc2 = emul_rev(dx2, dy2, P2.c, P2.n, P2.dret, t2);
    double dc1 = emul_rev(dx1, dy1, P1.c, P1.n, P1.dret, t1);
#else
    double dc2 = __enzyme_reverse_d((void *)step, enzyme_dup, x2, dx2,
                                    enzyme_dup, y2, dy2, P2.c, P2.n, P2.dret, t2);
    double dc1 = __enzyme_reverse_d((void *)step, enzyme_dup, x1, dx1,
                                    enzyme_dup, y1, dy1, P1.c, P1.n, P1.dret, t1);
#endif
    check_at("two live tapes: second");
    check_grad(&P2, dx2, dy2, dc2, 0);
    check_at("two live tapes: first");
    check_grad(&P1, dx1, dy1, dc1, 0);
  }
  return check_report();
}
