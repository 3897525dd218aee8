//! LAPACK's LU routines (`?getrf`, `?getrs`, `?gesv`), differentiated
//! with CBLAS `trmm`/`trsm`/`gemm` calls on n x n scratch matrices in the
//! call's layout, the triangles moved by `tri_move`/`tri_scale`, and the
//! row interchanges applied by an element loop emitted into the module
//! (`__enz_blas_?laswp`). `getrf`'s rule is for a square `A`.
//!
//! With `A = P L U` (`L` unit lower, `U` upper, packed over `A`; `P` the
//! interchanges `ipiv[0]`, ..., `ipiv[n-1]` in turn):
//!
//! | primal | reverse sweep | forward mode |
//! |---|---|---|
//! | `getrf` | `dA = P L^-T (tril0(L^T dL) + triu(dU U^T)) U^-T` | `F = L^-1 P^T dA U^-1`, `dL = L tril0(F)`, `dU = triu(F) U` |
//! | `X = op(A)^-1 B` (`getrs`) | `dB = op(A)^-T dX`; `dA = -dB X^T` (`-X dB^T` transposed), `dL += tril0(P^T dA U^T)`, `dU += triu(L^T P^T dA)` | `dX = op(A)^-1 (dB - op(dA) X)`, `dA = P (dL U + L dU)` |
//!
//! `gesv` is `getrf` then `getrs` without a transpose: its reverse sweep
//! is `getrs`'s then `getrf`'s, its tangent `getrf`'s then `getrs`'s.

use super::tri::{tri_move, Move};
use super::{float_ty, Args, Arrays, Emit};
use crate::ir::{add_internal_function, named_function, Builder, Function, LLVMIntPredicate};
use crate::ir::{Ty, Value};
use crate::names::{
    BlasPrecision, BlasRoutine, BLAS_HELPER_PREFIX, CBLAS_COL_MAJOR, CBLAS_LEFT, CBLAS_LOWER,
    CBLAS_NON_UNIT, CBLAS_NO_TRANS, CBLAS_RIGHT, CBLAS_TRANS, CBLAS_UNIT, CBLAS_UPPER,
};

/// One factored matrix: `A`'s factors (`lu`, ld `lda`) and pivots, in
/// `layout`, `n x n`.
struct Lu<'m> {
    layout: Value<'m>,
    n: Value<'m>,
    lu: Value<'m>,
    lda: Value<'m>,
    ipiv: Value<'m>,
}

/// A solve's right-hand sides: `X` (the primal's solution), `nrhs`, `ldb`
/// and the transpose code.
struct Rhs<'m> {
    trans: Value<'m>,
    nrhs: Value<'m>,
    x: Value<'m>,
    ldb: Value<'m>,
}

impl<'b, 'm> Emit<'b, 'm> {
    /// `trmm` (`mul`) or `trsm` with `L` (unit lower) or `U` (upper) of
    /// `f`, alpha 1, on `m` (`rows x cols`, ld `ldm`).
    #[allow(clippy::too_many_arguments)]
    fn lu_tri(
        &self,
        mul: bool,
        f: &Lu<'m>,
        side: i64,
        lower: Value<'m>,
        trans: Value<'m>,
        rows: Value<'m>,
        cols: Value<'m>,
        m: Value<'m>,
        ldm: Value<'m>,
    ) {
        let b = self.b;
        let r = if mul {
            BlasRoutine::Trmm
        } else {
            BlasRoutine::Trsm
        };
        let uplo = b.select(lower, b.i32(CBLAS_LOWER), b.i32(CBLAS_UPPER));
        let diag = b.select(lower, b.i32(CBLAS_UNIT), b.i32(CBLAS_NON_UNIT));
        let args = [
            f.layout,
            b.i32(side),
            uplo,
            trans,
            diag,
            rows,
            cols,
            self.float(1.0),
            f.lu,
            f.lda,
            m,
            ldm,
        ];
        self.call(r, &args);
    }

