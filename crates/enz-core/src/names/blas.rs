//! BLAS (Basic Linear Algebra Subprograms), through its C interface
//! (`cblas_dgemm(layout, transa, ...)`, arguments by value) and its
//! Fortran symbols (`dgemm_(&transa, ...)`, every argument by pointer,
//! column-major): the routines enz-rs differentiates, the layout of their
//! arguments, and the routines it knows to be BLAS but has no rule for.
//!
//! Arguments are numbered as CBLAS numbers them; a Fortran symbol has the
//! same arguments less the layout (its argument `k` is CBLAS's `k + 1`
//! for the routines that take a layout).

/// A routine with a derivative rule (or, `Iamax`, with no derivative).
#[derive(Copy, Clone, PartialEq, Eq, Debug, Hash)]
pub(crate) enum BlasRoutine {
    /// `dot(n, x, incx, y, incy) -> x·y`.
    Dot,
    /// `axpy(n, alpha, x, incx, y, incy)`: `y += alpha x`.
    Axpy,
    /// `scal(n, alpha, x, incx)`: `x *= alpha`.
    Scal,
    /// `copy(n, x, incx, y, incy)`: `y = x`.
    Copy,
    /// `swap(n, x, incx, y, incy)`.
    Swap,
    /// `nrm2(n, x, incx) -> ||x||`.
    Nrm2,
    /// `asum(n, x, incx) -> sum |x_i|`.
    Asum,
    /// `iamax(n, x, incx)`: an index, no derivative.
    Iamax,
    /// `gemv(layout, trans, m, n, alpha, A, lda, x, incx, beta, y, incy)`:
    /// `y = alpha op(A) x + beta y`.
    Gemv,
    /// `ger(layout, m, n, alpha, x, incx, y, incy, A, lda)`:
    /// `A += alpha x y^T`.
    Ger,
    /// `gemm(layout, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C,
    /// ldc)`: `C = alpha op(A) op(B) + beta C`.
    Gemm,
    /// `symv(layout, uplo, n, alpha, A, lda, x, incx, beta, y, incy)`:
    /// `y = alpha S x + beta y`, `S` symmetric, one triangle of `A`.
    Symv,
    /// `trmv(layout, uplo, trans, diag, n, A, lda, x, incx)`:
    /// `x = op(T) x`, `T` triangular.
    Trmv,
    /// `trsv(layout, uplo, trans, diag, n, A, lda, x, incx)`:
    /// `x = op(T)^-1 x`.
    Trsv,
    /// `symm(layout, side, uplo, m, n, alpha, A, lda, B, ldb, beta, C,
    /// ldc)`: `C = alpha S B + beta C` (left) or `alpha B S + beta C`.
    Symm,
    /// `syrk(layout, uplo, trans, n, k, alpha, A, lda, beta, C, ldc)`:
    /// one triangle of `C = alpha op(A) op(A)^T + beta C`.
    Syrk,
    /// `trmm(layout, side, uplo, trans, diag, m, n, alpha, A, lda, B,
    /// ldb)`: `B = alpha op(T) B` (left) or `alpha B op(T)`.
    Trmm,
    /// `trsm(layout, side, uplo, trans, diag, m, n, alpha, A, lda, B,
    /// ldb)`: `B = alpha op(T)^-1 B` (left) or `alpha B op(T)^-1`.
    Trsm,
    /// `syr2k(layout, uplo, trans, n, k, alpha, A, lda, B, ldb, beta, C,
    /// ldc)`: no rule of its own; syrk's tangent calls it.
    Syr2k,
    /// LAPACK's `potrf(layout, uplo, n, A, lda)`: the Cholesky factor of
    /// `A` (`A = L L^T`, or `U^T U`) over that triangle of `A`.
    Potrf,
    /// LAPACK's `potrs(layout, uplo, n, nrhs, A, lda, B, ldb)`: `B =
    /// A^-1 B`, `A` given by its Cholesky factor.
    Potrs,
    /// LAPACK's `getrf(layout, m, n, A, lda, ipiv)`: `A = P L U` (rule:
    /// square `A`), `L` (unit) and `U` over `A`, the pivots in `ipiv`.
    Getrf,
    /// LAPACK's `getrs(layout, trans, n, nrhs, A, lda, ipiv, B, ldb)`:
    /// `B = op(A)^-1 B`, `A` given by `getrf`'s factors.
    Getrs,
    /// LAPACK's `gesv(layout, n, nrhs, A, lda, ipiv, B, ldb)`: `getrf`
    /// then `getrs` (no transpose).
    Gesv,
}

