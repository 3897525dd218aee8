//! LAPACK's Cholesky routines, differentiated with CBLAS calls on
//! scratch matrices and one element loop per precision emitted into the
//! module (`__enz_blas_?tri_scale`).
//!
//! `potrf` overwrites a triangle of `A` with the factor. Read as a lower
//! triangular `L` (`A = L L^T`) in the layout that makes the stored
//! triangle lower (a row-major lower or column-major upper triangle is a
//! column-major lower or row-major lower one transposed: the same
//! memory), with `Phi(X)` the lower triangle of `X`, its diagonal halved:
//!
//! | primal | reverse sweep | forward mode |
//! |---|---|---|
//! | `L = chol(A)` (`potrf`) | `S = L^-T Phi(L^T dL) L^-1`; the stored triangle's adjoint is `S + S^T` off the diagonal, `S` on it (`trmm`, `trsm`) | `dL = L Phi(L^-1 dA L^-T)` (`trsm`, `trmm`; `dA` symmetric from its triangle) |
//! | `X = A^-1 B` (`potrs`) | `dB = A^-1 dX` (two `trsm`); `W = -(dB X^T + X dB^T)` (`gemm`), `dL += tril(W L)` (`trmm`) | `dX = A^-1 (dB - dA X)`, `dA X = P X + P^T X`, `P = dL L^T` |
//!
//! LAPACKE passes the triangle as a character (`'L'`, `'U'`) by value; a
//! Fortran call's was read into its CBLAS code by `read`. The layout codes
//! are CBLAS's.

use super::tri::{for_each_entry, tri_move, Move};
use super::{float_ty, Args, Arrays, Emit};
use crate::ir::{add_internal_function, named_function, Builder, Function, LLVMIntPredicate};
use crate::ir::{LLVMRealPredicate, Ty, Value};
use crate::names::{
    BlasPrecision, BlasRoutine, BLAS_HELPER_PREFIX, CBLAS_COL_MAJOR, CBLAS_LEFT, CBLAS_LOWER,
    CBLAS_NON_UNIT, CBLAS_NO_TRANS, CBLAS_RIGHT, CBLAS_ROW_MAJOR, CBLAS_TRANS, CBLAS_UPPER,
};

/// A call's triangle and the layouts its matrices are read in.
struct Shape<'m> {
    /// The call's layout (of `B`).
    layout: Value<'m>,
    /// The call's triangle (CBLAS code).
    uplo: Value<'m>,
    /// The layout in which the stored triangle is a lower one.
    lay: Value<'m>,
}

impl<'b, 'm> Emit<'b, 'm> {
    fn shape(&self, layout: Value<'m>, uplo: Value<'m>) -> Shape<'m> {
        let b = self.b;
        // LAPACKE's character, as its CBLAS code.
        let uplo = if uplo.ty().int_width() == Some(8) {
            let ctx = b.ctx();
            let is = |ch: u8| {
                b.icmp(
                    LLVMIntPredicate::LLVMIntEQ,
                    uplo,
                    b.const_int(Ty::int(ctx, 8), ch as i64),
                )
            };
            let up = b.or(is(b'U'), is(b'u'));
            b.select(up, b.i32(CBLAS_UPPER), b.i32(CBLAS_LOWER))
        } else {
            uplo
        };
        let col = b.icmp(LLVMIntPredicate::LLVMIntEQ, layout, b.i32(CBLAS_COL_MAJOR));
        let lower = b.icmp(LLVMIntPredicate::LLVMIntEQ, uplo, b.i32(CBLAS_LOWER));
        let same = b.icmp(LLVMIntPredicate::LLVMIntEQ, col, lower);
        let lay = b.select(same, b.i32(CBLAS_COL_MAJOR), b.i32(CBLAS_ROW_MAJOR));
        Shape { layout, uplo, lay }
    }

    /// `trmm` (`tri` true) or `trsm` on `B` (`m x n`, ld `ldb`) with
    /// lower triangular `L` (ld `lda`) in layout `lay`, alpha 1.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn tri(
        &self,
        mul: bool,
        lay: Value<'m>,
        side: i64,
        uplo: Value<'m>,
        trans: Value<'m>,
        m: Value<'m>,
        n: Value<'m>,
        l: Value<'m>,
        lda: Value<'m>,
        bm: Value<'m>,
        ldb: Value<'m>,
    ) {
        let b = self.b;
        let r = if mul {
            BlasRoutine::Trmm
        } else {
            BlasRoutine::Trsm
        };
        let args = [
            lay,
            b.i32(side),
            uplo,
            trans,
            b.i32(CBLAS_NON_UNIT),
            m,
            n,
            self.float(1.0),
            l,
            lda,
            bm,
            ldb,
        ];
        self.call(r, &args);
    }

    /// `x[i,j] *= diag, lower, upper` (where `i = j`, `i > j`, `i < j`)
    /// over the `n x n` matrix `x` in layout `lay`.
    pub(super) fn tri_scale(
        &self,
        lay: Value<'m>,
        n: Value<'m>,
        x: Value<'m>,
        ld: Value<'m>,
        f: [f64; 3],
    ) {
        let b = self.b;
        let h = scale_helper(b, self.prec);
        let [d, l, u] = f.map(|c| self.float(c));
        b.call(
            scale_ty(b, self.prec),
            h.as_value(),
            &[lay, n, x, ld, d, l, u],
        );
    }

    /// `Y = A^-1 Y` for `Y` (`n x nrhs`, ld `ldy`, the call's layout),
    /// `A` given by its factor `f` (ld `lda`, the call's triangle).
    #[allow(clippy::too_many_arguments)]
    fn solve(
        &self,
        s: &Shape<'m>,
        n: Value<'m>,
        nrhs: Value<'m>,
        f: Value<'m>,
        lda: Value<'m>,
        y: Value<'m>,
        ldy: Value<'m>,
    ) {
        let b = self.b;
        // A = L L^T: L^-1 first; A = U^T U: U^-T first.
        let lower = b.icmp(LLVMIntPredicate::LLVMIntEQ, s.uplo, b.i32(CBLAS_LOWER));
        let first = b.select(lower, b.i32(CBLAS_NO_TRANS), b.i32(CBLAS_TRANS));
        let second = self.flip(first);
        for t in [first, second] {
            self.tri(
                false, s.layout, CBLAS_LEFT, s.uplo, t, n, nrhs, f, lda, y, ldy,
            );
        }
    }
}

