//! LLVM values and basic blocks: identity, inspection and navigation.

use super::{cstr, take_message, Ty};
use crate::{Context, Function, Module};
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::LLVMOpcode;

/// An LLVM value (instruction, argument, constant, function, global...).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Value(pub(crate) LLVMValueRef);

/// An LLVM basic block.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct Block(pub(crate) LLVMBasicBlockRef);

impl Value {
    /// The value inkwell holds (a function, global, instruction or
    /// constant; valid while its module lives).
    pub fn of(v: &impl inkwell::values::AsValueRef) -> Value {
        Value(v.as_value_ref())
    }

    pub fn ty(self) -> Ty {
        Ty(unsafe { LLVMTypeOf(self.0) })
    }

    pub fn is_instruction(self) -> bool {
        !unsafe { LLVMIsAInstruction(self.0) }.is_null()
    }

    pub fn is_argument(self) -> bool {
        !unsafe { LLVMIsAArgument(self.0) }.is_null()
    }

    pub fn is_function(self) -> bool {
        !unsafe { LLVMIsAFunction(self.0) }.is_null()
    }

    pub fn is_global_variable(self) -> bool {
        !unsafe { LLVMIsAGlobalVariable(self.0) }.is_null()
    }

    pub fn is_block_value(self) -> bool {
        unsafe { LLVMValueIsBasicBlock(self.0) != 0 }
    }

    /// Opcode of an instruction, `None` for other values.
    pub fn opcode(self) -> Option<LLVMOpcode> {
        self.is_instruction()
            .then(|| unsafe { LLVMGetInstructionOpcode(self.0) })
    }

    pub fn num_operands(self) -> u32 {
        let n = unsafe { LLVMGetNumOperands(self.0) };
        u32::try_from(n).unwrap_or(0)
    }

    pub fn operand(self, i: u32) -> Value {
        Value(unsafe { LLVMGetOperand(self.0, i) })
    }

    pub fn operands(self) -> Vec<Value> {
        (0..self.num_operands()).map(|i| self.operand(i)).collect()
    }

    pub fn set_operand(self, i: u32, v: Value) {
        unsafe { LLVMSetOperand(self.0, i, v.0) }
    }

    pub fn name(self) -> String {
        let mut len = 0usize;
        let p = unsafe { LLVMGetValueName2(self.0, &mut len) };
        if p.is_null() {
            return String::new();
        }
        let bytes = unsafe { std::slice::from_raw_parts(p as *const u8, len) };
        String::from_utf8_lossy(bytes).into_owned()
    }

    pub fn set_name(self, name: &str) {
        let c = cstr(name);
        unsafe { LLVMSetValueName2(self.0, c.as_ptr(), name.len()) }
    }

    /// The value printed as in an IR dump (one line, trimmed).
    pub fn to_ir(self) -> String {
        let s = take_message(unsafe { LLVMPrintValueToString(self.0) });
        let first = s.lines().next().unwrap_or("").trim();
        // Drop trailing metadata attachments such as `, !dbg !42`.
        match first.find(", !") {
            Some(i) => first[..i].to_string(),
            None => first.to_string(),
        }
    }

    /// Block containing an instruction.
    pub fn parent_block(self) -> Block {
        Block(unsafe { LLVMGetInstructionParent(self.0) })
    }

    /// Source location `file:line[:col]` of an instruction, when debug info has it.
    pub fn debug_location(self) -> Option<String> {
        if !self.is_instruction() {
            return None;
        }
        unsafe {
            if llvm_sys::debuginfo::LLVMInstructionGetDebugLoc(self.0).is_null() {
                return None;
            }
            let line = LLVMGetDebugLocLine(self.0);
            if line == 0 {
                return None;
            }
            let mut len = 0u32;
            let p = LLVMGetDebugLocFilename(self.0, &mut len);
            let file = if p.is_null() {
                String::from("<unknown>")
            } else {
                String::from_utf8_lossy(std::slice::from_raw_parts(p as *const u8, len as usize))
                    .into_owned()
            };
            let col = LLVMGetDebugLocColumn(self.0);
            Some(if col > 0 {
                format!("{file}:{line}:{col}")
            } else {
                format!("{file}:{line}")
            })
        }
    }