/// Single or double precision.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Hash)]
pub(crate) enum BlasPrecision {
    /// `s*`: `float`.
    Single,
    /// `d*`: `double`.
    Double,
}

/// Which interface a call goes through.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Hash)]
pub(crate) enum BlasInterface {
    /// `cblas_*`: arguments by value, a layout argument first (level 2
    /// and 3).
    Cblas,
    /// The Fortran symbols (`dgemm_`): arguments by pointer, characters
    /// for transposes, column-major.
    Fortran,
}

/// A BLAS function enz-rs knows.
#[derive(Copy, Clone, PartialEq, Eq, Debug, Hash)]
pub(crate) enum BlasFn {
    /// A routine of the table.
    Rule(BlasRoutine, BlasPrecision, BlasInterface),
    /// A BLAS routine with no rule (complex precisions, `syr2k`, ...):
    /// refused by name when passed memory holding derivatives.
    Other,
}

/// What one CBLAS argument is.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum BlasArg {
    /// The layout (`CblasRowMajor` 101, `CblasColMajor` 102).
    Layout,
    /// A transpose (`CblasNoTrans` 111, `CblasTrans` 112,
    /// `CblasConjTrans` 113; Fortran: a character `N`, `T` or `C`).
    Trans,
    /// Which triangle (`CblasUpper` 121, `CblasLower` 122; `U`, `L`).
    Uplo,
    /// A unit diagonal or not (`CblasNonUnit` 131, `CblasUnit` 132; `N`,
    /// `U`).
    Diag,
    /// Which side a symmetric or triangular matrix multiplies from
    /// (`CblasLeft` 141, `CblasRight` 142; `L`, `R`).
    Side,
    /// A dimension, increment or leading dimension (`int`).
    Int,
    /// A float scalar (`alpha`, `beta`).
    Scalar,
    /// A vector of floats.
    Vector,
    /// A matrix of floats.
    Matrix,
    /// LAPACK's pivot indices (an array of `int`, 1-based rows).
    Pivots,
}

/// `CblasColMajor`.
pub(crate) const CBLAS_COL_MAJOR: i64 = 102;
/// `CblasNoTrans`.
pub(crate) const CBLAS_NO_TRANS: i64 = 111;
/// `CblasTrans`.
pub(crate) const CBLAS_TRANS: i64 = 112;
/// `CblasUpper` (`CblasLower` is 122).
pub(crate) const CBLAS_UPPER: i64 = 121;
/// `CblasLower`.
pub(crate) const CBLAS_LOWER: i64 = 122;
/// `CblasNonUnit`.
pub(crate) const CBLAS_NON_UNIT: i64 = 131;
/// `CblasUnit`.
pub(crate) const CBLAS_UNIT: i64 = 132;
/// `CblasLeft`.
pub(crate) const CBLAS_LEFT: i64 = 141;
/// `CblasRight`.
pub(crate) const CBLAS_RIGHT: i64 = 142;

/// `CblasRowMajor` (and `LAPACK_ROW_MAJOR`).
pub(crate) const CBLAS_ROW_MAJOR: i64 = 101;

/// The prefix of LAPACK's C interface (`LAPACKE_dpotrf`): the CBLAS form
/// of the arguments (a layout first, by value), but triangles as
/// characters (`'L'`, `'U'`) and `info` returned.
const LAPACKE_PREFIX: &str = "LAPACKE_";

