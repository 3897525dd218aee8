//! Instruction handles: a [`Value`] known to be an instruction, with the
//! operations only instructions have (their block, debug location,
//! erasure, call and phi accessors). Everything a value can do, an
//! instruction can too (`Deref`); block walks hand out instructions.

use crate::{Block, Function, Ty, Value};
use llvm_sys::core::*;

/// An instruction of a function.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Inst<'m>(pub(crate) Value<'m>);

impl<'m> std::ops::Deref for Inst<'m> {
    type Target = Value<'m>;
    fn deref(&self) -> &Value<'m> {
        &self.0
    }
}

impl<'m> From<Inst<'m>> for Value<'m> {
    fn from(i: Inst<'m>) -> Value<'m> {
        i.0
    }
}

/// Queries every value answers (`None` when it is not an instruction, or
/// not a call).
impl<'m> Value<'m> {
    /// This value as an instruction, if it is one.
    pub fn as_inst(self) -> Option<Inst<'m>> {
        self.is_instruction().then_some(Inst(self))
    }

    /// The block of an instruction; `None` for other values (and for an
    /// instruction in no block: not inserted yet, or erased).
    pub fn block_of(self) -> Option<Block<'m>> {
        let i = self.as_inst()?;
        let b = unsafe { LLVMGetInstructionParent(i.0 .0) };
        (!b.is_null() && !crate::graveyard::is_erased(self.0)).then(|| Block::wrap(b))
    }

    /// The callee operand of a call or invoke, `None` for other values.
    pub fn called_value(self) -> Option<Value<'m>> {
        if unsafe { LLVMIsACallInst(self.0) }.is_null()
            && unsafe { LLVMIsAInvokeInst(self.0) }.is_null()
        {
            return None;
        }
        Some(Value::operand_wrap(unsafe { LLVMGetCalledValue(self.0) }))
    }

    /// The function a call *or invoke* calls, seen through pointer casts
    /// and aliases, whatever function type it is called with.
    pub fn called_function_of_call_or_invoke(self) -> Option<Function<'m>> {
        if unsafe { LLVMIsACallInst(self.0) }.is_null()
            && unsafe { LLVMIsAInvokeInst(self.0) }.is_null()
        {
            return None;
        }
        Value::operand_wrap(unsafe { LLVMGetCalledValue(self.0) }).strip_to_function()
    }

    /// The function a call calls, seen through pointer casts and aliases.
    /// `None` when the call's function type differs from the function's
    /// own (LLVM leaves such a call undefined): synthesis then sees an
    /// unknown callee and never builds a derivative call of the wrong type.
    pub fn called_function(self) -> Option<Function<'m>> {
        self.called_value()
            .and_then(|v| v.strip_to_function())
            .filter(|f| f.function_type() == Inst(self).call_function_type())
    }

    /// The function a call names but calls through a different function
    /// type, `None` for other values (for diagnostics).
    pub fn callee_with_other_type(self) -> Option<Function<'m>> {
        self.called_value()
            .and_then(|v| v.strip_to_function())
            .filter(|f| f.function_type() != Inst(self).call_function_type())
    }
}

