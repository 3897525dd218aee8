//! Values taken apart into scalar components and put back together, for
//! the rules of [`Shape::Components`](super::rules::Shape): a struct into
//! its members, a fixed vector into its lanes (a `{double, double}`
//! complex result, a `<2 x float>` complex argument), anything else is one
//! component.

use crate::ir::{Builder, Ty, TyKind, Value};

/// How many components a value of type `ty` has; `None` when a member is
/// itself an aggregate or vector (no rule takes those apart).
pub(crate) fn count(ty: Ty<'_>) -> Option<usize> {
    match ty.kind() {
        TyKind::Struct | TyKind::Vector => {
            let n = ty.len() as u32;
            let scalar =
                |t: Ty| !matches!(t.kind(), TyKind::Struct | TyKind::Vector | TyKind::Array);
            (0..n).all(|k| scalar(ty.member(k))).then_some(n as usize)
        }
        TyKind::Array => None,
        _ => Some(1),
    }
}

/// The type of component `k` of a value of type `ty`.
pub(crate) fn member_ty(ty: Ty<'_>, k: usize) -> Ty<'_> {
    match ty.kind() {
        TyKind::Struct | TyKind::Vector => ty.member(k as u32),
        _ => ty,
    }
}

/// The components of `v`, extracted at the builder's position.
pub(crate) fn split<'m>(b: &Builder<'m>, v: Value<'m>) -> Vec<Value<'m>> {
    match v.ty().kind() {
        TyKind::Struct | TyKind::Vector => (0..v.ty().len() as u32)
            .map(|k| b.extract_member(v, k))
            .collect(),
        _ => vec![v],
    }
}

/// Placeholders for the components of a value no formula reads (no IR).
pub(crate) fn unused<'m>(b: &Builder<'m>, v: Value<'m>) -> Vec<Value<'m>> {
    match v.ty().kind() {
        TyKind::Struct | TyKind::Vector => (0..v.ty().len() as u32)
            .map(|k| b.poison(v.ty().member(k)))
            .collect(),
        _ => vec![v],
    }
}

/// A value of type `ty` from its components (`None`: zero).
pub(crate) fn join<'m>(b: &Builder<'m>, ty: Ty<'m>, parts: &[Option<Value<'m>>]) -> Value<'m> {
    match ty.kind() {
        TyKind::Struct | TyKind::Vector => {
            parts
                .iter()
                .enumerate()
                .fold(b.zero(ty), |acc, (k, p)| match p {
                    Some(p) => b.insert_member(acc, *p, k as u32),
                    None => acc,
                })
        }
        _ => parts[0].unwrap_or_else(|| b.zero(ty)),
    }
}

/// For operands of types `tys`, the operand each flattened component
/// belongs to and its index there.
pub(crate) fn layout(tys: &[Ty<'_>]) -> Option<Vec<(usize, usize)>> {
    let mut out = Vec::new();
    for (k, t) in tys.iter().enumerate() {
        out.extend((0..count(*t)?).map(|c| (k, c)));
    }
    Some(out)
}
