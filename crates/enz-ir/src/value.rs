//! LLVM values and basic blocks: identity, inspection and navigation.

use super::{cstr, take_message, Ty};
use crate::{Context, Function, Inst, Module};
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::LLVMOpcode;
use std::marker::PhantomData;

/// An LLVM value (instruction, argument, constant, function, global...).
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Value<'m>(pub(crate) LLVMValueRef, PhantomData<&'m ()>);

/// An LLVM basic block.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct Block<'m>(pub(crate) LLVMBasicBlockRef, PhantomData<&'m ()>);

impl<'m> Block<'m> {
    /// The handle of a raw reference (the IR layer only: the reference must
    /// be live for `'m`).
    pub(crate) fn wrap(raw: LLVMBasicBlockRef) -> Block<'m> {
        Block(raw, PhantomData)
    }
}

impl<'m> Value<'m> {
    /// The handle of a raw reference (the IR layer only: the reference must
    /// be live for `'m`).
    pub(crate) fn wrap(raw: LLVMValueRef) -> Value<'m> {
        Value(raw, PhantomData)
    }

    /// The handle of an operand read from a user: null only in an erased
    /// instruction, whose operands were dropped (a stale handle).
    pub(crate) fn operand_wrap(raw: LLVMValueRef) -> Value<'m> {
        if raw.is_null() {
            crate::graveyard::stale("instruction erased (an operand read)");
        }
        Value(raw, PhantomData)
    }
}

impl<'m> Value<'m> {
    pub fn ty(self) -> Ty<'m> {
        Ty::wrap(unsafe { LLVMTypeOf(self.0) })
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

