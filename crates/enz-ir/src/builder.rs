//! An instruction builder: a thin owner of `LLVMBuilderRef` with typed helpers.

use super::{cstr, Block, Inst, Ty, TyKind, Value};
use crate::{Context, Module};
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::{LLVMIntPredicate, LLVMRealPredicate};

/// Builds instructions at a position; disposed on drop.
pub struct Builder<'m> {
    pub(crate) raw: LLVMBuilderRef,
    ctx: Context<'m>,
}

impl<'m> Drop for Builder<'m> {
    fn drop(&mut self) {
        unsafe { LLVMDisposeBuilder(self.raw) }
    }
}

impl<'m> Builder<'m> {
    pub fn new(ctx: Context<'m>) -> Builder<'m> {
        Builder {
            raw: unsafe { LLVMCreateBuilderInContext(ctx.0) },
            ctx,
        }
    }

    pub fn ctx(&self) -> Context<'m> {
        self.ctx
    }

    /// Positions at the end of `b`. Panics ("stale handle") for a deleted
    /// block, or a block of a deleted function.
    pub fn position_at_end(&self, b: Block<'m>) {
        crate::graveyard::check_live(b.parent().0 .0, "function deleted (a builder in it)");
        unsafe { LLVMPositionBuilderAtEnd(self.raw, b.0) }
    }

    /// Positions right before `i`. Panics ("stale handle") for an erased
    /// instruction.
    pub fn position_before(&self, i: Inst<'m>) {
        i.parent_block();
        unsafe { LLVMPositionBuilderBefore(self.raw, i.0 .0) }
    }

    /// Positions right after instruction `i` (after all phis if `i` is a phi).
    pub fn position_after(&self, i: Inst<'m>) {
        let b = i.parent_block();
        let next = if i.opcode() == Some(llvm_sys::LLVMOpcode::LLVMPHI) {
            b.first_non_phi()
        } else {
            i.next_instruction()
        };
        match next {
            Some(n) => self.position_before(n),
            None => self.position_at_end(b),
        }
    }