    /// Drops the instruction's `!dbg` location.
    pub fn clear_debug_loc(self) {
        unsafe { llvm_sys::debuginfo::LLVMInstructionSetDebugLoc(self.0, std::ptr::null_mut()) }
    }

    /// Copies the `!dbg` location of `from` onto this instruction.
    pub fn copy_debug_loc(self, from: Value) {
        unsafe {
            let loc = llvm_sys::debuginfo::LLVMInstructionGetDebugLoc(from.0);
            llvm_sys::debuginfo::LLVMInstructionSetDebugLoc(self.0, loc);
        }
    }

    pub fn next_instruction(self) -> Option<Value> {
        let n = unsafe { LLVMGetNextInstruction(self.0) };
        (!n.is_null()).then_some(Value(n))
    }

    pub fn erase(self) {
        unsafe { LLVMInstructionEraseFromParent(self.0) }
    }

    pub fn replace_all_uses_with(self, with: Value) {
        unsafe { LLVMReplaceAllUsesWith(self.0, with.0) }
    }

    /// Users of this value (one entry per use).
    pub fn users(self) -> Vec<Value> {
        let mut out = Vec::new();
        let mut u = unsafe { LLVMGetFirstUse(self.0) };
        while !u.is_null() {
            out.push(Value(unsafe { LLVMGetUser(u) }));
            u = unsafe { LLVMGetNextUse(u) };
        }
        out
    }

    pub fn has_uses(self) -> bool {
        !unsafe { LLVMGetFirstUse(self.0) }.is_null()
    }

    /// The callee operand of a call, `None` for other values.
    pub fn called_value(self) -> Option<Value> {
        if unsafe { LLVMIsACallInst(self.0) }.is_null() {
            return None;
        }
        Some(Value(unsafe { LLVMGetCalledValue(self.0) }))
    }

    /// The function a call *or invoke* calls, seen through pointer casts
    /// and aliases (the other accessors see calls only).
    pub fn called_function_of_call_or_invoke(self) -> Option<Function> {
        if unsafe { LLVMIsACallInst(self.0) }.is_null()
            && unsafe { LLVMIsAInvokeInst(self.0) }.is_null()
        {
            return None;
        }
        Value(unsafe { LLVMGetCalledValue(self.0) }).strip_to_function()
    }

    /// The function a call calls, seen through pointer casts and aliases.
    /// `None` when the call's function type differs from the function's
    /// own (LLVM leaves such a call undefined): synthesis then sees an
    /// unknown callee and never builds a derivative call of the wrong type.
    pub fn called_function(self) -> Option<Function> {
        self.called_value()
            .and_then(|v| v.strip_to_function())
            .filter(|f| f.function_type() == self.call_function_type())
    }

    /// The function a call names but calls through a different function
    /// type, `None` for other values (for diagnostics).
    pub fn callee_with_other_type(self) -> Option<Function> {
        self.called_value()
            .and_then(|v| v.strip_to_function())
            .filter(|f| f.function_type() != self.call_function_type())
    }

    /// Strips pointer casts and global aliases; `Some` if a function remains.
    pub fn strip_to_function(self) -> Option<Function> {
        let mut v = self;
        for _ in 0..16 {
            if let Some(f) = v.as_function() {
                return Some(f);
            }
            if !unsafe { llvm_sys::core::LLVMIsAGlobalAlias(v.0) }.is_null() {
                v = Value(unsafe { LLVMAliasGetAliasee(v.0) });
                continue;
            }
            if !unsafe { LLVMIsAConstantExpr(v.0) }.is_null()
                || !unsafe { LLVMIsACastInst(v.0) }.is_null()
            {
                if v.num_operands() == 0 {
                    return None;
                }
                v = v.operand(0);
                continue;
            }
            return None;
        }
        None
    }

    /// Function type of a call instruction.
    pub fn call_function_type(self) -> Ty {
        Ty(unsafe { LLVMGetCalledFunctionType(self.0) })
    }

    /// Number of call arguments (operands minus the callee and bundles).
    pub fn call_num_args(self) -> u32 {
        unsafe { LLVMGetNumArgOperands(self.0) }
    }