/// The reverse sweep of a `potrf` or `potrs` call.
pub(super) fn reverse<'m>(e: &Emit<'_, 'm>, a: &Args<'m>, arr: &Arrays<'m>) {
    let v = &a.v;
    let b = e.b;
    let lower = b.i32(CBLAS_LOWER);
    let (no, tr) = (b.i32(CBLAS_NO_TRANS), b.i32(CBLAS_TRANS));
    match a.routine {
        BlasRoutine::Potrf => {
            let Some(da) = arr.shadow[3] else { return };
            let (n, lda, l) = (v[2], v[4], arr.p(3, a));
            let s = e.shape(v[0], v[1]);
            let m = e.scratch(n, n);
            // M = tril(dL); the input's adjoint replaces dL.
            let tri = b.i32(Move::Triangle as i64);
            tri_move(b, e.prec, s.lay, lower, tri, n, da, lda, m, n);
            e.tri_scale(s.lay, n, da, lda, [0.0, 0.0, 1.0]);
            // S = L^-T Phi(L^T M) L^-1.
            e.tri(true, s.lay, CBLAS_LEFT, lower, tr, n, n, l, lda, m, n);
            e.tri_scale(s.lay, n, m, n, [0.5, 1.0, 0.0]);
            e.tri(false, s.lay, CBLAS_LEFT, lower, tr, n, n, l, lda, m, n);
            e.tri(false, s.lay, CBLAS_RIGHT, lower, no, n, n, l, lda, m, n);
            let fold = b.i32(Move::Fold as i64);
            tri_move(b, e.prec, s.lay, lower, fold, n, m, n, da, lda);
            e.release(m);
        }
        BlasRoutine::Potrs => {
            let Some(db) = arr.shadow[6] else { return };
            let (n, nrhs, lda, ldb) = (v[2], v[3], v[5], v[7]);
            let (l, x) = (arr.p(4, a), arr.p(6, a));
            let s = e.shape(v[0], v[1]);
            e.solve(&s, n, nrhs, l, lda, db, ldb);
            let Some(da) = arr.shadow[4] else { return };
            // W = -(dB X^T + X dB^T) (symmetric: either layout), dL +=
            // tril(W L).
            let w = e.scratch(n, n);
            let (m1, zero, one) = (e.float(-1.0), e.float(0.0), e.float(1.0));
            for (p, q, beta) in [(db, x, zero), (x, db, one)] {
                e.gemm([s.layout, no, tr, n, n, nrhs, m1, p, ldb, q, ldb, beta, w, n]);
            }
            e.tri(true, s.lay, CBLAS_RIGHT, lower, no, n, n, l, lda, w, n);
            let tri = b.i32(Move::Triangle as i64);
            tri_move(b, e.prec, s.lay, lower, tri, n, w, n, da, lda);
            e.release(w);
        }
        _ => {}
    }
}

