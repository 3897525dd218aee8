/* blas_struct.h: checks of the symmetric and triangular BLAS routines'
 * derivatives, shared by blas_lsq.c (CBLAS, row-major) and blas_lsq_f77.c
 * (Fortran symbols, column-major). The including file defines
 *   double sloss(const double *A, const double *B, const double *x);
 * A: SN x SN (its triangles read as symmetric and triangular matrices,
 * the diagonal large enough for the solves), B: SN x SK, x: SN, through
 * symv, trmv, trsv (unit diagonal), symm, syrk, trmm (right side, with the
 * syrk's result as its triangle) and trsm, each overwriting what it
 * read where BLAS does, and idamax (no derivative) picking an entry. Checked: the reverse gradient (combined) against
 * central differences in every entry, split against combined, and forward
 * mode along a direction against the gradient's projection and central
 * differences along it, and vector forward mode (width 2) against it. */
#define SN 3
#define SK 2
#define NA (SN * SN)
#define NB (SN * SK)

double sloss(const double *A, const double *B, const double *x);

typedef struct {
  double d[2];
} stan2;
stan2 __enzyme_fwddiff_w2(void *, ...);

static double sA_[NA], sB_[NB], sx_[SN];

static double sfd(double *p) {
  double h = FD_REL * (1.0 + fabs(*p)), old = *p;
  *p = old + h;
  double fp = sloss(sA_, sB_, sx_);
  *p = old - h;
  double fm = sloss(sA_, sB_, sx_);
  *p = old;
  return (fp - fm) / (2 * h);
}

static void run_struct_checks(void) {
  for (int i = 0; i < SN; i++)
    for (int j = 0; j < SN; j++)
      sA_[i + j * SN] = i == j ? 2.0 + 0.3 * i : 0.4 * sin(1.0 + i + 2.0 * j);
  for (int k = 0; k < NB; k++)
    sB_[k] = 0.5 + 0.3 * cos(0.7 * k);
  for (int k = 0; k < SN; k++)
    sx_[k] = 0.3 * k - 0.5;
  double dA[NA] = {0}, dB[NB] = {0}, dx[SN] = {0};
  check_at("structured reverse");
  __enzyme_autodiff((void *)sloss, enzyme_dup, sA_, dA, enzyme_dup, sB_, dB, enzyme_dup, sx_,
                    dx);
  double want = 0, tA[NA], tB[NB], tx[SN];
  for (int k = 0; k < NA; k++) {
    check_close("dA vs FD", dA[k], sfd(&sA_[k]), TOL_FD);
    want += dA[k] * (tA[k] = 0.2 - 0.05 * k);
  }
  for (int k = 0; k < NB; k++) {
    check_close("dB vs FD", dB[k], sfd(&sB_[k]), TOL_FD);
    want += dB[k] * (tB[k] = 0.1 * k - 0.3);
  }
  for (int k = 0; k < SN; k++) {
    check_close("dx vs FD", dx[k], sfd(&sx_[k]), TOL_FD);
    want += dx[k] * (tx[k] = 0.25 + 0.1 * k);
  }
  double sA[NA] = {0}, sB[NB] = {0}, sx[SN] = {0};
  check_at("structured split");
  void *tape = __enzyme_augmentfwd((void *)sloss, enzyme_dup, sA_, sA, enzyme_dup, sB_, sB,
                                   enzyme_dup, sx_, sx);
  __enzyme_reverse_v((void *)sloss, enzyme_dup, sA_, sA, enzyme_dup, sB_, sB, enzyme_dup, sx_,
                     sx, 1.0, tape);
  for (int k = 0; k < NA; k++)
    check_close("split dA = combined", sA[k], dA[k], 1e-12);
  for (int k = 0; k < NB; k++)
    check_close("split dB = combined", sB[k], dB[k], 1e-12);
  for (int k = 0; k < SN; k++)
    check_close("split dx = combined", sx[k], dx[k], 1e-12);
  check_at("structured forward");
  double got = __enzyme_fwddiff((void *)sloss, enzyme_dup, sA_, tA, enzyme_dup, sB_, tB,
                                enzyme_dup, sx_, tx);
  check_close("forward = gradient . direction", got, want, TOL_AD);
  double h = 1e-6, Ap[NA], Am[NA], Bp[NB], Bm[NB], xp[SN], xm[SN];
  for (int k = 0; k < NA; k++)
    Ap[k] = sA_[k] + h * tA[k], Am[k] = sA_[k] - h * tA[k];
  for (int k = 0; k < NB; k++)
    Bp[k] = sB_[k] + h * tB[k], Bm[k] = sB_[k] - h * tB[k];
  for (int k = 0; k < SN; k++)
    xp[k] = sx_[k] + h * tx[k], xm[k] = sx_[k] - h * tx[k];
  check_close("forward = central difference", got,
              (sloss(Ap, Bp, xp) - sloss(Am, Bm, xm)) / (2 * h), TOL_FD);
  /* Vector forward mode: lane 1 along -0.5 times lane 0's direction. */
  double uA[NA], uB[NB], ux[SN];
  for (int k = 0; k < NA; k++)
    uA[k] = -0.5 * tA[k];
  for (int k = 0; k < NB; k++)
    uB[k] = -0.5 * tB[k];
  for (int k = 0; k < SN; k++)
    ux[k] = -0.5 * tx[k];
  check_at("structured forward, width 2");
  stan2 w = __enzyme_fwddiff_w2((void *)sloss, enzyme_width, 2, enzyme_dup, sA_, tA, uA,
                                enzyme_dup, sB_, tB, uB, enzyme_dup, sx_, tx, ux);
  check_close("lane 0 = width 1", w.d[0], got, 1e-12);
  check_close("lane 1 = -0.5 width 1", w.d[1], -0.5 * got, 1e-12);
}