    fn yes(&self, x: bool) -> Value<'m> {
        self.b.const_int(Ty::int(self.b.ctx(), 1), x as i64)
    }

    /// `dst += src` over `n x n` matrices.
    fn add_full(&self, f: &Lu<'m>, src: Value<'m>, lds: Value<'m>, dst: Value<'m>, ldd: Value<'m>) {
        let b = self.b;
        for (uplo, mode) in [(CBLAS_LOWER, Move::Triangle), (CBLAS_UPPER, Move::Strict)] {
            let (uplo, mode) = (b.i32(uplo), b.i32(mode as i64));
            tri_move(b, self.prec, f.layout, uplo, mode, f.n, src, lds, dst, ldd);
        }
    }

    /// Applies the interchanges to the rows of `m` (`n x cols`): in order
    /// (`P^T m`) or backwards (`P m`); `count` of them.
    #[allow(clippy::too_many_arguments)]
    fn laswp(
        &self,
        f: &Lu<'m>,
        cols: Value<'m>,
        m: Value<'m>,
        ldm: Value<'m>,
        count: Value<'m>,
        backwards: bool,
    ) {
        let b = self.b;
        let h = laswp_helper(b, self.prec);
        let back = b.i32(backwards as i64);
        b.call(
            laswp_ty(b),
            h.as_value(),
            &[f.layout, cols, m, ldm, f.ipiv, count, back],
        );
    }

    /// `Y = op(A)^-1 Y` (`op` by transpose code `t`; `Y` `n x nrhs`).
    fn lu_solve(&self, f: &Lu<'m>, t: Value<'m>, nrhs: Value<'m>, y: Value<'m>, ldy: Value<'m>) {
        let b = self.b;
        let no = self.is_no(t);
        // A^-1 = U^-1 L^-1 P^T; A^-T = P L^-T U^-T.
        let none = b.i32(0);
        self.laswp(f, nrhs, y, ldy, b.select(no, f.n, none), false);
        for first in [true, false] {
            // L first without a transpose, U first with one.
            let lower = if first { no } else { b.xor(no, self.yes(true)) };
            self.lu_tri(false, f, CBLAS_LEFT, lower, t, f.n, nrhs, y, ldy);
        }
        self.laswp(f, nrhs, y, ldy, b.select(no, none, f.n), true);
    }

    /// `getrf`'s reverse sweep: `dA` (the factors' adjoint) becomes `A`'s.
    fn getrf_reverse(&self, f: &Lu<'m>, da: Value<'m>) {
        let b = self.b;
        let (n, tr) = (f.n, b.i32(CBLAS_TRANS));
        let (lo, up) = (b.i32(CBLAS_LOWER), b.i32(CBLAS_UPPER));
        let m1 = self.scratch(n, n);
        let strict = b.i32(Move::Strict as i64);
        let tri = b.i32(Move::Triangle as i64);
        tri_move(b, self.prec, f.layout, lo, strict, n, da, f.lda, m1, n);
        self.lu_tri(true, f, CBLAS_LEFT, self.yes(true), tr, n, n, m1, n);
        self.tri_scale(f.layout, n, m1, n, [0.0, 1.0, 0.0]);
        let m2 = self.scratch(n, n);
        tri_move(b, self.prec, f.layout, up, tri, n, da, f.lda, m2, n);
        self.lu_tri(true, f, CBLAS_RIGHT, self.yes(false), tr, n, n, m2, n);
        tri_move(b, self.prec, f.layout, up, tri, n, m2, n, m1, n);
        self.lu_tri(false, f, CBLAS_LEFT, self.yes(true), tr, n, n, m1, n);
        self.lu_tri(false, f, CBLAS_RIGHT, self.yes(false), tr, n, n, m1, n);
        self.laswp(f, n, m1, n, n, true);
        self.tri_scale(f.layout, n, da, f.lda, [0.0, 0.0, 0.0]);
        self.add_full(f, m1, n, da, f.lda);
        self.release(m1);
        self.release(m2);
    }

    /// `getrf`'s tangent: `dA` (`A`'s) becomes the factors'.
    fn getrf_tangent(&self, f: &Lu<'m>, da: Value<'m>) {
        let b = self.b;
        let (n, no) = (f.n, b.i32(CBLAS_NO_TRANS));
        let (lo, up) = (b.i32(CBLAS_LOWER), b.i32(CBLAS_UPPER));
        let m = self.scratch(n, n);
        self.add_full(f, da, f.lda, m, n);
        self.laswp(f, n, m, n, n, false);
        self.lu_tri(false, f, CBLAS_LEFT, self.yes(true), no, n, n, m, n);
        self.lu_tri(false, f, CBLAS_RIGHT, self.yes(false), no, n, n, m, n);
        let m2 = self.scratch(n, n);
        let tri = b.i32(Move::Triangle as i64);
        let strict = b.i32(Move::Strict as i64);
        tri_move(b, self.prec, f.layout, up, tri, n, m, n, m2, n);
        self.tri_scale(f.layout, n, m, n, [0.0, 1.0, 0.0]);
        self.lu_tri(true, f, CBLAS_LEFT, self.yes(true), no, n, n, m, n);
        self.lu_tri(true, f, CBLAS_RIGHT, self.yes(false), no, n, n, m2, n);
        self.tri_scale(f.layout, n, da, f.lda, [0.0, 0.0, 0.0]);
        tri_move(b, self.prec, f.layout, lo, strict, n, m, n, da, f.lda);
        tri_move(b, self.prec, f.layout, up, tri, n, m2, n, da, f.lda);
        self.release(m);
        self.release(m2);
    }

    /// `getrs`'s reverse sweep: `dB = op(A)^-T dX`, and the factors'
    /// adjoints into `da`.
    fn getrs_reverse(&self, f: &Lu<'m>, r: &Rhs<'m>, db: Value<'m>, da: Option<Value<'m>>) {
        let b = self.b;
        self.lu_solve(f, self.flip(r.trans), r.nrhs, db, r.ldb);
        let Some(da) = da else { return };
        let (n, no, tr) = (f.n, b.i32(CBLAS_NO_TRANS), b.i32(CBLAS_TRANS));
        let is_no = self.is_no(r.trans);
        // W = -dB X^T (or -X dB^T).
        let w = self.scratch(n, n);
        let (p, q) = (self.sel(is_no, db, r.x), self.sel(is_no, r.x, db));
        let (m1, zero) = (self.float(-1.0), self.float(0.0));
        self.gemm([
            f.layout, no, tr, n, n, r.nrhs, m1, p, r.ldb, q, r.ldb, zero, w, n,
        ]);
        self.laswp(f, n, w, n, n, false);
        let w2 = self.scratch(n, n);
        self.add_full(f, w, n, w2, n);
        let (lo, up) = (b.i32(CBLAS_LOWER), b.i32(CBLAS_UPPER));
        self.lu_tri(true, f, CBLAS_RIGHT, self.yes(false), tr, n, n, w, n);
        let strict = b.i32(Move::Strict as i64);
        tri_move(b, self.prec, f.layout, lo, strict, n, w, n, da, f.lda);
        self.lu_tri(true, f, CBLAS_LEFT, self.yes(true), tr, n, n, w2, n);
        let tri = b.i32(Move::Triangle as i64);
        tri_move(b, self.prec, f.layout, up, tri, n, w2, n, da, f.lda);
        self.release(w);
        self.release(w2);
    }

    /// `getrs`'s tangent (`da` the factors' tangent).
    fn getrs_tangent(&self, f: &Lu<'m>, r: &Rhs<'m>, db: Value<'m>, da: Option<Value<'m>>) {
        let b = self.b;
        let (n, no) = (f.n, b.i32(CBLAS_NO_TRANS));
        if let Some(da) = da {
            // W = P (dL U + L dU).
            let (lo, up) = (b.i32(CBLAS_LOWER), b.i32(CBLAS_UPPER));
            let w = self.scratch(n, n);
            let strict = b.i32(Move::Strict as i64);
            tri_move(b, self.prec, f.layout, lo, strict, n, da, f.lda, w, n);
            self.lu_tri(true, f, CBLAS_RIGHT, self.yes(false), no, n, n, w, n);
            let w2 = self.scratch(n, n);
            let tri = b.i32(Move::Triangle as i64);
            tri_move(b, self.prec, f.layout, up, tri, n, da, f.lda, w2, n);
            self.lu_tri(true, f, CBLAS_LEFT, self.yes(true), no, n, n, w2, n);
            self.add_full(f, w2, n, w, n);
            self.laswp(f, n, w, n, n, true);
            let (m1, one) = (self.float(-1.0), self.float(1.0));
            self.gemm([
                f.layout, r.trans, no, n, r.nrhs, n, m1, w, n, r.x, r.ldb, one, db, r.ldb,
            ]);
            self.release(w);
            self.release(w2);
        }
        self.lu_solve(f, r.trans, r.nrhs, db, r.ldb);
    }
}

