//! Moving triangles between matrices, for the rules of symmetric and
//! triangular routines (`structured.rs`): the derivative with respect to
//! a triangle BLAS reads is a full product (a `ger` or a `gemm` into a
//! scratch matrix) folded into that triangle. One helper per precision,
//! emitted into the module (`__enz_blas_?tri_move`), loops over the
//! `n x n` entries (`in(i, j)`: `i <= j` for the upper triangle, `i >= j`
//! for the lower), adding to `dst`:
//!
//! - [`Move::Triangle`]: `src[i,j]` where `in(i, j)`;
//! - [`Move::Strict`]: the same off the diagonal (a unit diagonal);
//! - [`Move::Fold`]: `src[i,j] + src[j,i]` where `in(i, j)`, `i != j`, and
//!   `src[i,i]` on the diagonal (a symmetric matrix's triangle);
//! - [`Move::Expand`]: `D[i,j] + D[j,i]` everywhere, `D` the triangle of
//!   `src` (zero elsewhere).
//!
//! `[i,j]` is `i + j ld` column-major and `i ld + j` row-major.

use crate::ir::LLVMIntPredicate;
use crate::ir::{add_internal_function, named_function, Builder, Function, Ty, Value};
use crate::names::{BlasPrecision, BLAS_HELPER_PREFIX, CBLAS_COL_MAJOR, CBLAS_UPPER};

/// What [`tri_move`] adds.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Move {
    Triangle = 0,
    Strict = 1,
    Fold = 2,
    Expand = 3,
}

/// `dst += move(src)` over `n x n` matrices in `layout`, triangle `uplo`
/// (CBLAS codes); `mode` an `i32` ([`Move`] as a number, chosen at run
/// time where the diagonal's kind is).
#[allow(clippy::too_many_arguments)]
pub(crate) fn tri_move<'m>(
    b: &Builder<'m>,
    prec: BlasPrecision,
    layout: Value<'m>,
    uplo: Value<'m>,
    mode: Value<'m>,
    n: Value<'m>,
    src: Value<'m>,
    lds: Value<'m>,
    dst: Value<'m>,
    ldd: Value<'m>,
) {
    let f = helper(b, prec);
    b.call(
        fn_ty(b, prec),
        f.as_value(),
        &[layout, uplo, mode, n, src, lds, dst, ldd],
    );
}

fn fn_ty<'m>(b: &Builder<'m>, _prec: BlasPrecision) -> Ty<'m> {
    let ctx = b.ctx();
    let (i32t, ptr) = (Ty::int(ctx, 32), Ty::ptr(ctx));
    Ty::function(
        Ty::void(ctx),
        &[i32t, i32t, i32t, i32t, ptr, i32t, ptr, i32t],
        false,
    )
}