/// The LAPACK routines with rules (without precision and decoration).
const LAPACK_ROUTINES: [(&str, BlasRoutine); 5] = [
    ("potrf", BlasRoutine::Potrf),
    ("potrs", BlasRoutine::Potrs),
    ("getrf", BlasRoutine::Getrf),
    ("getrs", BlasRoutine::Getrs),
    ("gesv", BlasRoutine::Gesv),
];

/// Other LAPACK routines (without precision and decoration) that take
/// float arrays, refused by name when passed memory with a shadow.
const OTHER_LAPACK: &[&str] = &[
    "getri", "potri", "posv", "geqrf", "orgqr", "ormqr", "gels", "gelsd", "gelss", "gesvd",
    "gesdd", "syev", "syevd", "syevr", "geev", "trtrs", "trtri", "sytrf", "sytrs", "sysv", "gbsv",
    "gtsv", "ptsv", "pbsv", "ppsv", "lacpy", "laset", "gecon", "pocon", "lange", "lansy", "gglse",
    "ggev", "gees", "hetrf", "heev",
];

/// Whether `name` is a LAPACK function (LAPACKE's or a Fortran symbol of
/// a routine enz-rs knows), for diagnostics.
pub(crate) fn is_lapack_name(name: &str) -> bool {
    if name.starts_with(LAPACKE_PREFIX) {
        return true;
    }
    let Some(stem) = name.strip_suffix('_') else {
        return false;
    };
    stem.len() > 1
        && matches!(stem.as_bytes()[0], b's' | b'd' | b'c' | b'z')
        && (OTHER_LAPACK.contains(&&stem[1..])
            || LAPACK_ROUTINES.iter().any(|(n, _)| *n == &stem[1..]))
}

/// The LAPACK function `name` designates, if it is one.
fn lapack_from_callee(name: &str) -> Option<BlasFn> {
    let (stem, iface) = match name.strip_prefix(LAPACKE_PREFIX) {
        // `LAPACKE_dpotrf_work`: the same arguments.
        Some(s) => (s.strip_suffix("_work").unwrap_or(s), BlasInterface::Cblas),
        None => (name.strip_suffix('_')?, BlasInterface::Fortran),
    };
    let (&p, rest) = stem.as_bytes().split_first()?;
    let rest = std::str::from_utf8(rest).ok()?;
    let prec = match p {
        b's' => Some(BlasPrecision::Single),
        b'd' => Some(BlasPrecision::Double),
        b'c' | b'z' => None,
        _ if iface == BlasInterface::Cblas => return Some(BlasFn::Other),
        _ => return None,
    };
    let known = LAPACK_ROUTINES.iter().find(|(n, _)| *n == rest);
    match (known, prec) {
        (Some((_, r)), Some(p)) => Some(BlasFn::Rule(*r, p, iface)),
        (Some(_), None) => Some(BlasFn::Other),
        _ if iface == BlasInterface::Cblas || OTHER_LAPACK.contains(&rest) => Some(BlasFn::Other),
        _ => None,
    }
}

/// The prefix of the helpers BLAS derivatives emit into the module
/// (`__enz_blas_dasum_adjoint`: the element loops of `?asum`'s rules).
pub(crate) const BLAS_HELPER_PREFIX: &str = "__enz_blas_";

/// The routines' names without precision and decoration.
const ROUTINES: [(&str, BlasRoutine); 19] = [
    ("dot", BlasRoutine::Dot),
    ("axpy", BlasRoutine::Axpy),
    ("scal", BlasRoutine::Scal),
    ("copy", BlasRoutine::Copy),
    ("swap", BlasRoutine::Swap),
    ("nrm2", BlasRoutine::Nrm2),
    ("asum", BlasRoutine::Asum),
    ("amax", BlasRoutine::Iamax),
    ("gemv", BlasRoutine::Gemv),
    ("ger", BlasRoutine::Ger),
    ("gemm", BlasRoutine::Gemm),
    ("symv", BlasRoutine::Symv),
    ("trmv", BlasRoutine::Trmv),
    ("trsv", BlasRoutine::Trsv),
    ("symm", BlasRoutine::Symm),
    ("syrk", BlasRoutine::Syrk),
    ("trmm", BlasRoutine::Trmm),
    ("trsm", BlasRoutine::Trsm),
    ("syr2k", BlasRoutine::Syr2k),
];