/// LAPACKE's transpose character as its CBLAS code (a Fortran call's was
/// read already).
fn trans_code<'m>(e: &Emit<'_, 'm>, t: Value<'m>) -> Value<'m> {
    let b = e.b;
    if t.ty().int_width() != Some(8) {
        return t;
    }
    let i8t = Ty::int(b.ctx(), 8);
    let is = |ch: u8| b.icmp(LLVMIntPredicate::LLVMIntEQ, t, b.const_int(i8t, ch as i64));
    let no = b.or(is(b'N'), is(b'n'));
    b.select(no, b.i32(CBLAS_NO_TRANS), b.i32(CBLAS_TRANS))
}

/// The factors, the right-hand sides (`getrs`, `gesv`), and which
/// arguments are `A` and `B`.
fn view<'m>(
    e: &Emit<'_, 'm>,
    a: &Args<'m>,
    arr: &Arrays<'m>,
) -> (Lu<'m>, Option<Rhs<'m>>, usize, usize) {
    let v = &a.v;
    let p = |k: usize| arr.p(k, a);
    match a.routine {
        BlasRoutine::Getrs => {
            let f = Lu {
                layout: v[0],
                n: v[2],
                lu: p(4),
                lda: v[5],
                ipiv: p(6),
            };
            let r = Rhs {
                trans: trans_code(e, v[1]),
                nrhs: v[3],
                x: p(7),
                ldb: v[8],
            };
            (f, Some(r), 4, 7)
        }
        BlasRoutine::Gesv => {
            let f = Lu {
                layout: v[0],
                n: v[1],
                lu: p(3),
                lda: v[4],
                ipiv: p(5),
            };
            let r = Rhs {
                trans: e.b.i32(CBLAS_NO_TRANS),
                nrhs: v[2],
                x: p(6),
                ldb: v[7],
            };
            (f, Some(r), 3, 6)
        }
        _ => {
            let f = Lu {
                layout: v[0],
                n: v[2],
                lu: p(3),
                lda: v[4],
                ipiv: p(5),
            };
            (f, None, 3, 0)
        }
    }
}

