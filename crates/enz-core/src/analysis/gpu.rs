//! GPU (NVPTX) facts for synthesis: how an adjoint is accumulated into the
//! shadow of each primal pointer when many threads run the same reverse
//! sweep, and which values are thread ids.
//!
//! [`GpuAccesses::classify`] picks per pointer:
//! - [`Accumulate::Plain`] — load-add-store, when the address is private to
//!   the thread: a stack object, or an index that is the same injective
//!   function of the global thread id at every access of that object;
//! - [`Accumulate::BlockReduce`] — the address does not depend on the
//!   thread (e.g. a shared scalar) and the function never writes the
//!   object: each thread sums into a register and at the end of the reverse
//!   sweep the block reduces the sums through shared memory and one thread
//!   adds the total with one atomic;
//! - [`Accumulate::Atomic`] — `atomicrmw fadd`, always legal.
//!
//! The accesses of every object are indexed once per function
//! ([`GpuAccesses::of`]); a query then looks at the object's own accesses
//! only (it used to scan the whole function per accumulation).

use crate::ir::LLVMOpcode;
use crate::ir::{Function, Inst, TyKind, Value};
use std::collections::{HashMap, HashSet};

/// How an adjoint is added to shadow memory.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Accumulate {
    /// Load, add, store.
    Plain,
    /// A per-thread sum, reduced over the block at the end.
    BlockReduce,
    /// `atomicrmw fadd`.
    Atomic,
}

/// Thread and block id/size reads (`llvm.nvvm.read.ptx.sreg.*`): pure,
/// the same for a thread at any time, so recomputed, never cached.
pub(crate) fn is_thread_index<'m>(v: Inst<'m>) -> bool {
    v.called_function()
        .is_some_and(|f| f.name().starts_with("llvm.nvvm.read.ptx.sreg."))
}

/// Whether `v` depends on the thread's id within the block.
fn depends_on_thread<'m>(v: Value<'m>, seen: &mut HashSet<Value<'m>>) -> bool {
    if !v.is_instruction() || !seen.insert(v) {
        return false;
    }
    if v.called_function().is_some_and(|f| {
        let n = f.name();
        n.starts_with("llvm.nvvm.read.ptx.sreg.tid")
            || n.starts_with("llvm.nvvm.read.ptx.sreg.laneid")
    }) {
        return true;
    }
    // Loads and phis may carry anything.
    if matches!(
        v.opcode(),
        Some(LLVMOpcode::LLVMLoad | LLVMOpcode::LLVMPHI | LLVMOpcode::LLVMCall)
    ) {
        return true;
    }
    v.operands().into_iter().any(|o| depends_on_thread(o, seen))
}

/// `base + index` when `p` is a GEP with one index (or a constant offset
/// of one), for comparing accesses.
fn base_and_index<'m>(p: Value<'m>) -> (Value<'m>, Option<Value<'m>>) {
    if p.opcode() == Some(LLVMOpcode::LLVMGetElementPtr) && p.num_operands() == 2 {
        return (p.operand(0), Some(p.operand(1)));
    }
    (p, None)
}

/// Whether an index value is `global thread id` (possibly extended): the
/// sum of `ctaid * ntid` and `tid` along x.
fn is_global_thread_id<'m>(v: Value<'m>) -> bool {
    let v = match v.opcode() {
        Some(LLVMOpcode::LLVMSExt | LLVMOpcode::LLVMZExt) => v.operand(0),
        _ => v,
    };
    if v.opcode() != Some(LLVMOpcode::LLVMAdd) {
        return is_sreg(v, "tid.x");
    }
    let (a, b) = (v.operand(0), v.operand(1));
    let block_offset = |x: Value| {
        x.opcode() == Some(LLVMOpcode::LLVMMul)
            && ((is_sreg(x.operand(0), "ctaid.x") && is_sreg(x.operand(1), "ntid.x"))
                || (is_sreg(x.operand(1), "ctaid.x") && is_sreg(x.operand(0), "ntid.x")))
    };
    (is_sreg(a, "tid.x") && block_offset(b)) || (is_sreg(b, "tid.x") && block_offset(a))
}

fn is_sreg<'m>(v: Value<'m>, which: &str) -> bool {
    v.called_function()
        .is_some_and(|f| f.name() == format!("llvm.nvvm.read.ptx.sreg.{which}"))
}