/// The other BLAS routines (without precision and decoration), known so
/// that a call of one is refused by name rather than as an unknown
/// function.
const OTHER_ROUTINES: &[&str] = &[
    "dotu", "dotc", "dsdot", "rot", "rotg", "rotm", "rotmg", "gbmv", "symv", "sbmv", "spmv",
    "trmv", "tbmv", "tpmv", "trsv", "tbsv", "tpsv", "geru", "gerc", "syr", "syr2", "spr", "spr2",
    "hemv", "hbmv", "hpmv", "her", "her2", "hpr", "hpr2", "symm", "syrk", "syr2k", "trmm", "trsm",
    "hemm", "herk", "her2k", "amin", "cabs1",
];

impl BlasFn {
    /// The BLAS function `name` designates, if it is one.
    pub(crate) fn from_callee(name: &str) -> Option<BlasFn> {
        if let Some(f) = lapack_from_callee(name) {
            return Some(f);
        }
        let (stem, iface) = if let Some(s) = name.strip_prefix("cblas_") {
            (s, BlasInterface::Cblas)
        } else if let Some(s) = name.strip_suffix('_') {
            (s, BlasInterface::Fortran)
        } else {
            return None;
        };
        // `idamax` carries its precision after the `i`.
        let (prec, rest) = match stem.as_bytes() {
            [b'i', p, ..] if stem.ends_with("amax") || stem.ends_with("amin") => (*p, &stem[2..]),
            [p, ..] => (*p, &stem[1..]),
            [] => return None,
        };
        let known = |r: &str| ROUTINES.iter().find(|(n, _)| *n == r).map(|(_, r)| *r);
        let precision = match prec {
            b's' => Some(BlasPrecision::Single),
            b'd' => Some(BlasPrecision::Double),
            b'c' | b'z' => None,
            _ => return cblas_fallback(iface),
        };
        match (known(rest), precision) {
            (Some(BlasRoutine::Iamax), _) if !stem.starts_with('i') => cblas_fallback(iface),
            (Some(r), Some(p)) => Some(BlasFn::Rule(r, p, iface)),
            (Some(_), None) => Some(BlasFn::Other),
            (None, _) if OTHER_ROUTINES.contains(&rest) => Some(BlasFn::Other),
            // `scasum`, `dznrm2`, ...: complex vectors' norms.
            (None, _) if matches!(rest, "casum" | "cnrm2" | "zasum" | "znrm2") => {
                Some(BlasFn::Other)
            }
            (None, _) => cblas_fallback(iface),
        }
    }

    /// Whether calls of it carry no derivative.
    pub(crate) fn is_inactive(self) -> bool {
        matches!(self, BlasFn::Rule(BlasRoutine::Iamax, _, _))
    }
}

/// Any other `cblas_*` function is BLAS (refused by name); another name
/// ending in `_` is not.
fn cblas_fallback(iface: BlasInterface) -> Option<BlasFn> {
    (iface == BlasInterface::Cblas).then_some(BlasFn::Other)
}