    /// Whether call argument `arg` carries the enum attribute `attr` (e.g. `sret`).
    pub fn call_arg_has_attribute(self, arg: u32, attr: &str) -> bool {
        unsafe {
            let kind = LLVMGetEnumAttributeKindForName(attr.as_ptr() as *const _, attr.len());
            !LLVMGetCallSiteEnumAttribute(self.0, arg + 1, kind).is_null()
        }
    }

    /// Indices of an extractvalue/insertvalue.
    pub fn indices(self) -> Vec<u32> {
        let n = unsafe { LLVMGetNumIndices(self.0) } as usize;
        let p = unsafe { LLVMGetIndices(self.0) };
        if p.is_null() {
            return Vec::new();
        }
        unsafe { std::slice::from_raw_parts(p, n) }.to_vec()
    }

    /// Incoming (value, block) pairs of a phi.
    pub fn incoming(self) -> Vec<(Value, Block)> {
        let n = unsafe { LLVMCountIncoming(self.0) };
        (0..n)
            .map(|i| unsafe {
                (
                    Value(LLVMGetIncomingValue(self.0, i)),
                    Block(LLVMGetIncomingBlock(self.0, i)),
                )
            })
            .collect()
    }

    pub fn add_incoming(self, v: Value, b: Block) {
        let mut vals = [v.0];
        let mut blocks = [b.0];
        unsafe { LLVMAddIncoming(self.0, vals.as_mut_ptr(), blocks.as_mut_ptr(), 1) }
    }

    /// Mask of a shufflevector (`None` = undefined lane).
    pub fn shuffle_mask(self) -> Vec<Option<u32>> {
        let n = unsafe { LLVMGetNumMaskElements(self.0) };
        let undef = unsafe { LLVMGetUndefMaskElem() };
        (0..n)
            .map(|i| {
                let m = unsafe { LLVMGetMaskValue(self.0, i) };
                (m != undef && m >= 0).then_some(m as u32)
            })
            .collect()
    }

    /// Whether this is an `undef` or `poison` constant.
    pub fn is_undef_or_poison(self) -> bool {
        unsafe { LLVMIsUndef(self.0) != 0 || LLVMIsPoison(self.0) != 0 }
    }

    /// For a constant of fixed vector type with `undef`/`poison` lanes (or
    /// wholly undefined): the same constant with those lanes zero. `None`
    /// when there is nothing to replace.
    pub fn vector_constant_with_defined_lanes(self) -> Option<Value> {
        let ty = self.ty();
        if ty.kind() != super::TyKind::Vector || !self.is_constant() {
            return None;
        }
        let zero = unsafe { LLVMConstNull(ty.element().0) };
        if self.is_undef_or_poison() {
            return Some(Value(unsafe { LLVMConstNull(ty.0) }));
        }
        if unsafe { LLVMIsAConstantVector(self.0) }.is_null() {
            return None; // ConstantDataVector and zeroinitializer have no undefined lanes
        }
        let n = ty.len() as u32;
        let mut lanes: Vec<LLVMValueRef> = (0..n)
            .map(|k| unsafe { LLVMGetAggregateElement(self.0, k) })
            .collect();
        let mut changed = false;
        for l in lanes.iter_mut() {
            if l.is_null() || Value(*l).is_undef_or_poison() {
                *l = zero;
                changed = true;
            }
        }
        changed.then(|| Value(unsafe { LLVMConstVector(lanes.as_mut_ptr(), n) }))
    }

    /// Makes a call an ordinary call: no `tail`/`musttail`/`notail` marker.
    pub fn clear_tail_call_kind(self) {
        unsafe { LLVMSetTailCallKind(self.0, llvm_sys::LLVMTailCallKind::LLVMTailCallKindNone) }
    }

    /// Whether this is `undef`, `poison` or a null constant.
    pub fn is_undef_or_null(self) -> bool {
        unsafe { LLVMIsUndef(self.0) != 0 || LLVMIsPoison(self.0) != 0 || LLVMIsNull(self.0) != 0 }
    }

    /// Source element type of a GEP.
    pub fn gep_source_type(self) -> Ty {
        Ty(unsafe { LLVMGetGEPSourceElementType(self.0) })
    }

    /// Allocated type of an alloca.
    pub fn allocated_type(self) -> Ty {
        Ty(unsafe { LLVMGetAllocatedType(self.0) })
    }