    pub fn operand(self, i: u32) -> Value<'m> {
        Value::operand_wrap(unsafe { LLVMGetOperand(self.0, i) })
    }

    pub fn operands(self) -> Vec<Value<'m>> {
        (0..self.num_operands()).map(|i| self.operand(i)).collect()
    }

    pub fn set_operand(self, i: u32, v: Value<'m>) {
        crate::graveyard::check_live(self.0, "instruction erased (an operand set)");
        crate::graveyard::check_live(v.0, "value erased (made an operand)");
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

    /// Makes every use of this value use `with`. Panics ("stale handle")
    /// when either was erased.
    pub fn replace_all_uses_with(self, with: impl Into<Value<'m>>) {
        let with = with.into();
        crate::graveyard::check_live(self.0, "value erased (its uses replaced)");
        crate::graveyard::check_live(with.0, "value erased (uses replaced with it)");
        unsafe { LLVMReplaceAllUsesWith(self.0, with.0) }
    }

    /// Users of this value (one entry per use).
    pub fn users(self) -> Vec<Value<'m>> {
        let mut out = Vec::new();
        let mut u = unsafe { LLVMGetFirstUse(self.0) };
        while !u.is_null() {
            out.push(Value::wrap(unsafe { LLVMGetUser(u) }));
            u = unsafe { LLVMGetNextUse(u) };
        }
        out
    }

    pub fn has_uses(self) -> bool {
        !unsafe { LLVMGetFirstUse(self.0) }.is_null()
    }

    /// Strips pointer casts and global aliases; `Some` if a function remains.
    pub fn strip_to_function(self) -> Option<Function<'m>> {
        let mut v = self;
        for _ in 0..16 {
            if let Some(f) = v.as_function() {
                return Some(f);
            }
            if !unsafe { llvm_sys::core::LLVMIsAGlobalAlias(v.0) }.is_null() {
                v = Value::wrap(unsafe { LLVMAliasGetAliasee(v.0) });
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

    /// Indices of an extractvalue/insertvalue.
    pub fn indices(self) -> Vec<u32> {
        let n = unsafe { LLVMGetNumIndices(self.0) } as usize;
        let p = unsafe { LLVMGetIndices(self.0) };
        if p.is_null() {
            return Vec::new();
        }
        unsafe { std::slice::from_raw_parts(p, n) }.to_vec()
    }

    /// Whether this is an `undef` or `poison` constant.
    /// Whether this is a plain integer constant, or a vector of them (no
    /// constant expression: a `ptrtoint` of a global is not plain).
    pub fn is_plain_integer_constant(self) -> bool {
        let ty = self.ty();
        let int_like =
            ty.is_integer() || (ty.kind() == crate::TyKind::Vector && ty.element().is_integer());
        int_like && self.as_inst().is_none() && self.is_constant() && !self.is_constant_expr()
    }

    pub fn is_undef_or_poison(self) -> bool {
        unsafe { LLVMIsUndef(self.0) != 0 || LLVMIsPoison(self.0) != 0 }
    }

    /// For a constant of fixed vector type with `undef`/`poison` lanes (or
    /// wholly undefined): the same constant with those lanes zero. `None`
    /// when there is nothing to replace.
    pub fn vector_constant_with_defined_lanes(self) -> Option<Value<'m>> {
        let ty = self.ty();
        if ty.kind() != super::TyKind::Vector || !self.is_constant() {
            return None;
        }
        let zero = unsafe { LLVMConstNull(ty.element().0) };
        if self.is_undef_or_poison() {
            return Some(Value::wrap(unsafe { LLVMConstNull(ty.0) }));
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
            if l.is_null() || Value::wrap(*l).is_undef_or_poison() {
                *l = zero;
                changed = true;
            }
        }
        changed.then(|| Value::wrap(unsafe { LLVMConstVector(lanes.as_mut_ptr(), n) }))
    }

    /// Whether this is `undef`, `poison` or a null constant.
    pub fn is_undef_or_null(self) -> bool {
        unsafe { LLVMIsUndef(self.0) != 0 || LLVMIsPoison(self.0) != 0 || LLVMIsNull(self.0) != 0 }
    }

    /// Source element type of a GEP.
    pub fn gep_source_type(self) -> Ty<'m> {
        Ty::wrap(unsafe { LLVMGetGEPSourceElementType(self.0) })
    }

    /// The instruction's module.
    pub fn module(self) -> Module<'m> {
        if self.is_instruction() {
            Inst(self).parent_block().parent().global_parent()
        } else if self.is_argument() {
            Value::wrap(unsafe { LLVMGetParamParent(self.0) }).global_parent()
        } else {
            self.global_parent()
        }
    }

    /// Predicate of an `icmp`.
    pub fn icmp_predicate(self) -> llvm_sys::LLVMIntPredicate {
        unsafe { LLVMGetICmpPredicate(self.0) }
    }

    /// Adds the `reassoc` and `nsz` fast-math flags to a floating-point
    /// operation (what LLVM needs to treat it as associative, e.g. in a
    /// vectorised sum; the builder may have folded it to a constant or an
    /// operand: then nothing); returns `self`.
    pub fn allow_reassoc(self) -> Value<'m> {
        // SAFETY: the flags are only set on an instruction that can carry
        // them (checked first).
        unsafe {
            if !LLVMIsAInstruction(self.0).is_null() && LLVMCanValueUseFastMathFlags(self.0) != 0 {
                let old = LLVMGetFastMathFlags(self.0);
                LLVMSetFastMathFlags(
                    self.0,
                    old | llvm_sys::LLVMFastMathAllowReassoc | llvm_sys::LLVMFastMathNoSignedZeros,
                );
            }
        }
        self
    }

    /// Whether this is an `or disjoint` (no common bits: an addition).
    pub fn is_disjoint_or(self) -> bool {
        self.opcode() == Some(llvm_sys::LLVMOpcode::LLVMOr)
            // SAFETY: `self` is an `or` instruction (checked above).
            && unsafe { LLVMGetIsDisjoint(self.0) } != 0
    }

    /// Whether an argument carries the `noalias` attribute.
    pub fn param_has_noalias(self) -> bool {
        let f = crate::Function(Value::wrap(unsafe { LLVMGetParamParent(self.0) }));
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

    /// The assembly and constraint strings of an inline `asm` value (a
    /// call's callee), if this is one.
    pub fn inline_asm(self) -> Option<(String, String)> {
        // SAFETY: `self` is checked to be an InlineAsm before its strings
        // are read; LLVM owns them and gives their lengths.
        unsafe {
            if llvm_sys::core::LLVMIsAInlineAsm(self.0).is_null() {
                return None;
            }
            let read = |p: *const std::os::raw::c_char, len: usize| {
                if p.is_null() {
                    String::new()
                } else {
                    String::from_utf8_lossy(std::slice::from_raw_parts(p as *const u8, len))
                        .into_owned()
                }
            };
            let mut len = 0usize;
            let asm = llvm_sys::core::LLVMGetInlineAsmAsmString(self.0, &mut len);
            let asm = read(asm, len);
            let cons = llvm_sys::core::LLVMGetInlineAsmConstraintString(self.0, &mut len);
            Some((asm, read(cons, len)))
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

    /// The C string a pointer constant points to: a global constant
    /// initialised with a byte string (`c"log1p\00"`), possibly through
    /// constant casts; without the terminating NUL.
    pub fn c_string_pointee(self) -> Option<String> {
        let mut p = self;
        while !p.is_global_variable() && !p.is_instruction() && p.num_operands() > 0 {
            p = p.operand(0);
        }
        if !p.is_global_variable() {
            return None;
        }
        unsafe {
            let init = LLVMGetInitializer(p.0);
            if init.is_null() || LLVMIsConstantString(init) == 0 {
                return None;
            }
            let mut len = 0usize;
            let s = LLVMGetAsString(init, &mut len);
            if s.is_null() {
                return None;
            }
            let bytes = std::slice::from_raw_parts(s as *const u8, len);
            let bytes = bytes.split(|b| *b == 0).next().unwrap_or(&[]);
            Some(String::from_utf8_lossy(bytes).into_owned())
        }
    }

    /// Whether a function or global has no body or initializer here.
    pub fn is_declaration(self) -> bool {
        unsafe { LLVMIsDeclaration(self.0) != 0 }
    }

    /// The module of a function or global. Panics ("stale handle") for a
    /// deleted one.
    pub fn global_parent(self) -> Module<'m> {
        let m = unsafe { LLVMGetGlobalParent(self.0) };
        if m.is_null() {
            crate::graveyard::stale("function or global deleted (its module asked)");
        }
        Module::wrap(m)
    }

    /// The context this value lives in.
    pub fn context(self) -> Context<'m> {
        self.ty().context()
    }
}

