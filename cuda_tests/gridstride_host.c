// Host driver for gridstride.cu on the CPU SIMT emulator: 3 blocks of 32
// threads over n = 1000 elements (10 or 11 iterations a thread), and n = 50
// (some threads run none). Every entry of dx, dy and da against the
// analytic gradient; every entry of dx against central differences of the
// primal kernel too, all at once (y_out[i] depends on x[i] alone: x is
// perturbed everywhere in one launch each way, each y_out[i] differenced);
// da and a sample of dx against central differences of the loss; the
// entries past n (n = 50) untouched: dx 0, dy the seed, y its input.
#include "check.h"
#include "emu.h"

#ifndef GS
#define GS(name) gridstride_##name
#endif

void GS(primal)(const float *a, const float *x, float *y, int n);
void GS(grad)(const float *a, float *da, const float *x, float *dx, float *y, float *dy, int n);

#define NMAX 1000
static int n;
static float a_in[1], x_in[NMAX], y_in[NMAX], w[NMAX];
static float a[1], x[NMAX], y[NMAX], da[1], dx[NMAX], dy[NMAX];

static void run_primal(void *p) {
  (void)p;
  GS(primal)(a, x, y, n);
}
static void run_grad(void *p) {
  (void)p;
  GS(grad)(a, da, x, dx, y, dy, n);
}
static void launch(void (*fn)(void *)) {
  emu_launch(emu_dim3_of(3, 1, 1), emu_dim3_of(32, 1, 1), fn, NULL);
}

static double loss(void) {
  memcpy(a, a_in, sizeof a);
  memcpy(x, x_in, sizeof x);
  memcpy(y, y_in, sizeof y);
  launch(run_primal);
  double l = 0;
  for (int i = 0; i < n; i++)
    l += (double)w[i] * y[i];
  return l;
}

/* Central differences of every entry of x_in below n at once:
 * fd[i] = w[i] * d y_out[i] / d x[i], step h * max(1, |x[i]|). */
static void fd_every(double h, double *fd) {
  static float saved[NMAX], y_up[NMAX];
  static double up[NMAX], dn[NMAX];
  memcpy(saved, x_in, sizeof saved);
  for (int i = 0; i < n; i++) {
    double step = h * (fabs((double)saved[i]) > 1 ? fabs((double)saved[i]) : 1);
    x_in[i] = (float)(saved[i] + step);
    up[i] = (double)x_in[i] - saved[i]; /* the step actually taken */
  }
  loss();
  memcpy(y_up, y, sizeof y_up);
  for (int i = 0; i < n; i++) {
    double step = h * (fabs((double)saved[i]) > 1 ? fabs((double)saved[i]) : 1);
    x_in[i] = (float)(saved[i] - step);
    dn[i] = (double)saved[i] - x_in[i];
  }
  loss();
  for (int i = 0; i < n; i++)
    fd[i] = (double)w[i] * ((double)y_up[i] - y[i]) / (up[i] + dn[i]);
  memcpy(x_in, saved, sizeof saved);
}

int main(void) {
  static const int sizes[2] = {NMAX, 50};
  uint64_t s = 3;
  a_in[0] = (float)check_uniform(&s, 0.5, 1.5);
  for (int i = 0; i < NMAX; i++) {
    x_in[i] = (float)check_uniform(&s, -1, 1);
    y_in[i] = (float)check_uniform(&s, -1, 1);
    w[i] = (float)check_uniform(&s, -1, 1);
  }
  for (int k = 0; k < 2; k++) {
    n = sizes[k];
    memcpy(a, a_in, sizeof a);
    memcpy(x, x_in, sizeof x);
    memcpy(y, y_in, sizeof y);
    memcpy(dy, w, sizeof dy);
    memset(dx, 0, sizeof dx);
    da[0] = 0;
    launch(run_grad);
    double want_a = 0;
    for (int i = 0; i < n; i++) {
      double xv = x_in[i], e = exp(xv), sv = sin(xv);
      want_a += w[i] * sv * e;
      check_close("dx", i, dx[i], w[i] * a_in[0] * (cos(xv) * e + sv * e), 1e-4, 1e-6);
      check_close("y (primal)", i, y[i], a_in[0] * sv * e + y_in[i], 1e-5, 1e-6);
      check_close("dy (d y_in)", i, dy[i], w[i], 1e-6, 1e-7);
    }
    for (int i = n; i < NMAX; i++) {
      check_close("dx past n (untouched)", i, dx[i], 0, 0, 0);
      check_close("y past n (untouched)", i, y[i], y_in[i], 0, 0);
      check_close("dy past n (untouched)", i, dy[i], w[i], 0, 0);
    }
    check_close("da", 0, da[0], want_a, 1e-4, 1e-5);
    check_close("da vs FD", 0, da[0], CHECK_FD(&a_in[0], 1e-2, loss), 2e-2, 2e-3);
    static double fd[NMAX];
    fd_every(1e-2, fd);
    for (int i = 0; i < n; i++)
      check_close("dx vs FD (every entry)", i, dx[i], fd[i], 2e-2, 2e-3);
    for (int j = 0; j < check_sample_count(n, 8); j++) {
      int i = check_sample(n, 8, j);
      check_close("dx vs FD", i, dx[i], CHECK_FD(&x_in[i], 1e-2, loss), 2e-2, 2e-3);
    }
  }
  return check_report();
}