impl BlasRoutine {
    /// The CBLAS arguments, in order.
    pub(crate) fn args(self) -> &'static [BlasArg] {
        use BlasArg::*;
        match self {
            BlasRoutine::Dot | BlasRoutine::Copy | BlasRoutine::Swap => {
                &[Int, Vector, Int, Vector, Int]
            }
            BlasRoutine::Axpy => &[Int, Scalar, Vector, Int, Vector, Int],
            BlasRoutine::Scal => &[Int, Scalar, Vector, Int],
            BlasRoutine::Nrm2 | BlasRoutine::Asum | BlasRoutine::Iamax => &[Int, Vector, Int],
            BlasRoutine::Gemv => &[
                Layout, Trans, Int, Int, Scalar, Matrix, Int, Vector, Int, Scalar, Vector, Int,
            ],
            BlasRoutine::Ger => &[
                Layout, Int, Int, Scalar, Vector, Int, Vector, Int, Matrix, Int,
            ],
            BlasRoutine::Gemm => &[
                Layout, Trans, Trans, Int, Int, Int, Scalar, Matrix, Int, Matrix, Int, Scalar,
                Matrix, Int,
            ],
            BlasRoutine::Symv => &[
                Layout, Uplo, Int, Scalar, Matrix, Int, Vector, Int, Scalar, Vector, Int,
            ],
            BlasRoutine::Trmv | BlasRoutine::Trsv => {
                &[Layout, Uplo, Trans, Diag, Int, Matrix, Int, Vector, Int]
            }
            BlasRoutine::Symm => &[
                Layout, Side, Uplo, Int, Int, Scalar, Matrix, Int, Matrix, Int, Scalar, Matrix, Int,
            ],
            BlasRoutine::Syrk => &[
                Layout, Uplo, Trans, Int, Int, Scalar, Matrix, Int, Scalar, Matrix, Int,
            ],
            BlasRoutine::Trmm | BlasRoutine::Trsm => &[
                Layout, Side, Uplo, Trans, Diag, Int, Int, Scalar, Matrix, Int, Matrix, Int,
            ],
            BlasRoutine::Syr2k => &[
                Layout, Uplo, Trans, Int, Int, Scalar, Matrix, Int, Matrix, Int, Scalar, Matrix,
                Int,
            ],
            BlasRoutine::Potrf => &[Layout, Uplo, Int, Matrix, Int],
            BlasRoutine::Potrs => &[Layout, Uplo, Int, Int, Matrix, Int, Matrix, Int],
            BlasRoutine::Getrf => &[Layout, Int, Int, Matrix, Int, Pivots],
            BlasRoutine::Getrs => &[Layout, Trans, Int, Int, Matrix, Int, Pivots, Matrix, Int],
            BlasRoutine::Gesv => &[Layout, Int, Int, Matrix, Int, Pivots, Matrix, Int],
        }
    }

    /// The (CBLAS) arguments of the arrays the routine writes.
    pub(crate) fn written(self) -> &'static [u32] {
        match self {
            BlasRoutine::Axpy => &[4],
            BlasRoutine::Copy => &[3],
            BlasRoutine::Scal => &[2],
            BlasRoutine::Swap => &[1, 3],
            BlasRoutine::Gemv => &[10],
            BlasRoutine::Ger => &[8],
            BlasRoutine::Gemm => &[12],
            BlasRoutine::Syr2k | BlasRoutine::Symm => &[11],
            BlasRoutine::Symv | BlasRoutine::Syrk => &[9],
            BlasRoutine::Trmv | BlasRoutine::Trsv => &[7],
            BlasRoutine::Trmm | BlasRoutine::Trsm => &[10],
            BlasRoutine::Potrf => &[3],
            BlasRoutine::Potrs => &[6],
            BlasRoutine::Getrf => &[3],
            BlasRoutine::Getrs => &[7],
            BlasRoutine::Gesv => &[3, 6],
            BlasRoutine::Dot | BlasRoutine::Nrm2 | BlasRoutine::Asum | BlasRoutine::Iamax => &[],
        }
    }

    /// Whether it returns a float (a dot product or a norm).
    pub(crate) fn returns_float(self) -> bool {
        matches!(
            self,
            BlasRoutine::Dot | BlasRoutine::Nrm2 | BlasRoutine::Asum
        )
    }

    /// Whether its CBLAS form takes a layout first.
    pub(crate) fn has_layout(self) -> bool {
        self.args().first() == Some(&BlasArg::Layout)
    }

    /// Whether it is a LAPACK routine: its Fortran symbol takes an `info`
    /// pointer (written) after the arguments, its LAPACKE form returns it.
    pub(crate) fn is_lapack(self) -> bool {
        matches!(
            self,
            BlasRoutine::Potrf
                | BlasRoutine::Potrs
                | BlasRoutine::Getrf
                | BlasRoutine::Getrs
                | BlasRoutine::Gesv
        )
    }

    /// Whether it writes its pivots (`getrf`, `gesv`).
    pub(crate) fn writes_pivots(self) -> bool {
        matches!(self, BlasRoutine::Getrf | BlasRoutine::Gesv)
    }

    /// The routine's name without precision and decoration.
    pub(crate) fn stem(self) -> &'static str {
        ROUTINES
            .iter()
            .chain(LAPACK_ROUTINES.iter())
            .find(|(_, r)| *r == self)
            .map(|(n, _)| *n)
            .expect("every routine is in the table")
    }
}

