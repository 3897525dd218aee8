// Host driver for device_math.cu: values against glibc, derivatives against
// analytic ones (computed with glibc in double) and finite differences:
// every entry of dx (float and double) against the analytic derivative and
// against central differences of the primal kernel, all entries at once
// (y[K i + k] depends on x[i] alone: x perturbed everywhere in one launch
// each way, each y differenced); a sample against central differences of
// the loss; dy consumed (zero on exit: y is overwritten).
#include "check.h"
#include "emu.h"

void math_f_primal(const float *x, float *y, int n);
void math_d_primal(const double *x, double *y, int n);
void math_f_grad(const float *x, float *dx, float *y, float *dy, int n);
void math_d_grad(const double *x, double *dx, double *y, double *dy, int n);

#define K 12
#define N 96
#define BLOCK 32
#define GRID ((N + BLOCK - 1) / BLOCK)

static float xf[N], yf[K * N], dxf[N], dyf[K * N], wf[K * N];
static double xd[N], yd[K * N], dxd[N], dyd[K * N], wd[K * N];
static int which; /* 0 float, 1 double */
static int grad;

static void run(void *p) {
  (void)p;
  if (which == 0)
    grad ? math_f_grad(xf, dxf, yf, dyf, N) : math_f_primal(xf, yf, N);
  else
    grad ? math_d_grad(xd, dxd, yd, dyd, N) : math_d_primal(xd, yd, N);
}
static void launch(int w, int g) {
  which = w;
  grad = g;
  emu_launch(emu_dim3_of(GRID, 1, 1), emu_dim3_of(BLOCK, 1, 1), run, NULL);
}

static void f_of(double v, double *o) {
  o[0] = sqrt(v);
  o[1] = exp(v - 2);
  o[2] = log(v);
  o[3] = sin(3 * v);
  o[4] = cos(3 * v);
  o[5] = tanh(v - 2);
  o[6] = pow(v, 1.5);
  o[7] = fabs(v - 2);
  o[8] = fmin(v, 1) + fmax(v, 3);
  o[9] = v * v + 1;
  o[10] = 1 / (1 + exp(-v));
  o[11] = exp(-40 * v) + log(1e-20 * v);
}
static void df_of(double v, double *o) {
  double th = tanh(v - 2), sg = 1 / (1 + exp(-v));
  o[0] = 0.5 / sqrt(v);
  o[1] = exp(v - 2);
  o[2] = 1 / v;
  o[3] = 3 * cos(3 * v);
  o[4] = -3 * sin(3 * v);
  o[5] = 1 - th * th;
  o[6] = 1.5 * sqrt(v);
  o[7] = v > 2 ? 1 : -1;
  o[8] = (v < 1) + (v > 3);
  o[9] = 2 * v;
  o[10] = sg * (1 - sg);
  o[11] = -40 * exp(-40 * v) + 1 / v;
}

static double loss_f(void) {
  launch(0, 0);
  double l = 0;
  for (int j = 0; j < K * N; j++)
    l += (double)wf[j] * yf[j];
  return l;
}
static double loss_d(void) {
  launch(1, 0);
  double l = 0;
  for (int j = 0; j < K * N; j++)
    l += wd[j] * yd[j];
  return l;
}

/* Central differences of every entry of x at once (float: which = 0, x =
 * xf; double: 1, xd): fd[i] = sum_k w[K i + k] d y[K i + k] / d x[i]. */
