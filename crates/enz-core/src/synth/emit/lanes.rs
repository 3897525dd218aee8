//! Lane-wise vector formulas of the rule table ([`Expr::Splat`],
//! [`Expr::ProdOthers`], [`Expr::FirstLaneEq`]), built from
//! `extractelement`/`insertelement` and scalar arithmetic; LLVM's
//! optimiser turns the lane loops back into vector code where it pays.
//!
//! [`Expr::Splat`]: crate::synth::rules::Expr::Splat
//! [`Expr::ProdOthers`]: crate::synth::rules::Expr::ProdOthers
//! [`Expr::FirstLaneEq`]: crate::synth::rules::Expr::FirstLaneEq

use crate::ir::{Builder, LLVMRealPredicate, Ty, TyKind, Value};

/// The scalar `v` in every lane of vector type `ty` (`v` itself if `ty`
/// is not a vector).
pub(super) fn splat<'m>(b: &Builder<'m>, v: Value<'m>, ty: Ty<'m>) -> Value<'m> {
    if ty.kind() != TyKind::Vector {
        return v;
    }
    let one = b.insert_element(b.poison(ty), v, b.i32(0));
    b.shuffle_vector(one, b.poison(ty), &vec![0; ty.len() as usize])
}

/// Lane `k` of the result: the product of every lane of `v` but `k`, as
/// prefix products times suffix products (no division, so a zero lane
/// gives the others' product, not NaN).
pub(super) fn prod_others<'m>(b: &Builder<'m>, v: Value<'m>) -> Value<'m> {
    let ty = v.ty();
    let n = ty.len() as i64;
    let lane = |k: i64| b.extract_element(v, b.i32(k));
    let one = b.const_float(ty.element(), 1.0);
    // before[k] = Π_{j<k} v_j
    let mut before = vec![one];
    for k in 1..n {
        before.push(b.fmul(before[k as usize - 1], lane(k - 1)));
    }
    let mut out = b.poison(ty);
    let mut after = one; // Π_{j>k} v_j
    for k in (0..n).rev() {
        let p = if k == n - 1 {
            before[k as usize]
        } else {
            b.fmul(before[k as usize], after)
        };
        out = b.insert_element(out, p, b.i32(k));
        if k > 0 {
            after = if k == n - 1 {
                lane(k)
            } else {
                b.fmul(after, lane(k))
            };
        }
    }
    out
}

/// A vector of `vec`'s type holding `val` (a scalar, or the same lane of a
/// vector) in the first lane of `vec` equal to `key`, zero elsewhere (all
/// zero when no lane is equal, e.g. a NaN result).
pub(super) fn first_lane_eq<'m>(
    b: &Builder<'m>,
    vec: Value<'m>,
    key: Value<'m>,
    val: Value<'m>,
) -> Value<'m> {
    let ty = vec.ty();
    let i1 = Ty::int(b.ctx(), 1);
    let (yes, no) = (b.const_int(i1, 1), b.const_int(i1, 0));
    let zero = b.const_float(ty.element(), 0.0);
    let mut found = no;
    let mut out = b.zero(ty);
    for k in 0..ty.len() as i64 {
        let idx = b.i32(k);
        let eq = b.fcmp(
            LLVMRealPredicate::LLVMRealOEQ,
            b.extract_element(vec, idx),
            key,
        );
        let take = b.select(found, no, eq);
        found = b.select(eq, yes, found);
        let v = if val.ty().kind() == TyKind::Vector {
            b.extract_element(val, idx)
        } else {
            val
        };
        out = b.insert_element(out, b.select(take, v, zero), idx);
    }
    out
}