/// The CBLAS function derivatives call for `routine` in `prec`
/// (`cblas_dgemm`): the same library the user's calls link with provides
/// it (OpenBLAS and the reference CBLAS provide both interfaces).
pub(crate) fn cblas_name(routine: BlasRoutine, prec: BlasPrecision) -> String {
    let p = match prec {
        BlasPrecision::Single => 's',
        BlasPrecision::Double => 'd',
    };
    format!("cblas_{p}{}", routine.stem())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        use BlasInterface::*;
        use BlasPrecision::*;
        use BlasRoutine::*;
        let r = |n| BlasFn::from_callee(n);
        assert_eq!(r("cblas_dgemm"), Some(BlasFn::Rule(Gemm, Double, Cblas)));
        assert_eq!(r("sgemv_"), Some(BlasFn::Rule(Gemv, Single, Fortran)));
        assert_eq!(r("cblas_idamax"), Some(BlasFn::Rule(Iamax, Double, Cblas)));
        assert_eq!(r("idamax_"), Some(BlasFn::Rule(Iamax, Double, Fortran)));
        assert_eq!(r("ddot_"), Some(BlasFn::Rule(Dot, Double, Fortran)));
        assert_eq!(r("cblas_zgemm"), Some(BlasFn::Other));
        assert_eq!(r("dtrsm_"), Some(BlasFn::Rule(Trsm, Double, Fortran)));
        assert_eq!(r("cblas_ssyrk"), Some(BlasFn::Rule(Syrk, Single, Cblas)));
        assert_eq!(r("zsyr2k_"), Some(BlasFn::Other));
        assert_eq!(r("dsyr2_"), Some(BlasFn::Other));
        assert_eq!(r("cblas_dtbsv"), Some(BlasFn::Other));
        assert_eq!(r("dznrm2_"), Some(BlasFn::Other));
        assert_eq!(r("damax_"), None);
        assert_eq!(r("my_helper_"), None);
        assert_eq!(r("dgemm"), None);
        assert_eq!(
            r("LAPACKE_dpotrf"),
            Some(BlasFn::Rule(Potrf, Double, Cblas))
        );
        assert_eq!(r("dpotrs_"), Some(BlasFn::Rule(Potrs, Double, Fortran)));
        assert_eq!(r("spotrf_"), Some(BlasFn::Rule(Potrf, Single, Fortran)));
        assert_eq!(r("dgetrf_"), Some(BlasFn::Rule(Getrf, Double, Fortran)));
        assert_eq!(r("dgetri_"), Some(BlasFn::Other));
        assert_eq!(r("LAPACKE_dgesv"), Some(BlasFn::Rule(Gesv, Double, Cblas)));
        assert_eq!(r("LAPACKE_zgesv"), Some(BlasFn::Other));
        assert_eq!(r("zpotrf_"), Some(BlasFn::Other));
        assert_eq!(r("cblas_dpotrf"), Some(BlasFn::Other));
        assert!(is_lapack_name("dgetri_") && is_lapack_name("LAPACKE_zgesv"));
        assert!(!is_lapack_name("dgemm_") && !is_lapack_name("dpotrfx_"));
        assert_eq!(cblas_name(Gemm, Single), "cblas_sgemm");
        // What a routine writes is among its arrays.
        for (_, r) in ROUTINES {
            for k in r.written() {
                let a = r.args()[*k as usize];
                assert!(
                    matches!(a, BlasArg::Vector | BlasArg::Matrix),
                    "{r:?} writes {k}"
                );
            }
        }
    }
}
