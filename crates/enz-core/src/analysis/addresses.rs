//! The uses of a block's address: what the analyses of scratch blocks
//! (`repeated.rs`, `lazy_shadows.rs`) ask of an allocation, walking from
//! its pointer through the addresses computed from it.

use crate::ir::{Inst, LLVMOpcode, Value};
use crate::names::MemFn;
use std::collections::HashSet;

/// One use of an address derived from a block's pointer.
#[derive(Copy, Clone)]
pub(crate) struct AddressUse<'m> {
    /// The instruction using it.
    pub(crate) user: Inst<'m>,
    /// The derived address it uses.
    pub(crate) address: Value<'m>,
}

/// Every use of `p` and of the addresses computed from it (GEPs and
/// casts; phis, selects and freezes too when `through_joins`), but those
/// computations themselves; `None` when something other than an
/// instruction uses one (a constant expression).
pub(crate) fn address_uses<'m>(p: Value<'m>, through_joins: bool) -> Option<Vec<AddressUse<'m>>> {
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    let mut todo = vec![p];
    while let Some(v) = todo.pop() {
        if !seen.insert(v) {
            continue;
        }
        for u in v.users() {
            let user = u.as_inst()?;
            let derives = match user.opcode() {
                Some(LLVMOpcode::LLVMGetElementPtr | LLVMOpcode::LLVMBitCast) => true,
                Some(LLVMOpcode::LLVMPHI | LLVMOpcode::LLVMSelect | LLVMOpcode::LLVMFreeze) => {
                    through_joins
                }
                _ => false,
            };
            if derives {
                todo.push(u);
            } else {
                out.push(AddressUse { user, address: v });
            }
        }
    }
    Some(out)
}

/// The memory function a call is, if any.
pub(crate) fn memory_fn(i: Inst<'_>) -> Option<MemFn> {
    if i.opcode() != Some(LLVMOpcode::LLVMCall) {
        return None;
    }
    MemFn::from_callee(&i.called_function()?.name())
}

/// Intrinsics that only mark: lifetimes, debug values, assumptions.
pub(crate) fn is_marker_intrinsic(name: &str) -> bool {
    name.starts_with("llvm.lifetime.")
        || name.starts_with("llvm.dbg.")
        || name == "llvm.assume"
        || name.starts_with("llvm.experimental.noalias.scope.decl")
}

/// Whether `a` comes before `b` in their block.
pub(crate) fn precedes<'m>(a: Inst<'m>, b: Inst<'m>) -> bool {
    for i in a.parent_block().instructions() {
        if i == a {
            return true;
        }
        if i == b {
            return false;
        }
    }
    false
}
