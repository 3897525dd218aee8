//! Arithmetic on adjoint values of any differentiable type: scalars, float
//! vectors and aggregates (added member by member, non-float members kept).

use crate::ir::{Builder, Ty, TyKind, Value};

/// The empty adjoint of type `ty`: `-0.0` for floats (the identity of
/// `fadd`, so that adding it folds away; `+0.0` does not, because of signed
/// zeros), zero otherwise.
pub(crate) fn empty<'m>(b: &Builder<'m>, ty: Ty<'m>) -> Value<'m> {
    if ty.is_fp_or_fp_vector() {
        b.const_float(ty, -0.0)
    } else {
        b.zero(ty)
    }
}

/// `a + b` for two adjoints of the same type. Float additions may be
/// reassociated (`reassoc`, as Enzyme's derivatives are fast-math): an
/// adjoint summed over a loop's iterations is a reduction the vectoriser
/// then may split into lanes; the order of the sum changes within rounding.
pub(crate) fn add<'m>(b: &Builder<'m>, x: Value<'m>, y: Value<'m>) -> Value<'m> {
    let ty = x.ty();
    if ty.is_fp_or_fp_vector() {
        return b.fadd_reassoc(x, y);
    }
    match ty.kind() {
        TyKind::Struct | TyKind::Array => {
            let mut acc = x;
            for i in 0..ty.len() as u32 {
                if !ty.member(i).carries_float() {
                    continue;
                }
                let s = add(b, b.extract_value(x, i), b.extract_value(y, i));
                acc = b.insert_value(acc, s, i);
            }
            acc
        }
        _ => x,
    }
}

/// Member `path` of an aggregate value.
pub(crate) fn extract_path<'m>(b: &Builder<'m>, agg: Value<'m>, path: &[u32]) -> Value<'m> {
    path.iter().fold(agg, |v, i| b.extract_member(v, *i))
}

/// `agg` with member `path` replaced by `new`.
pub(crate) fn replace_path<'m>(
    b: &Builder<'m>,
    agg: Value<'m>,
    new: Value<'m>,
    path: &[u32],
) -> Value<'m> {
    match path {
        [] => new,
        [i, rest @ ..] => {
            let inner = replace_path(b, b.extract_member(agg, *i), new, rest);
            b.insert_member(agg, inner, *i)
        }
    }
}

/// A zero of type `ty` with `v` at member `path`.
pub(crate) fn zero_with<'m>(b: &Builder<'m>, ty: Ty<'m>, v: Value<'m>, path: &[u32]) -> Value<'m> {
    replace_path(b, b.zero(ty), v, path)
}
