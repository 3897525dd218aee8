//! The rules of the symmetric and triangular routines (`?symv`, `?trmv`,
//! `?trsv`, `?symm`, `?syrk`, `?trmm`, `?trsm`). `S` is the symmetric
//! matrix one triangle of `A` stands for, `T` the triangular one (unit
//! diagonal: not read, no derivative); `X` a call's result:
//!
//! | primal | reverse sweep | forward mode |
//! |---|---|---|
//! | `y = a S x + b y` | `dx += a S dy`; `dA += fold(a dy x^T)`; `dy *= b` | `dy = a S dx + a dS x + b dy` |
//! | `x = op(T) x` | `dA += tri(dx x_in^T)` (or `x_in dx^T`); `dx = op(T)^T dx` | before the call: `dx = op(T) dx + op(tri(dA)) x` |
//! | `x = op(T)^-1 x` | `dx = op(T)^-T dx`; `dA -= tri(dx X^T)` (or `X dx^T`) | `dx = op(T)^-1 (dx - op(tri(dA)) X)` |
//! | `C = a S B + b C` (left; right alike) | `dB += a S dC`; `dA += fold(a dC B^T)`; `dC *= b` | `dC = a dS B + a S dB + b dC` |
//! | `C = a op(A) op(A)^T + b C` (a triangle) | `dA += a (D + D^T) A` (or `A (D + D^T)`), `D` dC's triangle; `dC *= b` | `syr2k(dA, A)` |
//! | `B = a op(T) B` (left; right alike) | `dA += tri(a dB B_in^T)` (...); `dB = a op(T)^T dB` | before the call: `dB = a op(T) dB + a op(tri(dA)) B` |
//! | `B = a op(T)^-1 B` (left; right alike) | `dB = op(T)^-T dB`; `dA -= tri(dB X^T)` (...); `dB *= a` | `dB = op(T)^-1 (a dB - op(tri(dA)) X)` |
//!
//! `fold` and `tri` move a full product (made by `ger` or `gemm` into a
//! zeroed scratch matrix) into the triangle (`tri.rs`); the inputs a
//! triangular product overwrites (`x_in`, `B_in`) are copied before the
//! call (`copied_before`), and its tangent is made before it.

use super::tri::{tri_move, Move};
use super::{Args, Arrays, Emit};
use crate::ir::{LLVMIntPredicate, Value};
use crate::names::{BlasRoutine, CBLAS_LEFT, CBLAS_NO_TRANS, CBLAS_TRANS, CBLAS_UNIT};

/// Whether the copy of array argument `k` of `r` the reverse sweep reads
/// is made before the call (the call overwrites what it read there).
pub(crate) fn copied_before(r: BlasRoutine, k: u32) -> bool {
    matches!((r, k), (BlasRoutine::Trmv, 7) | (BlasRoutine::Trmm, 10))
}

/// Whether forward mode makes `r`'s tangent before the call.
pub(crate) fn tangent_before(r: BlasRoutine) -> bool {
    matches!(r, BlasRoutine::Trmv | BlasRoutine::Trmm)
}

