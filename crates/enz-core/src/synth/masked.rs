//! Building masked vector accesses (`llvm.masked.load/store`, and
//! `gather/scatter` for vectors of pointers) on shadow
//! memory, for both modes: a shadow access takes the primal's mask, so it
//! touches exactly the lanes the primal touched. (LLVM takes the
//! alignment from an `align` attribute on the pointer; without one these
//! accesses assume none, which is always valid.)

use crate::ir::{Builder, Inst, TyKind, Value};
use crate::names::MaskedFn;

/// What masked access `i` (of kind `m`) moves, when both modes have work
/// to do with it: the loaded result or the stored value, if it carries
/// floats; `Ok(None)` when it does not (nothing to differentiate);
/// `Err` with the message when it moves pointers into shadowed memory
/// (`is_shadowed`), which neither mode supports.
pub(crate) fn moved_floats<'m>(
    i: Inst<'m>,
    m: MaskedFn,
    is_shadowed: impl Fn(Value<'m>) -> bool,
) -> Result<Option<Value<'m>>, &'static str> {
    let p = i.operand(m.pointer_arg());
    let value = if m.reads() {
        i.as_value()
    } else {
        i.operand(0)
    };
    if value.ty().carries_float() {
        Ok(Some(value))
    } else if value.ty().element().kind() == TyKind::Pointer && is_shadowed(p) {
        Err("masked accesses of shadowed pointers are not supported")
    } else {
        Ok(None)
    }
}

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