/// The reverse sweep of a `getrf`, `getrs` or `gesv` call.
pub(super) fn reverse<'m>(e: &Emit<'_, 'm>, a: &Args<'m>, arr: &Arrays<'m>) {
    let (f, rhs, ka, kb) = view(e, a, arr);
    let da = arr.shadow[ka];
    if let Some(r) = &rhs {
        let Some(db) = arr.shadow[kb] else { return };
        e.getrs_reverse(&f, r, db, da);
    }
    if a.routine != BlasRoutine::Getrs {
        if let Some(da) = da {
            e.getrf_reverse(&f, da);
        }
    }
}

/// The tangent of a `getrf`, `getrs` or `gesv` call, after it.
pub(super) fn tangent<'m>(e: &Emit<'_, 'm>, a: &Args<'m>, arr: &Arrays<'m>) {
    let (f, rhs, ka, kb) = view(e, a, arr);
    let da = arr.shadow[ka];
    if a.routine != BlasRoutine::Getrs {
        if let Some(da) = da {
            e.getrf_tangent(&f, da);
        }
    }
    if let Some(r) = &rhs {
        let Some(db) = arr.shadow[kb] else { return };
        e.getrs_tangent(&f, r, db, da);
    }
}

fn laswp_ty<'m>(b: &Builder<'m>) -> Ty<'m> {
    let ctx = b.ctx();
    let (i32t, ptr) = (Ty::int(ctx, 32), Ty::ptr(ctx));
    Ty::function(
        Ty::void(ctx),
        &[i32t, i32t, ptr, i32t, ptr, i32t, i32t],
        false,
    )
}