impl<'b, 'm> Emit<'b, 'm> {
    /// A zeroed `rows x cols` scratch matrix (`i32`s), freed by [`Self::release`].
    pub(super) fn scratch(&self, rows: Value<'m>, cols: Value<'m>) -> Value<'m> {
        let b = self.b;
        let i64t = crate::ir::Ty::int(b.ctx(), 64);
        let es = match self.prec {
            crate::names::BlasPrecision::Single => 4,
            crate::names::BlasPrecision::Double => 8,
        };
        let n = b.mul(b.sext(rows, i64t), b.sext(cols, i64t));
        let bytes = b.add(b.mul(n, b.const_int(i64t, es)), b.const_int(i64t, 8));
        let p = b.malloc(bytes).as_value();
        b.memset_zero(p, bytes);
        p
    }

    pub(super) fn release(&self, p: Value<'m>) {
        self.b.free(p);
    }

    /// `Move::Strict` for a unit diagonal, else `Move::Triangle`.
    fn tri_mode(&self, diag: Value<'m>) -> Value<'m> {
        let b = self.b;
        let unit = b.icmp(LLVMIntPredicate::LLVMIntEQ, diag, b.i32(CBLAS_UNIT));
        b.select(
            unit,
            b.i32(Move::Strict as i64),
            b.i32(Move::Triangle as i64),
        )
    }

    fn is_left(&self, side: Value<'m>) -> Value<'m> {
        self.b
            .icmp(LLVMIntPredicate::LLVMIntEQ, side, self.b.i32(CBLAS_LEFT))
    }

    /// `C *= beta` for an `m x n` matrix: a gemm with `alpha = 0`, which
    /// reads neither operand (both `C`, `m x 1` and `1 x n`: valid leading
    /// dimensions in either layout).
    fn scale_matrix(
        &self,
        l: Value<'m>,
        m: Value<'m>,
        n: Value<'m>,
        beta: Value<'m>,
        c: Value<'m>,
        ldc: Value<'m>,
    ) {
        let nt = self.b.i32(CBLAS_NO_TRANS);
        let one = self.b.i32(1);
        let zero = self.float(0.0);
        self.gemm([l, nt, nt, m, n, one, zero, c, ldc, c, ldc, beta, c, ldc]);
    }
}

/// The reverse sweep of a structured call (see the module's table).
pub(crate) fn reverse<'m>(e: &Emit<'_, 'm>, a: &Args<'m>, arr: &Arrays<'m>) {
    let v = &a.v;
    let d = |k: usize| arr.shadow[k];
    let p = |k: usize| arr.p(k, a);
    let b = e.b;
    let one = e.float(1.0);
    let zero = e.float(0.0);
    let nt = b.i32(CBLAS_NO_TRANS);
    let tt = b.i32(CBLAS_TRANS);
    let p_ = e.prec;
    match a.routine {
        BlasRoutine::Symv => {
            let (l, uplo, n, alpha, lda, incx, beta, incy) =
                (v[0], v[1], v[2], v[3], v[5], v[7], v[8], v[10]);
            let Some(dy) = d(9) else { return };
            if let Some(dx) = d(6) {
                e.call(
                    BlasRoutine::Symv,
                    &[l, uplo, n, alpha, p(4), lda, dy, incy, one, dx, incx],
                );
            }
            if let Some(da) = d(4) {
                let w = e.scratch(n, n);
                e.ger([l, n, n, alpha, dy, incy, p(6), incx, w, n]);
                tri_move(b, p_, l, uplo, b.i32(Move::Fold as i64), n, w, n, da, lda);
                e.release(w);
            }
            e.call(
                BlasRoutine::Symv,
                &[l, uplo, n, zero, p(4), lda, p(6), incx, beta, dy, incy],
            );
        }
        BlasRoutine::Trmv | BlasRoutine::Trsv => {
            let (l, uplo, t, diag, n, lda, incx) = (v[0], v[1], v[2], v[3], v[4], v[6], v[8]);
            let Some(dx) = d(7) else { return };
            let solve = a.routine == BlasRoutine::Trsv;
            if solve {
                e.call(
                    a.routine,
                    &[l, uplo, e.flip(t), diag, n, p(5), lda, dx, incx],
                );
            }
            if let Some(da) = d(5) {
                // trmv: dT += dx x_in^T (op N) or x_in dx^T; trsv: -dx X^T or -X dx^T.
                let w = e.scratch(n, n);
                let no = e.is_no(t);
                let x = p(7);
                let s = if solve { e.float(-1.0) } else { one };
                e.ger([
                    l,
                    n,
                    n,
                    s,
                    e.sel(no, dx, x),
                    incx,
                    e.sel(no, x, dx),
                    incx,
                    w,
                    n,
                ]);
                tri_move(b, p_, l, uplo, e.tri_mode(diag), n, w, n, da, lda);
                e.release(w);
            }
            if !solve {
                e.call(
                    a.routine,
                    &[l, uplo, e.flip(t), diag, n, p(5), lda, dx, incx],
                );
            }
        }
        BlasRoutine::Symm => {
            let (l, side, uplo, m, n, alpha, lda, ldb, beta, ldc) =
                (v[0], v[1], v[2], v[3], v[4], v[5], v[7], v[9], v[10], v[12]);
            let Some(dc) = d(11) else { return };
            if let Some(db) = d(8) {
                e.call(
                    BlasRoutine::Symm,
                    &[l, side, uplo, m, n, alpha, p(6), lda, dc, ldc, one, db, ldb],
                );
            }
            if let Some(da) = d(6) {
                // left: a dC B^T (m x m); right: a B^T dC (n x n).
                let left = e.is_left(side);
                let ka = e.sel(left, m, n);
                let w = e.scratch(ka, ka);
                let bm = p(8);
                e.gemm([
                    l,
                    e.sel(left, nt, tt),
                    e.sel(left, tt, nt),
                    ka,
                    ka,
                    e.sel(left, n, m),
                    alpha,
                    e.sel(left, dc, bm),
                    e.sel(left, ldc, ldb),
                    e.sel(left, bm, dc),
                    e.sel(left, ldb, ldc),
                    zero,
                    w,
                    ka,
                ]);
                tri_move(b, p_, l, uplo, b.i32(Move::Fold as i64), ka, w, ka, da, lda);
                e.release(w);
            }
            e.scale_matrix(l, m, n, beta, dc, ldc);
        }
        BlasRoutine::Syrk => {
            let (l, uplo, t, n, k, alpha, lda, beta, ldc) =
                (v[0], v[1], v[2], v[3], v[4], v[5], v[7], v[8], v[10]);
            let Some(dc) = d(9) else { return };
            if let Some(da) = d(6) {
                // D + D^T, D dC's triangle; dA += a (D + D^T) A (op N, n x k)
                // or a A (D + D^T) (op T, k x n).
                let w = e.scratch(n, n);
                tri_move(b, p_, l, uplo, b.i32(Move::Expand as i64), n, dc, ldc, w, n);
                let no = e.is_no(t);
                let am = p(6);
                e.gemm([
                    l,
                    nt,
                    nt,
                    e.sel(no, n, k),
                    e.sel(no, k, n),
                    n,
                    alpha,
                    e.sel(no, w, am),
                    e.sel(no, n, lda),
                    e.sel(no, am, w),
                    e.sel(no, lda, n),
                    one,
                    da,
                    lda,
                ]);
                e.release(w);
            }
            e.call(
                BlasRoutine::Syrk,
                &[l, uplo, t, n, k, zero, p(6), lda, beta, dc, ldc],
            );
        }
        BlasRoutine::Trmm | BlasRoutine::Trsm => {
            let (l, side, uplo, t, diag, m, n, alpha, lda, ldb) =
                (v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[9], v[11]);
            let Some(db) = d(10) else { return };
            let solve = a.routine == BlasRoutine::Trsm;
            if solve {
                e.call(
                    a.routine,
                    &[
                        l,
                        side,
                        uplo,
                        e.flip(t),
                        diag,
                        m,
                        n,
                        one,
                        p(8),
                        lda,
                        db,
                        ldb,
                    ],
                );
            }
            if let Some(da) = d(8) {
                // left: dB B^T (op N) or B dB^T; right: B^T dB (op N) or
                // dB^T B; times alpha (trmm, B = B_in) or -1 (trsm, B = X,
                // dB = op(T)^-T dB_out).
                let left = e.is_left(side);
                let no = e.is_no(t);
                let db_first = b.icmp(LLVMIntPredicate::LLVMIntEQ, left, no);
                let ka = e.sel(left, m, n);
                let w = e.scratch(ka, ka);
                let bm = p(10);
                let s = if solve { e.float(-1.0) } else { alpha };
                e.gemm([
                    l,
                    e.sel(left, nt, tt),
                    e.sel(left, tt, nt),
                    ka,
                    ka,
                    e.sel(left, n, m),
                    s,
                    e.sel(db_first, db, bm),
                    ldb,
                    e.sel(db_first, bm, db),
                    ldb,
                    zero,
                    w,
                    ka,
                ]);
                tri_move(b, p_, l, uplo, e.tri_mode(diag), ka, w, ka, da, lda);
                e.release(w);
            }
            if solve {
                e.scale_matrix(l, m, n, alpha, db, ldb);
            } else {
                e.call(
                    a.routine,
                    &[
                        l,
                        side,
                        uplo,
                        e.flip(t),
                        diag,
                        m,
                        n,
                        alpha,
                        p(8),
                        lda,
                        db,
                        ldb,
                    ],
                );
            }
        }
        _ => {}
    }
}

