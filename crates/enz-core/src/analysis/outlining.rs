//! What the instructions of a loop body must be for the body to be moved
//! into a function of its own and run again (checkpointing, mixed mode):
//! no instruction tied to its function or to a single execution, and no
//! call with effects beyond its result.

use super::calls::{math_written_pointer, CallKind};
use crate::ir::{Inst, LLVMOpcode};
use crate::names::is_libm_without_side_effects;

/// Instructions tied to their function (stack slots, returns, exception
/// handling, variadic arguments) or to one execution (atomics, fences).
pub(crate) fn stays_in_its_function(op: LLVMOpcode) -> bool {
    use LLVMOpcode::*;
    matches!(
        op,
        LLVMAlloca
            | LLVMInvoke
            | LLVMAtomicRMW
            | LLVMAtomicCmpXchg
            | LLVMFence
            | LLVMVAArg
            | LLVMCallBr
            | LLVMIndirectBr
            | LLVMLandingPad
            | LLVMResume
            | LLVMUnreachable
            | LLVMRet
    )
}

/// A call that only computes its result: a math function writing at most
/// `errno` (not through a pointer argument), or an intrinsic writing no
/// memory or only stating facts for the optimiser.
pub(crate) fn is_pure_call<'m>(i: Inst<'m>, kind: CallKind<'m>) -> bool {
    match kind {
        CallKind::Math(f) => math_written_pointer(i, f).is_none(),
        CallKind::External(g) if is_libm_without_side_effects(&g.name()) => true,
        _ => i.called_function().is_some_and(|f| {
            let name = f.name();
            f.intrinsic_id() != 0
                && (f.writes_no_memory()
                    || name == "llvm.assume"
                    || name == "llvm.experimental.noalias.scope.decl")
        }),
    }
}