impl<'m> Block<'m> {
    pub fn instructions(self) -> Vec<Inst<'m>> {
        let mut out = Vec::new();
        let mut i = unsafe { LLVMGetFirstInstruction(self.0) };
        while !i.is_null() {
            out.push(Inst(Value::wrap(i)));
            i = unsafe { LLVMGetNextInstruction(i) };
        }
        out
    }

    pub fn first_instruction(self) -> Option<Inst<'m>> {
        let i = unsafe { LLVMGetFirstInstruction(self.0) };
        (!i.is_null()).then_some(Inst(Value::wrap(i)))
    }

    /// First instruction that is not a phi.
    pub fn first_non_phi(self) -> Option<Inst<'m>> {
        self.instructions()
            .into_iter()
            .find(|i| i.opcode() != Some(LLVMOpcode::LLVMPHI))
    }

    pub fn terminator(self) -> Option<Inst<'m>> {
        let t = unsafe { LLVMGetBasicBlockTerminator(self.0) };
        (!t.is_null()).then_some(Inst(Value::wrap(t)))
    }

    /// Removes `pred`'s entries from this block's phis (after the edge from
    /// `pred` was removed). The C API cannot remove a phi entry, so each
    /// affected phi is rebuilt without it.
    pub fn remove_phi_incoming_from(self, pred: Block<'m>) {
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

    pub fn successors(self) -> Vec<Block<'m>> {
        let Some(t) = self.terminator() else {
            return Vec::new();
        };
        let n = unsafe { LLVMGetNumSuccessors(t.0 .0) };
        (0..n)
            .map(|i| Block::wrap(unsafe { LLVMGetSuccessor(t.0 .0, i) }))
            .collect()
    }

    pub fn as_value(self) -> Value<'m> {
        Value::wrap(unsafe { LLVMBasicBlockAsValue(self.0) })
    }

    pub fn from_value(v: Value<'m>) -> Block<'m> {
        Block::wrap(unsafe { LLVMValueAsBasicBlock(v.0) })
    }

    pub fn name(self) -> String {
        self.as_value().name()
    }

    /// The function holding this block. Panics ("stale handle") for a
    /// deleted block.
    pub fn parent(self) -> Function<'m> {
        let f = unsafe { LLVMGetBasicBlockParent(self.0) };
        if f.is_null() {
            crate::graveyard::stale("block deleted (its function asked)");
        }
        Function(Value::wrap(f))
    }

    /// Removes this block, which must no longer be a branch target (else
    /// an internal-error panic), from its function, erasing its
    /// instructions (last first; each must be unused but by those after
    /// it). It is kept alive until no handle can reach it (see
    /// ARCHITECTURE.md, "Invariants").
    pub fn delete(self) {
        crate::graveyard::delete_block(self.0)
    }
}

