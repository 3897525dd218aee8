//! Building masked vector accesses (`llvm.masked.load/store`, and
//! `gather/scatter` for vectors of pointers) on shadow
//! memory, for both modes: a shadow access takes the primal's mask, so it
//! touches exactly the lanes the primal touched. (LLVM takes the
//! alignment from an `align` attribute on the pointer; without one these
//! accesses assume none, which is always valid.)

use crate::ir::{Builder, TyKind, Value};
use crate::names::MaskedFn;

/// `llvm.masked.load(p, mask, pass)`: the lanes of `mask` read from `p`,
/// the others from `pass`; `llvm.masked.gather` when `p` is a vector of
/// pointers (one per lane).
pub(crate) fn load<'m>(
    b: &Builder<'m>,
    p: Value<'m>,
    mask: Value<'m>,
    pass: Value<'m>,
) -> Value<'m> {
    let f = if p.ty().kind() == TyKind::Vector {
        MaskedFn::Gather
    } else {
        MaskedFn::Load
    };
    b.call_intrinsic(f.intrinsic(), &[pass.ty(), p.ty()], &[p, mask, pass])
        .as_value()
}

/// `llvm.masked.store(v, p, mask)`: the lanes of `mask` of `v` written to
/// `p`; `llvm.masked.scatter` when `p` is a vector of pointers.
pub(crate) fn store<'m>(b: &Builder<'m>, v: Value<'m>, p: Value<'m>, mask: Value<'m>) {
    let f = if p.ty().kind() == TyKind::Vector {
        MaskedFn::Scatter
    } else {
        MaskedFn::Store
    };
    b.call_intrinsic(f.intrinsic(), &[v.ty(), p.ty()], &[v, p, mask]);
}