/// `__enz_blas_?laswp(layout, cols, m, ld, ipiv, count, backwards)`: for
/// `k` in `0..count` (or backwards), swaps rows `k` and `ipiv[k] - 1` of
/// `m` over `cols` columns.
fn laswp_helper<'m>(b: &Builder<'m>, prec: BlasPrecision) -> Function<'m> {
    let p = match prec {
        BlasPrecision::Single => 's',
        BlasPrecision::Double => 'd',
    };
    let name = format!("{BLAS_HELPER_PREFIX}{p}laswp");
    let module = b.insert_block().parent().global_parent();
    if let Some(f) = named_function(module, &name) {
        return f;
    }
    let ctx = b.ctx();
    let t = float_ty(b, prec);
    let (i32t, i64t) = (Ty::int(ctx, 32), Ty::int(ctx, 64));
    let f = add_internal_function(module, &name, laswp_ty(b));
    let ps = f.params();
    let (layout, cols, m, ld, ipiv, count, back) =
        (ps[0], ps[1], ps[2], ps[3], ps[4], ps[5], ps[6]);
    let h = Builder::new(ctx);
    let entry = f.append_block("entry");
    let outer = f.append_block("outer");
    let row = f.append_block("row");
    let inner = f.append_block("inner");
    let body = f.append_block("body");
    let next_t = f.append_block("next_t");
    let done = f.append_block("done");
    h.position_at_end(entry);
    let cnt = h.sext(count, i64t);
    let ncols = h.sext(cols, i64t);
    let ld = h.sext(ld, i64t);
    let col = h.icmp(LLVMIntPredicate::LLVMIntEQ, layout, h.i32(CBLAS_COL_MAJOR));
    let backwards = h.icmp(LLVMIntPredicate::LLVMIntNE, back, h.i32(0));
    let zero64 = h.const_int(i64t, 0);
    let one64 = h.const_int(i64t, 1);
    h.br(outer);
    h.position_at_end(outer);
    let tt = h.phi(i64t, "t");
    let more = h.icmp(LLVMIntPredicate::LLVMIntSLT, tt.into(), cnt);
    h.cond_br(more, row, done);
    h.position_at_end(row);
    let tv: Value = tt.into();
    let k = h.select(backwards, h.sub(h.sub(cnt, one64), tv), tv);
    let piv = h.load(i32t, h.gep(i32t, ipiv, &[k]));
    let pk = h.sub(h.sext(piv, i64t), one64);
    h.br(inner);
    h.position_at_end(inner);
    let c = h.phi(i64t, "c");
    let more_c = h.icmp(LLVMIntPredicate::LLVMIntSLT, c.into(), ncols);
    h.cond_br(more_c, body, next_t);
    h.position_at_end(body);
    let cv: Value = c.into();
    let at = |r: Value<'m>| h.select(col, h.add(r, h.mul(cv, ld)), h.add(h.mul(r, ld), cv));
    let (pa, pb) = (h.gep(t, m, &[at(k)]), h.gep(t, m, &[at(pk)]));
    let (xa, xb) = (h.load(t, pa), h.load(t, pb));
    h.store(xb, pa);
    h.store(xa, pb);
    let c_next = h.add(cv, one64);
    h.br(inner);
    c.add_incoming(zero64, row);
    c.add_incoming(c_next, body);
    h.position_at_end(next_t);
    let t_next = h.add(tv, one64);
    h.br(outer);
    tt.add_incoming(zero64, entry);
    tt.add_incoming(t_next, next_t);
    h.position_at_end(done);
    h.ret(None);
    f
}