/// The tangent of a `potrf` or `potrs` call, after it.
pub(super) fn tangent<'m>(e: &Emit<'_, 'm>, a: &Args<'m>, arr: &Arrays<'m>) {
    let v = &a.v;
    let b = e.b;
    let lower = b.i32(CBLAS_LOWER);
    let (no, tr) = (b.i32(CBLAS_NO_TRANS), b.i32(CBLAS_TRANS));
    match a.routine {
        BlasRoutine::Potrf => {
            let Some(da) = arr.shadow[3] else { return };
            let (n, lda, l) = (v[2], v[4], v[3]);
            let s = e.shape(v[0], v[1]);
            // M = dA, symmetric, from its triangle.
            let m = e.scratch(n, n);
            let expand = b.i32(Move::Expand as i64);
            tri_move(b, e.prec, s.lay, lower, expand, n, da, lda, m, n);
            e.tri_scale(s.lay, n, m, n, [0.5, 1.0, 1.0]);
            // dL = L Phi(L^-1 M L^-T).
            e.tri(false, s.lay, CBLAS_LEFT, lower, no, n, n, l, lda, m, n);
            e.tri(false, s.lay, CBLAS_RIGHT, lower, tr, n, n, l, lda, m, n);
            e.tri_scale(s.lay, n, m, n, [0.5, 1.0, 0.0]);
            e.tri(true, s.lay, CBLAS_LEFT, lower, no, n, n, l, lda, m, n);
            e.tri_scale(s.lay, n, da, lda, [0.0, 0.0, 1.0]);
            let tri = b.i32(Move::Triangle as i64);
            tri_move(b, e.prec, s.lay, lower, tri, n, m, n, da, lda);
            e.release(m);
        }
        BlasRoutine::Potrs => {
            let Some(db) = arr.shadow[6] else { return };
            let (n, nrhs, lda, ldb) = (v[2], v[3], v[5], v[7]);
            let (l, x) = (v[4], v[6]);
            let s = e.shape(v[0], v[1]);
            if let Some(da) = arr.shadow[4] {
                // dB -= P X + P^T X, P = dL L^T (the sum is the same in
                // either layout of P).
                let p = e.scratch(n, n);
                let tri = b.i32(Move::Triangle as i64);
                tri_move(b, e.prec, s.lay, lower, tri, n, da, lda, p, n);
                e.tri(true, s.lay, CBLAS_RIGHT, lower, tr, n, n, l, lda, p, n);
                let (m1, one) = (e.float(-1.0), e.float(1.0));
                for t in [no, tr] {
                    e.gemm([s.layout, t, no, n, nrhs, n, m1, p, n, x, ldb, one, db, ldb]);
                }
                e.release(p);
            }
            e.solve(&s, n, nrhs, l, lda, db, ldb);
        }
        _ => {}
    }
}

fn scale_ty<'m>(b: &Builder<'m>, prec: BlasPrecision) -> Ty<'m> {
    let ctx = b.ctx();
    let (i32t, ptr, t) = (Ty::int(ctx, 32), Ty::ptr(ctx), float_ty(b, prec));
    Ty::function(Ty::void(ctx), &[i32t, i32t, ptr, i32t, t, t, t], false)
}

/// `__enz_blas_?tri_scale(layout, n, x, ld, diag, lower, upper)`.
fn scale_helper<'m>(b: &Builder<'m>, prec: BlasPrecision) -> Function<'m> {
    let p = match prec {
        BlasPrecision::Single => 's',
        BlasPrecision::Double => 'd',
    };
    let name = format!("{BLAS_HELPER_PREFIX}{p}tri_scale");
    let module = b.insert_block().parent().global_parent();
    if let Some(f) = named_function(module, &name) {
        return f;
    }
    let ctx = b.ctx();
    let t = float_ty(b, prec);
    let i64t = Ty::int(ctx, 64);
    let f = add_internal_function(module, &name, scale_ty(b, prec));
    let ps = f.params();
    let (layout, n, x, ld, fd, fl, fu) = (ps[0], ps[1], ps[2], ps[3], ps[4], ps[5], ps[6]);
    let h = Builder::new(ctx);
    h.position_at_end(f.append_block("entry"));
    let n64 = h.sext(n, i64t);
    let ld = h.sext(ld, i64t);
    let col = h.icmp(LLVMIntPredicate::LLVMIntEQ, layout, h.i32(CBLAS_COL_MAJOR));
    for_each_entry(&h, f, n64, |iv, jv| {
        let at = h.select(col, h.add(iv, h.mul(jv, ld)), h.add(h.mul(iv, ld), jv));
        let c = h.select(
            h.icmp(LLVMIntPredicate::LLVMIntEQ, iv, jv),
            fd,
            h.select(h.icmp(LLVMIntPredicate::LLVMIntSGT, iv, jv), fl, fu),
        );
        // Entries kept as they are are not stored (the other triangle may be
        // another array's memory); a zero factor stores zero.
        let store = f.append_block("store");
        let step_i = f.append_block("step_i");
        let keep = h.fcmp(LLVMRealPredicate::LLVMRealOEQ, c, h.const_float(t, 1.0));
        h.cond_br(keep, step_i, store);
        h.position_at_end(store);
        let px = h.gep(t, x, &[at]);
        let zero = h.fcmp(LLVMRealPredicate::LLVMRealOEQ, c, h.const_float(t, 0.0));
        let scaled = h.fmul(h.load(t, px), c);
        h.store(h.select(zero, h.const_float(t, 0.0), scaled), px);
        h.br(step_i);
        h.position_at_end(step_i);
    });
    h.ret(None);
    f
}