    pub fn insert_block(&self) -> Block<'m> {
        Block::wrap(unsafe { LLVMGetInsertBlock(self.raw) })
    }

    fn module(&self) -> Module<'m> {
        self.insert_block().parent().global_parent()
    }

    /// Inserts an already created (cloned) instruction at the position.
    pub fn insert(&self, i: Inst<'m>) {
        crate::graveyard::check_live(i.0 .0, "instruction erased (inserted again)");
        unsafe { LLVMInsertIntoBuilder(self.raw, i.0 .0) }
    }

    // ---- constants ----

    /// `v` as a constant of float type `ty` (splatted for vectors).
    pub fn const_float(&self, ty: Ty<'m>, v: f64) -> Value<'m> {
        if ty.kind() == TyKind::Vector {
            let e = self.const_float(ty.element(), v);
            let n = ty.len() as usize;
            let mut elems = vec![e.0; n];
            return Value::wrap(unsafe { LLVMConstVector(elems.as_mut_ptr(), n as u32) });
        }
        Value::wrap(unsafe { LLVMConstReal(ty.0, v) })
    }

    pub fn const_int(&self, ty: Ty<'m>, v: i64) -> Value<'m> {
        Value::wrap(unsafe { LLVMConstInt(ty.0, v as u64, 1) })
    }

    pub fn i32(&self, v: i64) -> Value<'m> {
        self.const_int(Ty::int(self.ctx, 32), v)
    }

    pub fn zero(&self, ty: Ty<'m>) -> Value<'m> {
        Value::wrap(unsafe { LLVMConstNull(ty.0) })
    }

    pub fn poison(&self, ty: Ty<'m>) -> Value<'m> {
        Value::wrap(unsafe { LLVMGetPoison(ty.0) })
    }

    // ---- arithmetic ----

    /// `shufflevector a, b, mask` with every mask lane defined.
    pub fn shuffle_vector(&self, a: Value<'m>, b: Value<'m>, mask: &[u32]) -> Value<'m> {
        let i32t = unsafe { LLVMInt32TypeInContext(self.ctx().0) };
        let mut lanes: Vec<LLVMValueRef> = mask
            .iter()
            .map(|m| unsafe { LLVMConstInt(i32t, u64::from(*m), 0) })
            .collect();
        let mask = unsafe { LLVMConstVector(lanes.as_mut_ptr(), lanes.len() as u32) };
        Value::wrap(unsafe { LLVMBuildShuffleVector(self.raw, a.0, b.0, mask, c"".as_ptr()) })
    }

    pub fn fadd(&self, a: Value<'m>, b: Value<'m>) -> Value<'m> {
        Value::wrap(unsafe { LLVMBuildFAdd(self.raw, a.0, b.0, c"".as_ptr()) })
    }

    /// `fadd reassoc a, b`: an addition that may be reassociated with
    /// others of its kind (so that a sum over a loop may be vectorized).
    pub fn fadd_reassoc(&self, a: Value<'m>, b: Value<'m>) -> Value<'m> {
        self.fadd(a, b).allow_reassoc()
    }

    pub fn fsub(&self, a: Value<'m>, b: Value<'m>) -> Value<'m> {
        Value::wrap(unsafe { LLVMBuildFSub(self.raw, a.0, b.0, c"".as_ptr()) })
    }

    pub fn fmul(&self, a: Value<'m>, b: Value<'m>) -> Value<'m> {
        Value::wrap(unsafe { LLVMBuildFMul(self.raw, a.0, b.0, c"".as_ptr()) })
    }

    pub fn fdiv(&self, a: Value<'m>, b: Value<'m>) -> Value<'m> {
        Value::wrap(unsafe { LLVMBuildFDiv(self.raw, a.0, b.0, c"".as_ptr()) })
    }

    pub fn fneg(&self, a: Value<'m>) -> Value<'m> {
        Value::wrap(unsafe { LLVMBuildFNeg(self.raw, a.0, c"".as_ptr()) })
    }

    pub fn add(&self, a: Value<'m>, b: Value<'m>) -> Value<'m> {
        Value::wrap(unsafe { LLVMBuildAdd(self.raw, a.0, b.0, c"".as_ptr()) })
    }

    pub fn fcmp(&self, pred: LLVMRealPredicate, a: Value<'m>, b: Value<'m>) -> Value<'m> {
        Value::wrap(unsafe { LLVMBuildFCmp(self.raw, pred, a.0, b.0, c"".as_ptr()) })
    }

    pub fn select(&self, c: Value<'m>, a: Value<'m>, b: Value<'m>) -> Value<'m> {
        Value::wrap(unsafe { LLVMBuildSelect(self.raw, c.0, a.0, b.0, c"".as_ptr()) })
    }

    pub fn fp_cast(&self, v: Value<'m>, to: Ty<'m>) -> Value<'m> {
        Value::wrap(unsafe { LLVMBuildFPCast(self.raw, v.0, to.0, c"".as_ptr()) })
    }

    /// `freeze v`.
    pub fn freeze(&self, v: Value<'m>) -> Value<'m> {
        Value::wrap(unsafe { LLVMBuildFreeze(self.raw, v.0, c"".as_ptr()) })
    }

    /// `bitcast v to to` (folded when `v` is a constant).
    pub fn bit_cast(&self, v: Value<'m>, to: Ty<'m>) -> Value<'m> {
        Value::wrap(unsafe { LLVMBuildBitCast(self.raw, v.0, to.0, c"".as_ptr()) })
    }

    pub fn si_to_fp(&self, v: Value<'m>, to: Ty<'m>) -> Value<'m> {
        Value::wrap(unsafe { LLVMBuildSIToFP(self.raw, v.0, to.0, c"".as_ptr()) })
    }

    // ---- aggregates ----

    pub fn extract_value(&self, agg: Value<'m>, idx: u32) -> Value<'m> {
        Value::wrap(unsafe { LLVMBuildExtractValue(self.raw, agg.0, idx, c"".as_ptr()) })
    }

    pub fn insert_value(&self, agg: Value<'m>, v: Value<'m>, idx: u32) -> Value<'m> {
        Value::wrap(unsafe { LLVMBuildInsertValue(self.raw, agg.0, v.0, idx, c"".as_ptr()) })
    }

    pub fn extract_element(&self, vec: Value<'m>, idx: Value<'m>) -> Value<'m> {
        Value::wrap(unsafe { LLVMBuildExtractElement(self.raw, vec.0, idx.0, c"".as_ptr()) })
    }

    pub fn insert_element(&self, vec: Value<'m>, v: Value<'m>, idx: Value<'m>) -> Value<'m> {
        Value::wrap(unsafe { LLVMBuildInsertElement(self.raw, vec.0, v.0, idx.0, c"".as_ptr()) })
    }

    /// Extracts member `idx` of a struct/array (extractvalue) or vector (extractelement).
    pub fn extract_member(&self, agg: Value<'m>, idx: u32) -> Value<'m> {
        if agg.ty().kind() == TyKind::Vector {
            self.extract_element(agg, self.i32(i64::from(idx)))
        } else {
            self.extract_value(agg, idx)
        }
    }

    /// Inserts member `idx` of a struct/array (insertvalue) or vector (insertelement).
    pub fn insert_member(&self, agg: Value<'m>, v: Value<'m>, idx: u32) -> Value<'m> {
        if agg.ty().kind() == TyKind::Vector {
            self.insert_element(agg, v, self.i32(i64::from(idx)))
        } else {
            self.insert_value(agg, v, idx)
        }
    }

    // ---- memory ----

    pub fn alloca(&self, ty: Ty<'m>, name: &str) -> Value<'m> {
        let n = cstr(name);
        Value::wrap(unsafe { LLVMBuildAlloca(self.raw, ty.0, n.as_ptr()) })
    }

    /// `alloca ty, i64 n` (a dynamic array on the stack).
    pub fn array_alloca(&self, ty: Ty<'m>, n: Value<'m>) -> Value<'m> {
        Value::wrap(unsafe { LLVMBuildArrayAlloca(self.raw, ty.0, n.0, c"cache".as_ptr()) })
    }

    pub fn load(&self, ty: Ty<'m>, ptr: Value<'m>) -> Value<'m> {
        Value::wrap(unsafe { LLVMBuildLoad2(self.raw, ty.0, ptr.0, c"".as_ptr()) })
    }

    pub fn store(&self, v: Value<'m>, ptr: Value<'m>) -> Value<'m> {
        Value::wrap(unsafe { LLVMBuildStore(self.raw, v.0, ptr.0) })
    }

    /// `getelementptr inbounds i8, ptr, i64 offset`.
    pub fn byte_gep(&self, ptr: Value<'m>, offset: u64) -> Value<'m> {
        let i8t = Ty::int(self.ctx, 8);
        let mut idx = [self.const_int(Ty::int(self.ctx, 64), offset as i64).0];
        Value::wrap(unsafe {
            LLVMBuildInBoundsGEP2(self.raw, i8t.0, ptr.0, idx.as_mut_ptr(), 1, c"".as_ptr())
        })
    }

    /// `memset(ptr, 0, bytes)`.
    pub fn memset_zero(&self, ptr: Value<'m>, bytes: Value<'m>) -> Value<'m> {
        let zero = self.const_int(Ty::int(self.ctx, 8), 0);
        Value::wrap(unsafe { LLVMBuildMemSet(self.raw, ptr.0, zero.0, bytes.0, 1) })
    }

    /// `memcpy(dst, src, bytes)`.
    pub fn memcpy(&self, dst: Value<'m>, src: Value<'m>, bytes: Value<'m>) -> Value<'m> {
        Value::wrap(unsafe { LLVMBuildMemCpy(self.raw, dst.0, 1, src.0, 1, bytes.0) })
    }

    /// `addrspacecast v to ty`.
    pub fn addrspace_cast(&self, v: Value<'m>, ty: Ty<'m>) -> Value<'m> {
        Value::wrap(unsafe { LLVMBuildAddrSpaceCast(self.raw, v.0, ty.0, c"".as_ptr()) })
    }

    /// `atomicrmw fadd ptr, v monotonic` (relaxed: only the sum matters).
    pub fn atomic_fadd(&self, ptr: Value<'m>, v: Value<'m>) -> Value<'m> {
        Value::wrap(unsafe {
            LLVMBuildAtomicRMW(
                self.raw,
                llvm_sys::LLVMAtomicRMWBinOp::LLVMAtomicRMWBinOpFAdd,
                ptr.0,
                v.0,
                llvm_sys::LLVMAtomicOrdering::LLVMAtomicOrderingMonotonic,
                0,
            )
        })
    }

    /// `memmove(dst, src, bytes)`.
    pub fn memmove(&self, dst: Value<'m>, src: Value<'m>, bytes: Value<'m>) -> Value<'m> {
        Value::wrap(unsafe { LLVMBuildMemMove(self.raw, dst.0, 1, src.0, 1, bytes.0) })
    }

    /// `malloc(bytes)` (bytes: i64).
    pub fn malloc(&self, bytes: Value<'m>) -> Inst<'m> {
        let ptr = Ty::wrap(unsafe { LLVMPointerTypeInContext(self.ctx.0, 0) });
        let fty = Ty::function(ptr, &[Ty::int(self.ctx, 64)], false);
        let b = self.int_cast(bytes, Ty::int(self.ctx, 64));
        self.call_named("malloc", fty, &[b])
    }

    /// `free(ptr)`.
    pub fn free(&self, ptr: Value<'m>) -> Inst<'m> {
        let pty = Ty::wrap(unsafe { LLVMPointerTypeInContext(self.ctx.0, 0) });
        let fty = Ty::function(Ty::void(self.ctx), &[pty], false);
        self.call_named("free", fty, &[ptr])
    }

    /// Integer resize (zero-extending).
    pub fn int_cast(&self, v: Value<'m>, to: Ty<'m>) -> Value<'m> {
        if v.ty() == to {
            return v;
        }
        Value::wrap(unsafe { LLVMBuildIntCast2(self.raw, v.0, to.0, 0, c"".as_ptr()) })
    }

    /// The address `v` as an integer of type `to`.
    pub fn ptr_to_int(&self, v: Value<'m>, to: Ty<'m>) -> Value<'m> {
        Value::wrap(unsafe { LLVMBuildPtrToInt(self.raw, v.0, to.0, c"".as_ptr()) })
    }

    /// `inttoptr`: a constant expression when `v` is a constant (no
    /// insertion point needed then).
    pub fn int_to_ptr(&self, v: Value<'m>, to: Ty<'m>) -> Value<'m> {
        Value::wrap(unsafe { LLVMBuildIntToPtr(self.raw, v.0, to.0, c"".as_ptr()) })
    }

    /// An integer width change that sign-extends when it widens.
    pub fn signed_int_cast(&self, v: Value<'m>, to: Ty<'m>) -> Value<'m> {
        Value::wrap(unsafe { LLVMBuildIntCast2(self.raw, v.0, to.0, 1, c"".as_ptr()) })
    }

    pub fn sub(&self, a: Value<'m>, b: Value<'m>) -> Value<'m> {
        Value::wrap(unsafe { LLVMBuildSub(self.raw, a.0, b.0, c"".as_ptr()) })
    }

    /// Integer resize (sign-extending).
    pub fn sext(&self, v: Value<'m>, to: Ty<'m>) -> Value<'m> {
        if v.ty() == to {
            return v;
        }
        Value::wrap(unsafe { LLVMBuildIntCast2(self.raw, v.0, to.0, 1, c"".as_ptr()) })
    }

    /// Bitwise or.
    pub fn or(&self, a: Value<'m>, b: Value<'m>) -> Value<'m> {
        Value::wrap(unsafe { LLVMBuildOr(self.raw, a.0, b.0, c"".as_ptr()) })
    }

    pub fn and(&self, a: Value<'m>, b: Value<'m>) -> Value<'m> {
        Value::wrap(unsafe { LLVMBuildAnd(self.raw, a.0, b.0, c"".as_ptr()) })
    }

    /// Bitwise exclusive or.
    pub fn xor(&self, a: Value<'m>, b: Value<'m>) -> Value<'m> {
        Value::wrap(unsafe { LLVMBuildXor(self.raw, a.0, b.0, c"".as_ptr()) })
    }

    pub fn mul(&self, a: Value<'m>, b: Value<'m>) -> Value<'m> {
        Value::wrap(unsafe { LLVMBuildMul(self.raw, a.0, b.0, c"".as_ptr()) })
    }

    pub fn udiv(&self, a: Value<'m>, b: Value<'m>) -> Value<'m> {
        Value::wrap(unsafe { LLVMBuildUDiv(self.raw, a.0, b.0, c"".as_ptr()) })
    }

    pub fn icmp(&self, pred: LLVMIntPredicate, a: Value<'m>, b: Value<'m>) -> Value<'m> {
        Value::wrap(unsafe { LLVMBuildICmp(self.raw, pred, a.0, b.0, c"".as_ptr()) })
    }

    /// `getelementptr ty, ptr, indices...`.
    pub fn gep(&self, ty: Ty<'m>, ptr: Value<'m>, indices: &[Value<'m>]) -> Value<'m> {
        let mut idx: Vec<LLVMValueRef> = indices.iter().map(|v| v.0).collect();
        Value::wrap(unsafe {
            LLVMBuildGEP2(
                self.raw,
                ty.0,
                ptr.0,
                idx.as_mut_ptr(),
                idx.len() as u32,
                c"".as_ptr(),
            )
        })
    }

    // ---- control flow ----

    pub fn cond_br(&self, c: Value<'m>, t: Block<'m>, f: Block<'m>) -> Value<'m> {
        Value::wrap(unsafe { LLVMBuildCondBr(self.raw, c.0, t.0, f.0) })
    }

    pub fn br(&self, to: Block<'m>) -> Value<'m> {
        Value::wrap(unsafe { LLVMBuildBr(self.raw, to.0) })
    }

    pub fn switch(
        &self,
        v: Value<'m>,
        default: Block<'m>,
        cases: &[(Value<'m>, Block<'m>)],
    ) -> Value<'m> {
        let s = unsafe { LLVMBuildSwitch(self.raw, v.0, default.0, cases.len() as u32) };
        for (c, b) in cases {
            unsafe { LLVMAddCase(s, c.0, b.0) };
        }
        Value::wrap(s)
    }

    pub fn ret(&self, v: Option<Value<'m>>) -> Value<'m> {
        Value::wrap(match v {
            Some(v) => unsafe { LLVMBuildRet(self.raw, v.0) },
            None => unsafe { LLVMBuildRetVoid(self.raw) },
        })
    }

    pub fn unreachable(&self) -> Value<'m> {
        Value::wrap(unsafe { LLVMBuildUnreachable(self.raw) })
    }

    pub fn phi(&self, ty: Ty<'m>, name: &str) -> Inst<'m> {
        let n = cstr(name);
        Inst(Value::wrap(unsafe {
            LLVMBuildPhi(self.raw, ty.0, n.as_ptr())
        }))
    }

    // ---- calls ----

    pub fn call(
        &self,
        fn_ty: Ty<'m>,
        callee: impl Into<Value<'m>>,
        args: &[Value<'m>],
    ) -> Inst<'m> {
        let callee: Value<'m> = callee.into();
        let mut raw: Vec<LLVMValueRef> = args.iter().map(|a| a.0).collect();
        Inst(Value::wrap(unsafe {
            LLVMBuildCall2(
                self.raw,
                fn_ty.0,
                callee.0,
                raw.as_mut_ptr(),
                raw.len() as u32,
                c"".as_ptr(),
            )
        }))
    }

    /// Calls the intrinsic `name` (e.g. `llvm.cos`) overloaded on `overload`.
    pub fn call_intrinsic(&self, name: &str, overload: &[Ty<'m>], args: &[Value<'m>]) -> Inst<'m> {
        let id = unsafe { LLVMLookupIntrinsicID(name.as_ptr() as *const _, name.len()) };
        assert!(id != 0, "unknown intrinsic {name}");
        let mut tys: Vec<LLVMTypeRef> = overload.iter().map(|t| t.0).collect();
        let decl = unsafe {
            LLVMGetIntrinsicDeclaration(self.module().0, id, tys.as_mut_ptr(), tys.len())
        };
        let fty = unsafe { LLVMIntrinsicGetType(self.ctx.0, id, tys.as_mut_ptr(), tys.len()) };
        self.call(Ty::wrap(fty), Value::wrap(decl), args)
    }

    /// A pointer to a new private constant holding `s` and a NUL, named
    /// `name` (the builder must be positioned in a function).
    pub fn global_string(&self, s: &str, name: &str) -> Value<'m> {
        let (cs, cn) = (cstr(s), cstr(name));
        // SAFETY: the builder is positioned; both strings outlive the call.
        Value::wrap(unsafe { LLVMBuildGlobalString(self.raw, cs.as_ptr(), cn.as_ptr()) })
    }

    /// Calls the external function `name` of type `fn_ty`, declaring it if needed.
    pub fn call_named(&self, name: &str, fn_ty: Ty<'m>, args: &[Value<'m>]) -> Inst<'m> {
        let m = self.module();
        let c = cstr(name);
        let mut f = unsafe { LLVMGetNamedFunction(m.0, c.as_ptr()) };
        if f.is_null() {
            f = unsafe { LLVMAddFunction(m.0, c.as_ptr(), fn_ty.0) };
        }
        self.call(fn_ty, Value::wrap(f), args)
    }
}