impl<'m> Inst<'m> {
    /// A `switch`'s case values, in order (empty for anything else).
    pub fn switch_case_values(self) -> Vec<Value<'m>> {
        if self.opcode() != Some(llvm_sys::LLVMOpcode::LLVMSwitch) {
            return Vec::new();
        }
        // SAFETY: a switch instruction; successor 0 is the default
        // destination, the cases are 1..n.
        let n = unsafe { LLVMGetNumSuccessors(self.0 .0) };
        (1..n)
            .map(|k| Value::wrap(unsafe { LLVMGetSwitchCaseValue(self.0 .0, k) }))
            .collect()
    }

    /// The instruction as a plain value (an operand, a map key).
    pub fn as_value(self) -> Value<'m> {
        self.0
    }

    /// Block containing an instruction. Panics ("stale handle") for an
    /// erased instruction, and for one not inserted yet.
    pub fn parent_block(self) -> Block<'m> {
        match self.block_of() {
            Some(b) => b,
            None => crate::graveyard::stale("instruction erased (its block asked)"),
        }
    }

    /// Drops the instruction's `!dbg` location.
    pub fn clear_debug_loc(self) {
        unsafe { llvm_sys::debuginfo::LLVMInstructionSetDebugLoc(self.0 .0, std::ptr::null_mut()) }
    }

    /// Copies the `!dbg` location of `from` onto this instruction.
    pub fn copy_debug_loc(self, from: Inst<'m>) {
        unsafe {
            let loc = llvm_sys::debuginfo::LLVMInstructionGetDebugLoc(from.0 .0);
            llvm_sys::debuginfo::LLVMInstructionSetDebugLoc(self.0 .0, loc);
        }
    }

    pub fn next_instruction(self) -> Option<Inst<'m>> {
        let n = unsafe { LLVMGetNextInstruction(self.0 .0) };
        (!n.is_null()).then_some(Inst(Value::wrap(n)))
    }

    /// Erases the instruction, which must have no uses left (else an
    /// internal-error panic). It is detached from its block and kept alive
    /// until no handle can reach it (see ARCHITECTURE.md, "Invariants"):
    /// this handle and its copies stay memory-safe, and what would reach
    /// through them (its block, operands, erasing it again, a builder at
    /// it) panics with "stale handle".
    pub fn erase(self) {
        crate::graveyard::erase_instruction(self.0 .0)
    }

    /// Function type of a call instruction.
    pub fn call_function_type(self) -> Ty<'m> {
        Ty::wrap(unsafe { LLVMGetCalledFunctionType(self.0 .0) })
    }

    /// Number of call arguments (operands minus the callee and bundles).
    pub fn call_num_args(self) -> u32 {
        unsafe { LLVMGetNumArgOperands(self.0 .0) }
    }

    /// Whether call argument `arg` carries the enum attribute `attr` (e.g. `sret`).
    pub fn call_arg_has_attribute(self, arg: u32, attr: &str) -> bool {
        unsafe {
            let kind = LLVMGetEnumAttributeKindForName(attr.as_ptr() as *const _, attr.len());
            !LLVMGetCallSiteEnumAttribute(self.0 .0, arg + 1, kind).is_null()
        }
    }

    /// The type of call argument `arg`'s `sret` attribute, if it has one.
    pub fn call_arg_sret_type(self, arg: u32) -> Option<Ty<'m>> {
        // SAFETY: attribute queries on a call site; the type lives in the
        // context.
        unsafe {
            let kind = LLVMGetEnumAttributeKindForName(c"sret".as_ptr(), 4);
            let a = LLVMGetCallSiteEnumAttribute(self.0 .0, arg + 1, kind);
            (!a.is_null()).then(|| Ty::wrap(LLVMGetTypeAttributeValue(a)))
        }
    }

    /// Incoming (value, block) pairs of a phi.
    pub fn incoming(self) -> Vec<(Value<'m>, Block<'m>)> {
        let n = unsafe { LLVMCountIncoming(self.0 .0) };
        (0..n)
            .map(|i| unsafe {
                (
                    Value::operand_wrap(LLVMGetIncomingValue(self.0 .0, i)),
                    Block::wrap(LLVMGetIncomingBlock(self.0 .0, i)),
                )
            })
            .collect()
    }

    pub fn add_incoming(self, v: impl Into<Value<'m>>, b: Block<'m>) {
        let v = v.into();
        crate::graveyard::check_live(self.0 .0, "phi erased (an entry added)");
        crate::graveyard::check_live(v.0, "value erased (added to a phi)");
        let mut vals = [v.0];
        let mut blocks = [b.0];
        unsafe { LLVMAddIncoming(self.0 .0, vals.as_mut_ptr(), blocks.as_mut_ptr(), 1) }
    }

    /// Mask of a shufflevector (`None` = undefined lane).
    pub fn shuffle_mask(self) -> Vec<Option<u32>> {
        let n = unsafe { LLVMGetNumMaskElements(self.0 .0) };
        let undef = unsafe { LLVMGetUndefMaskElem() };
        (0..n)
            .map(|i| {
                let m = unsafe { LLVMGetMaskValue(self.0 .0, i) };
                (m != undef && m >= 0).then_some(m as u32)
            })
            .collect()
    }

    /// Makes a call an ordinary call: no `tail`/`musttail`/`notail` marker.
    pub fn clear_tail_call_kind(self) {
        unsafe { LLVMSetTailCallKind(self.0 .0, llvm_sys::LLVMTailCallKind::LLVMTailCallKindNone) }
    }

    /// Allocated type of an alloca.
    pub fn allocated_type(self) -> Ty<'m> {
        Ty::wrap(unsafe { LLVMGetAllocatedType(self.0 .0) })
    }

    /// The operation of an `atomicrmw`.
    pub fn atomic_rmw_op(self) -> llvm_sys::LLVMAtomicRMWBinOp {
        unsafe { LLVMGetAtomicRMWBinOp(self.0 .0) }
    }

    /// Whether a load or store is volatile.
    pub fn is_volatile(self) -> bool {
        unsafe { LLVMGetVolatile(self.0 .0) != 0 }
    }

    /// Whether a load or store is neither volatile nor atomic.
    pub fn is_simple_access(self) -> bool {
        !self.is_volatile()
            && unsafe { LLVMGetOrdering(self.0 .0) }
                == llvm_sys::LLVMAtomicOrdering::LLVMAtomicOrderingNotAtomic
    }

    /// A copy of this instruction, not yet inserted anywhere (insert it
    /// with `Builder::insert`), with the same operands.
    pub fn clone_instruction(self) -> Inst<'m> {
        // SAFETY: `self` is an instruction; the clone is a new instruction
        // whose metadata may be changed.
        unsafe {
            let c = LLVMInstructionClone(self.0 .0);
            // An assignment-tracking ID (clang -g at -O1 and above) links an
            // instruction to the #dbg_assign records of its own function:
            // a clone in another function must not share it (the verifier
            // refuses the module).
            let name = "DIAssignID";
            let kind = LLVMGetMDKindIDInContext(
                self.context().0,
                name.as_ptr() as *const _,
                name.len() as u32,
            );
            if !LLVMGetMetadata(c, kind).is_null() {
                LLVMSetMetadata(c, kind, std::ptr::null_mut());
            }
            Inst(Value::wrap(c))
        }
    }

    /// Whether a call site's function attributes have the enum attribute
    /// `name`.
    pub fn has_call_site_attribute(self, name: &str) -> bool {
        // SAFETY: `self` is a call; the kind is looked up by name.
        unsafe {
            let kind = LLVMGetEnumAttributeKindForName(name.as_ptr() as *const _, name.len());
            !LLVMGetCallSiteEnumAttribute(self.0 .0, llvm_sys::LLVMAttributeFunctionIndex, kind)
                .is_null()
        }
    }

    /// Adds the enum attribute `name` to a call site's function attributes,
    /// first removing the ones it is incompatible with
    /// ([`crate::incompatible_attributes`]: a call rustc marks `noinline`
    /// that enz-rs inlines for differentiation becomes `alwaysinline`).
    pub fn add_call_site_attribute(self, name: &str) {
        // SAFETY: `self` is a call; the attribute is created in its context.
        unsafe {
            for other in crate::incompatible_attributes(name) {
                let k = LLVMGetEnumAttributeKindForName(other.as_ptr() as *const _, other.len());
                llvm_sys::core::LLVMRemoveCallSiteEnumAttribute(
                    self.0 .0,
                    llvm_sys::LLVMAttributeFunctionIndex,
                    k,
                );
            }
            let kind = LLVMGetEnumAttributeKindForName(name.as_ptr() as *const _, name.len());
            let attr = LLVMCreateEnumAttribute(self.context().0, kind, 0);
            LLVMAddCallSiteAttribute(self.0 .0, llvm_sys::LLVMAttributeFunctionIndex, attr);
        }
    }
}

impl<'m> PartialEq<Inst<'m>> for Value<'m> {
    fn eq(&self, other: &Inst<'m>) -> bool {
        *self == other.0
    }
}

impl<'m> PartialEq<Value<'m>> for Inst<'m> {
    fn eq(&self, other: &Value<'m>) -> bool {
        self.0 == *other
    }
}