// ---- helpers for type analysis (read-only queries) ----
impl<'m> Value<'m> {
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

    /// A scalar floating-point constant as an `f64` (rounded when wider);
    /// `None` for anything else.
    pub fn const_float_value(self) -> Option<f64> {
        unsafe {
            if LLVMIsAConstantFP(self.0).is_null() {
                return None;
            }
            let mut lost = 0;
            Some(LLVMConstRealGetDouble(self.0, &mut lost))
        }
    }

    /// Whether this value is a constant (including globals, functions and
    /// constant expressions).
    pub fn is_constant(self) -> bool {
        unsafe { LLVMIsConstant(self.0) != 0 }
    }

    /// The value type of a global variable or function.
    pub fn global_value_type(self) -> Ty<'m> {
        Ty::wrap(unsafe { LLVMGlobalGetValueType(self.0) })
    }

    /// The metadata node attached to an instruction under `kind` (e.g.
    /// `"tbaa"`), as a metadata value; `None` if absent or not a node.
    pub fn metadata_node(self, kind: &str) -> Option<Value<'m>> {
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
            Some(Value::wrap(md))
        }
    }

    /// Attaches an empty metadata node under `kind` to an instruction: a
    /// mark that [`Value::metadata_node`] finds (names may be discarded).
    pub fn set_mark(self, kind: &str) {
        if !self.is_instruction() {
            return;
        }
        // SAFETY: the node is made in the instruction's context and
        // attached to a live instruction.
        unsafe {
            let ctx = self.context().0;
            let id = LLVMGetMDKindIDInContext(ctx, kind.as_ptr() as *const _, kind.len() as u32);
            let node = LLVMMDNodeInContext2(ctx, std::ptr::null_mut(), 0);
            LLVMSetMetadata(self.0, id, LLVMMetadataAsValue(ctx, node));
        }
    }

    /// Operands of a metadata node value (see [`Value::metadata_node`]).
    /// Nested nodes and strings come back as metadata values, constants as
    /// the constants themselves; missing operands are left out.
    pub fn md_node_operands(self) -> Vec<Value<'m>> {
        unsafe {
            if LLVMIsAMDNode(self.0).is_null() {
                return Vec::new();
            }
            let n = LLVMGetMDNodeNumOperands(self.0) as usize;
            let mut ops: Vec<LLVMValueRef> = vec![std::ptr::null_mut(); n];
            LLVMGetMDNodeOperands(self.0, ops.as_mut_ptr());
            ops.into_iter().map(Value::wrap).collect()
        }
    }

    /// The value printed as in an IR dump, every line (a function: its
    /// whole definition). One call numbers the function's values once,
    /// where [`Value::to_ir`] on each instruction would number them each time.
    pub fn to_ir_full(self) -> String {
        take_message(unsafe { LLVMPrintValueToString(self.0) })
    }
}
