//! GPU (NVPTX) facts for synthesis: how an adjoint is accumulated into the
//! shadow of each primal pointer when many threads run the same reverse
//! sweep, and which values are thread ids.
//!
//! [`GpuAccesses::classify`] picks per pointer:
//! - [`Accumulate::Plain`] — load-add-store, when the address is private to
//!   the thread: a stack object, or an element of an argument or global
//!   that does not escape and whose every access indexes it directly with
//!   an index of one canonical form, injective in the thread (`gid + c`, a
//!   grid-stride loop's index plus `c`, `gid` plus a multiple of the grid's
//!   size, a thread's own chunk `P gid + k`; see [`index`]), no access
//!   wider than an element;
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

mod index;

use crate::ir::LLVMOpcode;
use crate::ir::{Function, Inst, Ty, TyKind, Value};
use index::{Poly, ThreadIndexing};
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
    /// OpenMP (`analysis/team.rs`): summed per element in a table of the
    /// thread's, added to the shadow atomically at the end.
    Combine,
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

/// One load, store or atomic operation of an object, as `base[index]`.
struct Access<'m> {
    /// The pointer the GEP indexes (the accessed pointer itself when it is
    /// not a GEP with one variable index).
    base: Value<'m>,
    /// The GEP's index: its canonical form (`None`: none computable) and
    /// the stride in bytes. `None` when the address is not such a GEP.
    index: Option<(Option<Poly<'m>>, u64)>,
    /// The bytes read or written.
    width: u64,
}

/// `p` as `base + stride * index`: a GEP with one index, or with leading
/// zero indices into an array; otherwise `(p, None)`.
pub(crate) fn base_and_index<'m>(p: Value<'m>) -> (Value<'m>, Option<(Value<'m>, u64)>) {
    if p.opcode() != Some(LLVMOpcode::LLVMGetElementPtr) {
        return (p, None);
    }
    let n = p.num_operands();
    if n < 2 {
        return (p, None);
    }
    // Every index but the last is 0; each index after the first steps into
    // an array.
    let mut ty = p.gep_source_type();
    for k in 1..n {
        if k < n - 1 && p.operand(k).const_int_sext() != Some(0) {
            return (p, None);
        }
        if k > 1 {
            if ty.kind() != TyKind::Array {
                return (p, None);
            }
            ty = ty.element();
        }
    }
    let stride = ty.alloc_size(p.module());
    (p.operand(0), Some((p.operand(n - 1), stride)))
}

/// What one object (an argument, global, alloca or allocation) is
/// accessed through.
#[derive(Default)]
struct ObjectAccesses<'m> {
    /// Stored to, atomically updated, or escaping.
    written: bool,
    /// Its address goes somewhere other than the address of a load, store
    /// or atomic (directly or through GEPs and casts): a call, a phi or
    /// select, memory, an integer. Its accesses are not all known.
    escapes: bool,
    /// Every load, store and atomic of the object.
    accesses: Vec<Access<'m>>,
}

/// The loads, stores, atomics and calls of one function, by the object
/// they access.
pub(crate) struct GpuAccesses<'m> {
    by_root: HashMap<Value<'m>, ObjectAccesses<'m>>,
    /// Which thread indices the function's ids make injective.
    indexing: ThreadIndexing,
}

impl<'m> GpuAccesses<'m> {
    /// Indexes the accesses of `func` (one pass).
    pub(crate) fn of(
        func: Function<'m>,
        inactive_call: impl Fn(Value<'m>) -> bool,
    ) -> GpuAccesses<'m> {
        let module = func.global_parent();
        let mut by_root: HashMap<Value, ObjectAccesses> = HashMap::new();
        let mut indexing = ThreadIndexing::new();
        let mut record = |p: Value<'m>, accessed: Ty<'m>, writes: bool| {
            let (base, index) = base_and_index(p);
            let e = by_root.entry(root_object(p)).or_default();
            e.written |= writes;
            e.accesses.push(Access {
                base,
                index: index.map(|(i, stride)| (index::form(i), stride)),
                width: accessed.alloc_size(module),
            });
        };
        let mut escaping = Vec::new();
        for b in func.blocks() {
            for i in b.instructions() {
                indexing.note(i.as_value());
                // The operand that is the accessed address, if any.
                let address = match i.opcode() {
                    Some(LLVMOpcode::LLVMLoad) => {
                        record(i.operand(0), i.ty(), false);
                        Some(0)
                    }
                    Some(LLVMOpcode::LLVMStore) => {
                        record(i.operand(1), i.operand(0).ty(), true);
                        Some(1)
                    }
                    Some(LLVMOpcode::LLVMAtomicRMW | LLVMOpcode::LLVMAtomicCmpXchg) => {
                        record(i.operand(0), i.operand(1).ty(), true);
                        Some(0)
                    }
                    // Derived addresses (their roots are followed) and
                    // comparisons of addresses.
                    Some(
                        LLVMOpcode::LLVMGetElementPtr
                        | LLVMOpcode::LLVMBitCast
                        | LLVMOpcode::LLVMAddrSpaceCast
                        | LLVMOpcode::LLVMICmp,
                    ) => continue,
                    _ => None,
                };
                // An inactive call (mixed mode's partials, given the
                // loop's pointers) adds to no shadow: not an escape.
                if address.is_none()
                    && i.opcode() == Some(LLVMOpcode::LLVMCall)
                    && inactive_call(i.as_value())
                {
                    continue;
                }
                for (k, o) in i.operands().into_iter().enumerate() {
                    if Some(k) != address && o.ty().kind() == TyKind::Pointer {
                        escaping.push(root_object(o));
                    }
                }
            }
        }
        for root in escaping {
            let e = by_root.entry(root).or_default();
            e.written = true;
            e.escapes = true;
        }
        GpuAccesses { by_root, indexing }
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
        if let (Some((idx, stride)), Some(object)) = (index, object) {
            if base == root && self.thread_private(root, object, idx, stride) {
                return Accumulate::Plain;
            }
        }
        Accumulate::Atomic
    }

    /// Whether `root[idx]` (elements of `stride` bytes) is touched by one
    /// thread only: the root is the same pointer in every thread, it does
    /// not escape, every access of it indexes it directly with an index of
    /// the same canonical form as `idx`, no wider than an element, and that
    /// form is injective in the thread (`index::ThreadIndexing`).
    fn thread_private(
        &self,
        root: Value<'m>,
        object: &ObjectAccesses<'m>,
        idx: Value<'m>,
        stride: u64,
    ) -> bool {
        let uniform_root = root.is_argument() || root.is_global_variable() || root.is_constant();
        let Some(form) = index::form(idx) else {
            return false;
        };
        uniform_root
            && !object.escapes
            && self.indexing.injective(&form)
            && object.accesses.iter().all(|a| {
                a.base == root
                    && a.width <= stride
                    && a.index
                        .as_ref()
                        .is_some_and(|(f, s)| *s == stride && f.as_ref() == Some(&form))
            })
    }
}

/// The object `p` points into: `p` through GEPs and pointer casts.
pub(crate) fn root_object<'m>(mut p: Value<'m>) -> Value<'m> {
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

#[cfg(test)]
mod tests;

/// Whether the module is compiled for an NVIDIA GPU.
pub(crate) fn is_gpu_module<'m>(func: crate::ir::Function<'m>) -> bool {
    crate::ir::module_triple(func.global_parent()).contains("nvptx")
}