static void fd_every(int wh, double h, double *fd) {
  static double saved[N], y_up[K * N], up[N], dn[N];
  for (int i = 0; i < N; i++) {
    saved[i] = wh ? xd[i] : xf[i];
    double step = h * (fabs(saved[i]) > 1 ? fabs(saved[i]) : 1);
    if (wh)
      xd[i] = saved[i] + step;
    else
      xf[i] = (float)(saved[i] + step);
    up[i] = (wh ? xd[i] : xf[i]) - saved[i]; /* the step actually taken */
  }
  wh ? loss_d() : loss_f();
  for (int j = 0; j < K * N; j++)
    y_up[j] = wh ? yd[j] : yf[j];
  for (int i = 0; i < N; i++) {
    double step = h * (fabs(saved[i]) > 1 ? fabs(saved[i]) : 1);
    if (wh)
      xd[i] = saved[i] - step;
    else
      xf[i] = (float)(saved[i] - step);
    dn[i] = saved[i] - (wh ? xd[i] : xf[i]);
  }
  wh ? loss_d() : loss_f();
  for (int i = 0; i < N; i++) {
    fd[i] = 0;
    for (int k = 0; k < K; k++) {
      int j = K * i + k;
      fd[i] += (wh ? wd[j] : (double)wf[j]) * (y_up[j] - (wh ? yd[j] : yf[j])) / (up[i] + dn[i]);
    }
    if (wh)
      xd[i] = saved[i];
    else
      xf[i] = (float)saved[i];
  }
}

int main(void) {
  uint64_t s = 8;
  for (int i = 0; i < N; i++) { /* (0.05, 4.05), avoiding the kinks at 1, 2, 3 */
    double v = 0.05 + 4.0 * (i + 0.5) / N;
    if (fabs(v - 1) < 0.02 || fabs(v - 2) < 0.02 || fabs(v - 3) < 0.02)
      v += 0.03;
    xf[i] = (float)v;
    xd[i] = v;
  }
  for (int j = 0; j < K * N; j++) {
    wd[j] = check_uniform(&s, -1, 1);
    wf[j] = (float)wd[j];
  }
  static const char *names[K] = {"sqrt", "exp", "log", "sin", "cos", "tanh",
                                 "pow", "fabs", "fmin+fmax", "fma", "sigmoid", "tiny"};

  /* values */
  loss_f();
  loss_d();
  for (int i = 0; i < N; i++) {
    double want[K];
    f_of(xf[i], want);
    for (int k = 0; k < K; k++)
      check_close(names[k], i, yf[K * i + k], want[k], 1e-6, 1e-6); /* float arguments (3v, v-2) round */
    f_of(xd[i], want);
    for (int k = 0; k < K; k++)
      check_close(names[k], i, yd[K * i + k], want[k], 1e-14, 1e-15);
  }

  /* derivatives */
  memcpy(dyf, wf, sizeof dyf);
  memcpy(dyd, wd, sizeof dyd);
  memset(dxf, 0, sizeof dxf);
  memset(dxd, 0, sizeof dxd);
  launch(0, 1);
  launch(1, 1);
  for (int i = 0; i < N; i++) {
    double d[K], sf = 0, sd = 0;
    df_of(xf[i], d);
    for (int k = 0; k < K; k++)
      sf += (double)wf[K * i + k] * d[k];
    df_of(xd[i], d);
    for (int k = 0; k < K; k++)
      sd += wd[K * i + k] * d[k];
    check_close("dx float (analytic)", i, dxf[i], sf, 1e-4, 1e-4);
    check_close("dx double (analytic)", i, dxd[i], sd, 1e-10, 1e-11);
  }
  for (int j = 0; j < K * N; j++) {
    check_close("dy float after grad (consumed)", j, dyf[j], 0, 0, 0);
    check_close("dy double after grad (consumed)", j, dyd[j], 0, 0, 0);
  }
  static double fdf[N], fdd[N];
  fd_every(0, 1e-3, fdf);
  fd_every(1, 1e-6, fdd);
  for (int i = 0; i < N; i++) {
    check_close("dx float (fd, every entry)", i, dxf[i], fdf[i], 2e-2, 2e-2);
    check_close("dx double (fd, every entry)", i, dxd[i], fdd[i], 1e-6, 1e-6);
  }
  for (int k = 0; k < check_sample_count(N, 12); k++) {
    int i = check_sample(N, 12, k);
    check_close("dx float (fd)", i, dxf[i], CHECK_FD(&xf[i], 1e-3, loss_f), 2e-2, 2e-2);
    check_close("dx double (fd)", i, dxd[i], CHECK_FD(&xd[i], 1e-6, loss_d), 1e-6, 1e-6);
  }
  return check_report();
}