    /// The instruction's module.
    pub fn module(self) -> Module {
        if self.is_instruction() {
            self.parent_block().parent().global_parent()
        } else if self.is_argument() {
            Value(unsafe { LLVMGetParamParent(self.0) }).global_parent()
        } else {
            self.global_parent()
        }
    }

    /// Predicate of an `icmp`.
    pub fn icmp_predicate(self) -> llvm_sys::LLVMIntPredicate {
        unsafe { LLVMGetICmpPredicate(self.0) }
    }

    /// The operation of an `atomicrmw`.
    pub fn atomic_rmw_op(self) -> llvm_sys::LLVMAtomicRMWBinOp {
        unsafe { LLVMGetAtomicRMWBinOp(self.0) }
    }

    /// Whether a load or store is volatile.
    pub fn is_volatile(self) -> bool {
        unsafe { LLVMGetVolatile(self.0) != 0 }
    }

    /// Whether a load or store is neither volatile nor atomic.
    pub fn is_simple_access(self) -> bool {
        !self.is_volatile()
            && unsafe { LLVMGetOrdering(self.0) }
                == llvm_sys::LLVMAtomicOrdering::LLVMAtomicOrderingNotAtomic
    }

    /// Whether an argument carries the `noalias` attribute.
    pub fn param_has_noalias(self) -> bool {
        let f = crate::Function(Value(unsafe { LLVMGetParamParent(self.0) }));
        let idx = f.params().iter().position(|p| *p == self).unwrap_or(0) as u32 + 1;
        unsafe {
            let kind = LLVMGetEnumAttributeKindForName(c"noalias".as_ptr(), 7);
            !LLVMGetEnumAttributeAtIndex(f.0 .0, idx, kind).is_null()
        }
    }

    /// Alignment of a load, store or alloca. LLVM allows 2^32, which its C
    /// API truncates to 0; that reads as 2^31 here (a weaker alignment is
    /// still true), so 0 means "none recorded" only for globals.
    pub fn alignment(self) -> u32 {
        match unsafe { LLVMGetAlignment(self.0) } {
            0 if self.is_instruction() => 1 << 31,
            a => a,
        }
    }

    /// Sets the alignment of a load, store or alloca; 0 (no alignment
    /// known) leaves the instruction's own alignment.
    pub fn set_alignment(self, align: u32) {
        if align != 0 {
            unsafe { LLVMSetAlignment(self.0, align) }
        }
    }

    /// The string of a `metadata !"..."` operand, if this is one.
    pub fn metadata_string(self) -> Option<String> {
        unsafe {
            if LLVMIsAMDString(self.0).is_null() {
                return None;
            }
            let mut len = 0u32;
            let p = LLVMGetMDString(self.0, &mut len);
            if p.is_null() {
                return None;
            }
            Some(
                String::from_utf8_lossy(std::slice::from_raw_parts(p as *const u8, len as usize))
                    .into_owned(),
            )
        }
    }

    /// Whether a function or global has no body or initializer here.
    pub fn is_declaration(self) -> bool {
        unsafe { LLVMIsDeclaration(self.0) != 0 }
    }

    pub fn global_parent(self) -> Module {
        unsafe { Module(LLVMGetGlobalParent(self.0)) }
    }

    /// The context this value lives in.
    pub fn context(self) -> Context {
        self.ty().context()
    }
}

impl Block {
    pub fn instructions(self) -> Vec<Value> {
        let mut out = Vec::new();
        let mut i = unsafe { LLVMGetFirstInstruction(self.0) };
        while !i.is_null() {
            out.push(Value(i));
            i = unsafe { LLVMGetNextInstruction(i) };
        }
        out
    }

    pub fn first_instruction(self) -> Option<Value> {
        let i = unsafe { LLVMGetFirstInstruction(self.0) };
        (!i.is_null()).then_some(Value(i))
    }

    /// First instruction that is not a phi.
    pub fn first_non_phi(self) -> Option<Value> {
        self.instructions()
            .into_iter()
            .find(|i| i.opcode() != Some(LLVMOpcode::LLVMPHI))
    }

    pub fn terminator(self) -> Option<Value> {
        let t = unsafe { LLVMGetBasicBlockTerminator(self.0) };
        (!t.is_null()).then_some(Value(t))
    }

