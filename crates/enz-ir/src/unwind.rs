//! Unwind edges: turning an `invoke` into a `call` and back, and the block
//! surgery that needs (moving a block's tail, redirecting phi entries).
//!
//! Synthesis works on calls: each `invoke` of a derivative's cloned body
//! becomes a call followed by a branch to its normal destination
//! ([`Inst::detach_unwind_edge`]), the derivative code is built around the
//! call, and at the end the call (or what replaced it) becomes an invoke
//! again ([`Inst::call_into_invoke`]), so that an exception it throws runs
//! the landing pad as in the primal.

use crate::{Block, Builder, Inst, Value};
use llvm_sys::core::*;
use llvm_sys::prelude::LLVMAttributeRef;
use llvm_sys::LLVMOpcode;

impl<'m> Inst<'m> {
    /// Whether this is an `invoke`.
    pub fn is_invoke(self) -> bool {
        !unsafe { LLVMIsAInvokeInst(self.0 .0) }.is_null()
    }

    /// The normal destination of an `invoke`.
    pub fn normal_dest(self) -> Block<'m> {
        assert!(self.is_invoke(), "normal_dest of a non-invoke");
        // SAFETY: `self` is an invoke.
        Block::wrap(unsafe { LLVMGetNormalDest(self.0 .0) })
    }

    /// Whether this is an `invoke` whose edge to `s` is taken only by an
    /// exception (`s` its landing pad, not also its normal destination).
    pub fn only_unwinds_to(self, s: Block<'m>) -> bool {
        self.is_invoke() && self.unwind_dest() == s && self.normal_dest() != s
    }

    /// The unwind destination (landing pad) of an `invoke`.
    pub fn unwind_dest(self) -> Block<'m> {
        assert!(self.is_invoke(), "unwind_dest of a non-invoke");
        // SAFETY: `self` is an invoke.
        Block::wrap(unsafe { LLVMGetUnwindDest(self.0 .0) })
    }

    /// Makes `to` the normal destination of this `invoke`.
    pub fn set_normal_dest(self, to: Block<'m>) {
        assert!(self.is_invoke(), "set_normal_dest of a non-invoke");
        // SAFETY: `self` is an invoke, `to` a block of its function.
        unsafe { LLVMSetNormalDest(self.0 .0, to.0) }
    }

    /// Replaces this `invoke` by a `call` of the same callee, function
    /// type, arguments, attributes, calling convention and debug location,
    /// followed by a branch to the invoke's normal destination (the unwind
    /// edge is dropped: an exception then propagates through the function
    /// without running its landing pad). Returns the call.
    pub fn replace_invoke_with_call(self) -> Inst<'m> {
        let from = self.parent_block();
        let unwind = self.unwind_dest();
        let call = self.invoke_to_call();
        unwind.remove_phi_incoming_from(from);
        call
    }

    /// Like [`Inst::replace_invoke_with_call`], but the landing pad keeps
    /// its phi entries for this block: the edge is meant to come back with
    /// [`Inst::call_into_invoke`]. Returns the call and the landing pad.
    pub fn detach_unwind_edge(self) -> (Inst<'m>, Block<'m>) {
        let unwind = self.unwind_dest();
        (self.invoke_to_call(), unwind)
    }

    fn invoke_to_call(self) -> Inst<'m> {
        let raw = self.0 .0;
        // SAFETY: `self` is an invoke; the new call and branch are built in
        // its context right before it, then it is erased.
        unsafe {
            let b = Builder::new(self.context());
            b.position_before(self);
            let normal = LLVMGetNormalDest(raw);
            let call = build_call_like(&b, raw, None);
            LLVMBuildBr(b.raw, normal);
            replace_keeping_name(raw, call);
            Inst(Value::wrap(call))
        }
    }

    /// Turns this `call` into an `invoke` unwinding to `unwind`: the
    /// instructions after it move to a new block, its normal destination,
    /// whose successors' phis are redirected to it. Returns the invoke.
    pub fn call_into_invoke(self, unwind: Block<'m>) -> Inst<'m> {
        assert!(
            self.opcode() == Some(LLVMOpcode::LLVMCall),
            "call_into_invoke of a non-call"
        );
        let from = self.parent_block();
        let cont = self.split_block_after("invoke.cont");
        let b = Builder::new(self.context());
        b.position_at_end(from);
        // SAFETY: `self` is a call; the invoke is built at the end of its
        // block (which lost its tail), then the call is erased.
        unsafe {
            let inv = build_call_like(&b, self.0 .0, Some((cont.0, unwind.0)));
            replace_keeping_name(self.0 .0, inv);
            Inst(Value::wrap(inv))
        }
    }
}

impl<'m> Inst<'m> {
    /// Moves the instructions after this one (its block's terminator
    /// included) to a new block `name` right after the block, whose
    /// successors' phis then name the new block. This block is left
    /// without a terminator, ending with this instruction.
    pub fn split_block_after(self, name: &str) -> Block<'m> {
        let from = self.parent_block();
        let cont = from.insert_block_after(name);
        let b = Builder::new(self.context());
        b.position_at_end(cont);
        let mut next = self.next_instruction();
        while let Some(i) = next {
            next = i.next_instruction();
            let name = i.name();
            // SAFETY: `i` is an instruction of `from`; it is unlinked and
            // inserted at the end of `cont`, keeping its name.
            unsafe {
                LLVMInstructionRemoveFromParent(i.0 .0);
                let c = std::ffi::CString::new(name).unwrap_or_default();
                LLVMInsertIntoBuilderWithName(b.raw, i.0 .0, c.as_ptr());
            }
        }
        for s in cont.successors() {
            s.redirect_phi_incoming(from, cont);
        }
        cont
    }

    /// Makes this call (or invoke) call `callee`, with its function type
    /// unchanged.
    pub fn set_called_value(self, callee: Value<'m>) {
        assert!(
            self.called_value().is_some(),
            "set_called_value of a non-call"
        );
        // SAFETY: the callee is a call's last operand.
        unsafe {
            LLVMSetOperand(
                self.0 .0,
                LLVMGetNumOperands(self.0 .0) as u32 - 1,
                callee.0,
            )
        }
    }
}