/// Whether every operand of pointer `p` is an argument, global or
/// constant, through GEPs and casts: the same address for every thread,
/// computable anywhere in the function.
pub(crate) fn is_uniform_address<'m>(p: Value<'m>) -> bool {
    if !p.is_instruction() {
        return true;
    }
    match p.opcode() {
        Some(
            LLVMOpcode::LLVMGetElementPtr | LLVMOpcode::LLVMBitCast | LLVMOpcode::LLVMAddrSpaceCast,
        ) => p.operands().into_iter().all(is_uniform_address),
        _ => false,
    }
}

/// What one object (an argument, global, alloca or allocation) is
/// accessed through.
#[derive(Default)]
struct ObjectAccesses<'m> {
    /// Stored to, atomically updated, or passed to a call.
    written: bool,
    /// Passed to a call (its accesses are not all known).
    escapes: bool,
    /// The pointer of every load and store, as `(base, index)`.
    accesses: Vec<(Value<'m>, Option<Value<'m>>)>,
}

/// The loads, stores, atomics and calls of one function, by the object
/// they access.
pub(crate) struct GpuAccesses<'m> {
    by_root: HashMap<Value<'m>, ObjectAccesses<'m>>,
}

impl<'m> GpuAccesses<'m> {
    /// Indexes the accesses of `func` (one pass).
    pub(crate) fn of(func: Function<'m>) -> GpuAccesses<'m> {
        let mut by_root: HashMap<Value, ObjectAccesses> = HashMap::new();
        for b in func.blocks() {
            for i in b.instructions() {
                match i.opcode() {
                    Some(LLVMOpcode::LLVMLoad) => {
                        let p = i.operand(0);
                        let e = by_root.entry(root_object(p)).or_default();
                        e.accesses.push(base_and_index(p));
                    }
                    Some(LLVMOpcode::LLVMStore) => {
                        let p = i.operand(1);
                        let e = by_root.entry(root_object(p)).or_default();
                        e.written = true;
                        e.accesses.push(base_and_index(p));
                    }
                    Some(LLVMOpcode::LLVMAtomicRMW | LLVMOpcode::LLVMAtomicCmpXchg) => {
                        by_root
                            .entry(root_object(i.operand(0)))
                            .or_default()
                            .written = true;
                    }
                    Some(LLVMOpcode::LLVMCall) => {
                        for o in i.operands() {
                            if o.ty().kind() == TyKind::Pointer {
                                let e = by_root.entry(root_object(o)).or_default();
                                e.written = true;
                                e.escapes = true;
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        GpuAccesses { by_root }
    }

    /// How adjoints reach the shadow of `p` (a primal pointer of the
    /// function): see the module documentation.
    pub(crate) fn classify(&self, p: Value<'m>) -> Accumulate {
        let (base, index) = base_and_index(p);
        let root = root_object(base);
        if root.opcode() == Some(LLVMOpcode::LLVMAlloca) {
            return Accumulate::Plain;
        }
        let object = self.by_root.get(&root);
        // A shared address whose shadow the reverse sweep only adds to (the
        // function never writes the object): the additions can wait for the
        // end of the sweep and be reduced over the block.
        if !depends_on_thread(p, &mut HashSet::new())
            && is_uniform_address(p)
            && root.is_argument()
            && !object.is_some_and(|o| o.written)
        {
            return Accumulate::BlockReduce;
        }
        // Thread-private: every access to this object uses this very index,
        // which is the global thread id.
        if let Some(idx) = index {
            let all_use_it = object.is_none_or(|o| {
                !o.escapes
                    && o.accesses
                        .iter()
                        .all(|(b, i)| *b == root && *i == Some(idx))
            });
            if is_global_thread_id(idx) && all_use_it {
                return Accumulate::Plain;
            }
        }
        Accumulate::Atomic
    }
}

fn root_object<'m>(mut p: Value<'m>) -> Value<'m> {
    for _ in 0..64 {
        match p.opcode() {
            Some(
                LLVMOpcode::LLVMGetElementPtr
                | LLVMOpcode::LLVMBitCast
                | LLVMOpcode::LLVMAddrSpaceCast,
            ) => p = p.operand(0),
            _ => return p,
        }
    }
    p
}
