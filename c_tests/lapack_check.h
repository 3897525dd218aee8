/* lapack_check.h: the derivative checks the LAPACK fixtures share
 * (lapack_gauss.h for the Cholesky fixtures, lapack_lu.c). The including
 * file defines NB, NY (B's and y's sizes), NA, NX (the scratch's) and
 *   double loss(const double *B, const double *y, double *A, double *X)
 * which may overwrite its scratch A and X. check_lapack_loss checks, at
 * the inputs lapack_inputs sets:
 *   - reverse mode: dy against the analytic gradient where the fixture
 *     has one, every entry of dB and dy against central differences;
 *   - split mode against combined, the caller overwriting the scratch
 *     between the augmented forward call and the reverse;
 *   - forward mode along a direction against the gradient's projection
 *     and a central difference;
 * and leaves what it computed for the fixture's own further checks. The
 * including file includes enzyme.h and check.h first, before defining its
 * sizes (N would otherwise rename enzyme.h's parameters). */
#include <math.h>
#include <string.h>

void __enzyme_reverse_v(void *, ...);
void *__enzyme_augmentfwd(void *, ...);

/* What the checks computed: inputs, gradient, direction, tangent. */
struct lapack_checked {
  double B[NB], y[NY], dB[NB], dy[NY], tB[NB], ty[NY], tangent;
};

static double loss_at(const double *B, const double *y) {
  double A[NA], X[NX];
  return loss(B, y, A, X);
}

/* d loss / d *p (p one of B's or y's entries), central differences. */
static double fd_entry(double *B, double *y, double *p) {
  double old = *p, h = FD_REL * (1.0 + fabs(old));
  *p = old + h;
  double fp = loss_at(B, y);
  *p = old - h;
  double fm = loss_at(B, y);
  *p = old;
  return (fp - fm) / (2 * h);
}

static void lapack_inputs(struct lapack_checked *c) {
  for (int k = 0; k < NB; k++)
    c->B[k] = sin(0.4 + 1.3 * k);
  for (int k = 0; k < NY; k++)
    c->y[k] = 0.5 - 0.3 * k + 0.1 * k * k;
}

/* The checks above; `gy`: the analytic dy, or NULL. */
static void check_lapack_loss(struct lapack_checked *c, const double *gy) {
  double *B = c->B, *y = c->y, *dB = c->dB, *dy = c->dy;
  double A[NA], X[NX], dA[NA] = {0}, dX[NX] = {0};
  memset(dB, 0, sizeof c->dB);
  memset(dy, 0, sizeof c->dy);
  check_at("reverse");
  __enzyme_autodiff((void *)loss, enzyme_dup, B, dB, enzyme_dup, y, dy, enzyme_dup, A, dA,
                    enzyme_dup, X, dX);
  for (int k = 0; k < NY; k++) {
    if (gy)
      check_close("dy = A^-1 y", dy[k], gy[k], TOL_AD);
    check_close("dy = central difference", dy[k], fd_entry(B, y, &y[k]), TOL_FD);
  }
  for (int k = 0; k < NB; k++)
    check_close("dB = central difference", dB[k], fd_entry(B, y, &B[k]), TOL_FD);

  /* Split mode: the caller overwrites the scratch between the calls. */
  double sB[NB] = {0}, sy[NY] = {0};
  memset(dA, 0, sizeof dA);
  memset(dX, 0, sizeof dX);
  check_at("split");
  void *tape = __enzyme_augmentfwd((void *)loss, enzyme_dup, B, sB, enzyme_dup, y, sy,
                                   enzyme_dup, A, dA, enzyme_dup, X, dX);
  for (int k = 0; k < NA; k++)
    A[k] = -3.0;
  for (int k = 0; k < NX; k++)
    X[k] = 5.0;
  __enzyme_reverse_v((void *)loss, enzyme_dup, B, sB, enzyme_dup, y, sy, enzyme_dup, A, dA,
                     enzyme_dup, X, dX, 1.0, tape);
  for (int k = 0; k < NB; k++)
    check_close("split dB = combined", sB[k], dB[k], 1e-12);
  for (int k = 0; k < NY; k++)
    check_close("split dy = combined", sy[k], dy[k], 1e-12);

  /* Forward mode along a direction. */
  double *tB = c->tB, *ty = c->ty, want = 0, h = 1e-6, Bp[NB], Bm[NB], yp[NY], ym[NY];
  for (int k = 0; k < NB; k++) {
    want += dB[k] * (tB[k] = 0.3 - 0.1 * k);
    Bp[k] = B[k] + h * tB[k], Bm[k] = B[k] - h * tB[k];
  }
  for (int k = 0; k < NY; k++) {
    want += dy[k] * (ty[k] = 0.2 + 0.15 * k);
    yp[k] = y[k] + h * ty[k], ym[k] = y[k] - h * ty[k];
  }
  memset(dA, 0, sizeof dA);
  memset(dX, 0, sizeof dX);
  check_at("forward");
  double got = __enzyme_fwddiff((void *)loss, enzyme_dup, B, tB, enzyme_dup, y, ty, enzyme_dup,
                                A, dA, enzyme_dup, X, dX);
  check_close("forward = gradient . direction", got, want, TOL_AD);
  check_close("forward = central difference", got,
              (loss_at(Bp, yp) - loss_at(Bm, ym)) / (2 * h), TOL_FD);
  c->tangent = got;
}