/// Forward mode of a structured call (before the call for `trmv` and
/// `trmm`: [`tangent_before`]).
pub(crate) fn tangent<'m>(e: &Emit<'_, 'm>, a: &Args<'m>, arr: &Arrays<'m>) {
    let v = &a.v;
    let d = |k: usize| arr.shadow[k];
    let b = e.b;
    let one = e.float(1.0);
    let zero = e.float(0.0);
    let nt = b.i32(CBLAS_NO_TRANS);
    let p_ = e.prec;
    match a.routine {
        BlasRoutine::Symv => {
            let (l, uplo, n, alpha, lda, incx, beta, incy) =
                (v[0], v[1], v[2], v[3], v[5], v[7], v[8], v[10]);
            let Some(dy) = d(9) else { return };
            let mut beta_now = beta;
            if let Some(dx) = d(6) {
                e.call(
                    BlasRoutine::Symv,
                    &[l, uplo, n, alpha, v[4], lda, dx, incx, beta_now, dy, incy],
                );
                beta_now = one;
            }
            if let Some(da) = d(4) {
                e.call(
                    BlasRoutine::Symv,
                    &[l, uplo, n, alpha, da, lda, v[6], incx, beta_now, dy, incy],
                );
                beta_now = one;
            }
            if d(6).is_none() && d(4).is_none() {
                e.call(
                    BlasRoutine::Symv,
                    &[l, uplo, n, zero, v[4], lda, v[6], incx, beta_now, dy, incy],
                );
            }
        }
        BlasRoutine::Trmv | BlasRoutine::Trsv => {
            let (l, uplo, t, diag, n, lda, incx) = (v[0], v[1], v[2], v[3], v[4], v[6], v[8]);
            let Some(dx) = d(7) else { return };
            let solve = a.routine == BlasRoutine::Trsv;
            if !solve {
                e.call(a.routine, &[l, uplo, t, diag, n, v[5], lda, dx, incx]);
            }
            if let Some(da) = d(5) {
                // trmv (before the call): dx += op(tri(dA)) x_in;
                // trsv: dx -= op(tri(dA)) X.
                let w = e.scratch(n, n);
                tri_move(b, p_, l, uplo, e.tri_mode(diag), n, da, lda, w, n);
                let s = if solve { e.float(-1.0) } else { one };
                e.gemv([l, t, n, n, s, w, n, v[7], incx, one, dx, incx]);
                e.release(w);
            }
            if solve {
                e.call(a.routine, &[l, uplo, t, diag, n, v[5], lda, dx, incx]);
            }
        }
        BlasRoutine::Symm => {
            let (l, side, uplo, m, n, alpha, lda, ldb, beta, ldc) =
                (v[0], v[1], v[2], v[3], v[4], v[5], v[7], v[9], v[10], v[12]);
            let Some(dc) = d(11) else { return };
            let mut beta_now = beta;
            if let Some(db) = d(8) {
                e.call(
                    BlasRoutine::Symm,
                    &[
                        l, side, uplo, m, n, alpha, v[6], lda, db, ldb, beta_now, dc, ldc,
                    ],
                );
                beta_now = one;
            }
            if let Some(da) = d(6) {
                e.call(
                    BlasRoutine::Symm,
                    &[
                        l, side, uplo, m, n, alpha, da, lda, v[8], ldb, beta_now, dc, ldc,
                    ],
                );
                beta_now = one;
            }
            if d(8).is_none() && d(6).is_none() {
                e.scale_matrix(l, m, n, beta_now, dc, ldc);
            }
        }
        BlasRoutine::Syrk => {
            let (l, uplo, t, n, k, alpha, lda, beta, ldc) =
                (v[0], v[1], v[2], v[3], v[4], v[5], v[7], v[8], v[10]);
            let Some(dc) = d(9) else { return };
            match d(6) {
                Some(da) => e.call(
                    BlasRoutine::Syr2k,
                    &[l, uplo, t, n, k, alpha, da, lda, v[6], lda, beta, dc, ldc],
                ),
                None => e.call(
                    BlasRoutine::Syrk,
                    &[l, uplo, t, n, k, zero, v[6], lda, beta, dc, ldc],
                ),
            };
        }
        BlasRoutine::Trmm | BlasRoutine::Trsm => {
            let (l, side, uplo, t, diag, m, n, alpha, lda, ldb) =
                (v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[9], v[11]);
            let Some(db) = d(10) else { return };
            let solve = a.routine == BlasRoutine::Trsm;
            let left = e.is_left(side);
            let ka = e.sel(left, m, n);
            if !solve {
                e.call(
                    a.routine,
                    &[l, side, uplo, t, diag, m, n, alpha, v[8], lda, db, ldb],
                );
            }
            match d(8) {
                Some(da) => {
                    // trmm (before the call): dB += a op(W) B_in (left) or
                    // a B_in op(W); trsm: dB = a dB - op(W) X (or X op(W)).
                    let w = e.scratch(ka, ka);
                    tri_move(b, p_, l, uplo, e.tri_mode(diag), ka, da, lda, w, ka);
                    let (s, beta) = if solve {
                        (e.float(-1.0), alpha)
                    } else {
                        (alpha, one)
                    };
                    let x = v[10];
                    e.gemm([
                        l,
                        e.sel(left, t, nt),
                        e.sel(left, nt, t),
                        m,
                        n,
                        ka,
                        s,
                        e.sel(left, w, x),
                        e.sel(left, ka, ldb),
                        e.sel(left, x, w),
                        e.sel(left, ldb, ka),
                        beta,
                        db,
                        ldb,
                    ]);
                    e.release(w);
                }
                None if solve => e.scale_matrix(l, m, n, alpha, db, ldb),
                None => {}
            }
            if solve {
                e.call(
                    a.routine,
                    &[l, side, uplo, t, diag, m, n, one, v[8], lda, db, ldb],
                );
            }
        }
        _ => {}
    }
}