    /// Removes `pred`'s entries from this block's phis (after the edge from
    /// `pred` was removed). The C API cannot remove a phi entry, so each
    /// affected phi is rebuilt without it.
    pub fn remove_phi_incoming_from(self, pred: Block) {
        for phi in self.instructions() {
            if phi.opcode() != Some(LLVMOpcode::LLVMPHI) {
                break;
            }
            let incoming = phi.incoming();
            if incoming.iter().all(|(_, b)| *b != pred) {
                continue;
            }
            let b = super::Builder::new(phi.context());
            b.position_before(phi);
            let new = b.phi(phi.ty(), &phi.name());
            for (v, from) in incoming.into_iter().filter(|(_, b)| *b != pred) {
                new.add_incoming(v, from);
            }
            phi.replace_all_uses_with(new);
            phi.erase();
        }
    }

    pub fn successors(self) -> Vec<Block> {
        let Some(t) = self.terminator() else {
            return Vec::new();
        };
        let n = unsafe { LLVMGetNumSuccessors(t.0) };
        (0..n)
            .map(|i| Block(unsafe { LLVMGetSuccessor(t.0, i) }))
            .collect()
    }

    pub fn as_value(self) -> Value {
        Value(unsafe { LLVMBasicBlockAsValue(self.0) })
    }

    pub fn from_value(v: Value) -> Block {
        Block(unsafe { LLVMValueAsBasicBlock(v.0) })
    }

    pub fn name(self) -> String {
        self.as_value().name()
    }

    /// The function holding this block.
    pub fn parent(self) -> Function {
        Function(Value(unsafe { LLVMGetBasicBlockParent(self.0) }))
    }
}

// ---- helpers for type analysis (read-only queries) ----
impl Value {
    /// A constant integer of at most 64 bits, sign-extended; `None` for
    /// anything else (including wider integers, which cannot be read safely).
    pub fn const_int_sext(self) -> Option<i64> {
        unsafe {
            if LLVMIsAConstantInt(self.0).is_null() {
                return None;
            }
            if LLVMGetIntTypeWidth(LLVMTypeOf(self.0)) > 64 {
                return None;
            }
            Some(LLVMConstIntGetSExtValue(self.0))
        }
    }

    /// Whether this value is a constant (including globals, functions and
    /// constant expressions).
    pub fn is_constant(self) -> bool {
        unsafe { LLVMIsConstant(self.0) != 0 }
    }

    /// The value type of a global variable or function.
    pub fn global_value_type(self) -> Ty {
        Ty(unsafe { LLVMGlobalGetValueType(self.0) })
    }

    /// The metadata node attached to an instruction under `kind` (e.g.
    /// `"tbaa"`), as a metadata value; `None` if absent or not a node.
    pub fn metadata_node(self, kind: &str) -> Option<Value> {
        if !self.is_instruction() {
            return None;
        }
        unsafe {
            let id = LLVMGetMDKindIDInContext(
                self.context().0,
                kind.as_ptr() as *const _,
                kind.len() as u32,
            );
            let md = LLVMGetMetadata(self.0, id);
            if md.is_null() || LLVMIsAMDNode(md).is_null() {
                return None;
            }
            Some(Value(md))
        }
    }

    /// Operands of a metadata node value (see [`Value::metadata_node`]).
    /// Nested nodes and strings come back as metadata values, constants as
    /// the constants themselves; missing operands are left out.
    pub fn md_node_operands(self) -> Vec<Value> {
        unsafe {
            if LLVMIsAMDNode(self.0).is_null() {
                return Vec::new();
            }
            let n = LLVMGetMDNodeNumOperands(self.0) as usize;
            let mut ops: Vec<LLVMValueRef> = vec![std::ptr::null_mut(); n];
            LLVMGetMDNodeOperands(self.0, ops.as_mut_ptr());
            ops.into_iter().map(Value).collect()
        }
    }

    /// The value printed as in an IR dump, every line (a function: its
    /// whole definition). One call numbers the function's values once,
    /// where [`Value::to_ir`] on each instruction would number them each time.
    pub fn to_ir_full(self) -> String {
        take_message(unsafe { LLVMPrintValueToString(self.0) })
    }
}