fn helper<'m>(b: &Builder<'m>, prec: BlasPrecision) -> Function<'m> {
    let p = match prec {
        BlasPrecision::Single => 's',
        BlasPrecision::Double => 'd',
    };
    let name = format!("{BLAS_HELPER_PREFIX}{p}tri_move");
    let module = b.insert_block().parent().global_parent();
    if let Some(f) = named_function(module, &name) {
        return f;
    }
    let ctx = b.ctx();
    let t = super::float_ty(b, prec);
    let i64t = Ty::int(ctx, 64);
    let f = add_internal_function(module, &name, fn_ty(b, prec));
    let ps = f.params();
    let (layout, uplo, mode, n, src, lds, dst, ldd) =
        (ps[0], ps[1], ps[2], ps[3], ps[4], ps[5], ps[6], ps[7]);
    let h = Builder::new(ctx);
    h.position_at_end(f.append_block("entry"));
    let n64 = h.sext(n, i64t);
    let (lds, ldd) = (h.sext(lds, i64t), h.sext(ldd, i64t));
    let col = h.icmp(LLVMIntPredicate::LLVMIntEQ, layout, h.i32(CBLAS_COL_MAJOR));
    let upper = h.icmp(LLVMIntPredicate::LLVMIntEQ, uplo, h.i32(CBLAS_UPPER));
    for_each_entry(&h, f, n64, |iv, jv| {
        let at = |r: Value<'m>, c: Value<'m>, ld: Value<'m>| {
            let cm = h.add(r, h.mul(c, ld));
            let rm = h.add(h.mul(r, ld), c);
            h.select(col, cm, rm)
        };
        let load = |p: Value<'m>, k: Value<'m>| h.load(t, h.gep(t, p, &[k]));
        let in_tri = |r: Value<'m>, c: Value<'m>| {
            let up = h.icmp(LLVMIntPredicate::LLVMIntSLE, r, c);
            let lo = h.icmp(LLVMIntPredicate::LLVMIntSGE, r, c);
            h.select(upper, up, lo)
        };
        let zero = h.const_float(t, 0.0);
        let diag = h.icmp(LLVMIntPredicate::LLVMIntEQ, iv, jv);
        let tri_ij = in_tri(iv, jv);
        let tri_ji = in_tri(jv, iv);
        let s_ij = load(src, at(iv, jv, lds));
        let s_ji = load(src, at(jv, iv, lds));
        let is = |m: Move| h.icmp(LLVMIntPredicate::LLVMIntEQ, mode, h.i32(m as i64));
        // Triangle / Strict / Fold: only where in(i, j).
        let tri_val = h.select(
            is(Move::Fold),
            h.select(diag, s_ij, h.fadd(s_ij, s_ji)),
            h.select(h.and(is(Move::Strict), diag), zero, s_ij),
        );
        let tri_val = h.select(tri_ij, tri_val, zero);
        let expand = h.fadd(h.select(tri_ij, s_ij, zero), h.select(tri_ji, s_ji, zero));
        let add = h.select(is(Move::Expand), expand, tri_val);
        // Skip the store where nothing is added (the other triangle of dst
        // may be another array's memory, or unwritable).
        let touches = h.or(is(Move::Expand), tri_ij);
        let store = f.append_block("store");
        let step_i = f.append_block("step_i");
        h.cond_br(touches, store, step_i);
        h.position_at_end(store);
        let pd = h.gep(t, dst, &[at(iv, jv, ldd)]);
        h.store(h.fadd(h.load(t, pd), add), pd);
        h.br(step_i);
        h.position_at_end(step_i);
    });
    h.ret(None);
    f
}

/// Emits `for j in 0..n { for i in 0..n { body(i, j) } }` into `f` from
/// where `h` is (`n`: an `i64`; `i`, `j` `i64`s), leaving `h` after the
/// loops: the entry-by-entry walk of the `n x n` helpers (here and
/// `lapack.rs`'s `?tri_scale`). `body` may add blocks; where it leaves
/// `h` the next `i` begins.
pub(super) fn for_each_entry<'m>(
    h: &Builder<'m>,
    f: Function<'m>,
    n: Value<'m>,
    body: impl FnOnce(Value<'m>, Value<'m>),
) {
    let i64t = n.ty();
    let (zero, one) = (h.const_int(i64t, 0), h.const_int(i64t, 1));
    let entry = h.insert_block();
    let outer = f.append_block("outer");
    let inner = f.append_block("inner");
    let each = f.append_block("body");
    let next_j = f.append_block("next_j");
    let done = f.append_block("done");
    h.br(outer);
    h.position_at_end(outer);
    let j = h.phi(i64t, "j");
    let more_j = h.icmp(LLVMIntPredicate::LLVMIntSLT, j.into(), n);
    h.cond_br(more_j, inner, done);
    h.position_at_end(inner);
    let i = h.phi(i64t, "i");
    let more_i = h.icmp(LLVMIntPredicate::LLVMIntSLT, i.into(), n);
    h.cond_br(more_i, each, next_j);
    h.position_at_end(each);
    let (iv, jv): (Value<'m>, Value<'m>) = (i.into(), j.into());
    body(iv, jv);
    let end = h.insert_block();
    let i_next = h.add(iv, one);
    h.br(inner);
    i.add_incoming(zero, outer);
    i.add_incoming(i_next, end);
    h.position_at_end(next_j);
    let j_next = h.add(jv, one);
    h.br(outer);
    j.add_incoming(zero, entry);
    j.add_incoming(j_next, next_j);
    h.position_at_end(done);
}