impl<'m> Block<'m> {
    /// A new block right after this one in the function's layout.
    pub fn insert_block_after(self, name: &str) -> Block<'m> {
        let c = std::ffi::CString::new(name).unwrap_or_default();
        // SAFETY: `self` is a block of a function; the new block is made in
        // the same context, before the next block or at the end.
        unsafe {
            let ctx = LLVMGetModuleContext(LLVMGetGlobalParent(LLVMGetBasicBlockParent(self.0)));
            let next = LLVMGetNextBasicBlock(self.0);
            if next.is_null() {
                Block::wrap(LLVMAppendBasicBlockInContext(
                    ctx,
                    LLVMGetBasicBlockParent(self.0),
                    c.as_ptr(),
                ))
            } else {
                Block::wrap(LLVMInsertBasicBlockInContext(ctx, next, c.as_ptr()))
            }
        }
    }

    /// Makes this block's phi entries for `from` name `to` instead (after
    /// the edge from `from` was moved to `to`). The C API cannot change a
    /// phi's incoming block, so each affected phi is rebuilt.
    pub fn redirect_phi_incoming(self, from: Block<'m>, to: Block<'m>) {
        for phi in self.instructions() {
            if phi.opcode() != Some(LLVMOpcode::LLVMPHI) {
                break;
            }
            let incoming = phi.incoming();
            if incoming.iter().all(|(_, b)| *b != from) {
                continue;
            }
            let b = Builder::new(phi.context());
            b.position_before(phi);
            let new = b.phi(phi.ty(), &phi.name());
            for (v, blk) in incoming {
                new.add_incoming(v, if blk == from { to } else { blk });
            }
            phi.replace_all_uses_with(new);
            phi.erase();
        }
    }
}

/// A call (`dests` None) or invoke (`Some((normal, unwind))`) at `b`'s
/// position with the callee, function type, arguments, attributes,
/// calling convention and debug location of the call or invoke `like`.
///
/// # Safety
/// `like` must be a call or invoke; the blocks must belong to the
/// function `b` builds in.
unsafe fn build_call_like(
    b: &Builder<'_>,
    like: llvm_sys::prelude::LLVMValueRef,
    dests: Option<(
        llvm_sys::prelude::LLVMBasicBlockRef,
        llvm_sys::prelude::LLVMBasicBlockRef,
    )>,
) -> llvm_sys::prelude::LLVMValueRef {
    let n = LLVMGetNumArgOperands(like);
    let mut args: Vec<_> = (0..n).map(|k| LLVMGetOperand(like, k)).collect();
    let fty = LLVMGetCalledFunctionType(like);
    let callee = LLVMGetCalledValue(like);
    let new = match dests {
        None => LLVMBuildCall2(b.raw, fty, callee, args.as_mut_ptr(), n, c"".as_ptr()),
        Some((normal, unwind)) => LLVMBuildInvoke2(
            b.raw,
            fty,
            callee,
            args.as_mut_ptr(),
            n,
            normal,
            unwind,
            c"".as_ptr(),
        ),
    };
    LLVMSetInstructionCallConv(new, LLVMGetInstructionCallConv(like));
    // Attributes at every index: return (0), parameters (1..=n), function (~0).
    let indices = std::iter::once(llvm_sys::LLVMAttributeFunctionIndex).chain(0..=n);
    for idx in indices {
        let count = LLVMGetCallSiteAttributeCount(like, idx) as usize;
        let mut attrs: Vec<LLVMAttributeRef> = vec![std::ptr::null_mut(); count];
        LLVMGetCallSiteAttributes(like, idx, attrs.as_mut_ptr());
        for a in attrs {
            LLVMAddCallSiteAttribute(new, idx, a);
        }
    }
    let loc = llvm_sys::debuginfo::LLVMInstructionGetDebugLoc(like);
    llvm_sys::debuginfo::LLVMInstructionSetDebugLoc(new, loc);
    new
}

/// Replaces every use of `old` by `new`, erases `old` and gives `new` its
/// name.
///
/// # Safety
/// Both must be instructions of the same type; `old` is erased.
unsafe fn replace_keeping_name(
    old: llvm_sys::prelude::LLVMValueRef,
    new: llvm_sys::prelude::LLVMValueRef,
) {
    LLVMReplaceAllUsesWith(old, new);
    let name = LLVMGetValueName2(old, &mut 0);
    if name.is_null() {
        crate::graveyard::erase_instruction(old);
        return;
    }
    let s = std::ffi::CStr::from_ptr(name).to_owned();
    crate::graveyard::erase_instruction(old);
    LLVMSetValueName2(new, s.as_ptr(), s.as_bytes().len());
}

impl<'m> Block<'m> {
    /// Gives this block's phis, for the new predecessor `to`, the values
    /// they have for `from` (a second edge from a split of `from`).
    pub fn copy_phi_incoming(self, from: Block<'m>, to: Block<'m>) {
        for phi in self.instructions() {
            if phi.opcode() != Some(LLVMOpcode::LLVMPHI) {
                break;
            }
            if let Some((v, _)) = phi.incoming().into_iter().find(|(_, b)| *b == from) {
                phi.add_incoming(v, to);
            }
        }
    }
}
