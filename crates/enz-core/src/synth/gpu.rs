//! GPU (NVPTX) specifics of synthesis: how an adjoint is accumulated into
//! shadow memory when many threads run the same reverse sweep, thread ids,
//! barriers and shared memory.
//!
//! Every accumulation into memory goes through [`classify`], which picks
//! per shadow pointer:
//! - [`Accumulate::Plain`] — load-add-store, when the address is private to
//!   the thread: a stack object, or an index that is the same injective
//!   function of the global thread id at every access of that object;
//! - [`Accumulate::BlockReduce`] — the address does not depend on the
//!   thread (e.g. a shared scalar): each thread sums into a register and at
//!   the end of the reverse sweep the block reduces the sums through shared
//!   memory and one thread adds the total with one atomic;
//! - [`Accumulate::Atomic`] — `atomicrmw fadd`, always legal.

use crate::ir::LLVMOpcode;
use crate::ir::{add_internal_global, named_global, Builder, Ty, TyKind, Value};
use std::collections::HashSet;

/// How an adjoint is added to shadow memory.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Accumulate {
    Plain,
    BlockReduce,
    Atomic,
}

/// Whether the module is compiled for an NVIDIA GPU.
pub(crate) fn is_gpu_module(func: Value) -> bool {
    crate::ir::module_triple(func.global_parent()).contains("nvptx")
}

/// Thread and block id/size reads (`llvm.nvvm.read.ptx.sreg.*`): pure,
/// the same for a thread at any time, so recomputed, never cached.
pub(crate) fn is_thread_index(v: Value) -> bool {
    v.called_function()
        .is_some_and(|f| f.name().starts_with("llvm.nvvm.read.ptx.sreg."))
}

/// Whether `v` depends on the thread's id within the block.
fn depends_on_thread(v: Value, seen: &mut HashSet<Value>) -> bool {
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
fn base_and_index(p: Value) -> (Value, Option<Value>) {
    if p.opcode() == Some(LLVMOpcode::LLVMGetElementPtr) && p.num_operands() == 2 {
        return (p.operand(0), Some(p.operand(1)));
    }
    (p, None)
}

/// Whether an index value is `global thread id` (possibly extended): the
/// sum of `ctaid * ntid` and `tid` along x.
fn is_global_thread_id(v: Value) -> bool {
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

fn is_sreg(v: Value, which: &str) -> bool {
    v.called_function()
        .is_some_and(|f| f.name() == format!("llvm.nvvm.read.ptx.sreg.{which}"))
}

/// Whether every operand of pointer `p` is an argument, global or
/// constant, through GEPs and casts: the same address for every thread,
/// computable anywhere in the function.
pub(crate) fn is_uniform_address(p: Value) -> bool {
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

/// Chooses how adjoints reach the shadow of `p` (a primal pointer of
/// `func`): see the module documentation.
pub(crate) fn classify(func: Value, p: Value) -> Accumulate {
    let (base, index) = base_and_index(p);
    let root = root_object(base);
    if root.opcode() == Some(LLVMOpcode::LLVMAlloca) {
        return Accumulate::Plain;
    }
    // A shared address whose shadow the reverse sweep only adds to (the
    // function never writes the object): the additions can wait for the
    // end of the sweep and be reduced over the block.
    if !depends_on_thread(p, &mut HashSet::new())
        && is_uniform_address(p)
        && root.is_argument()
        && !writes_to(func, root)
    {
        return Accumulate::BlockReduce;
    }
    // Thread-private: every access to this object uses this very index,
    // which is the global thread id.
    if let Some(idx) = index {
        if is_global_thread_id(idx) && all_accesses_use(func, root, idx) {
            return Accumulate::Plain;
        }
    }
    Accumulate::Atomic
}

/// Whether `func` stores to (or atomically updates, or copies into) object `root`.
fn writes_to(func: Value, root: Value) -> bool {
    func.blocks()
        .iter()
        .flat_map(|b| b.instructions())
        .any(|i| {
            let dst = match i.opcode() {
                Some(LLVMOpcode::LLVMStore) => i.operand(1),
                Some(LLVMOpcode::LLVMAtomicRMW | LLVMOpcode::LLVMAtomicCmpXchg) => i.operand(0),
                Some(LLVMOpcode::LLVMCall) => {
                    return i
                        .operands()
                        .iter()
                        .any(|o| o.ty().kind() == TyKind::Pointer && root_object(*o) == root)
                }
                _ => return false,
            };
            root_object(dst) == root
        })
}

fn root_object(mut p: Value) -> Value {
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

/// Whether every load and store of `func` into object `root` goes through
/// `root[idx]` exactly.
fn all_accesses_use(func: Value, root: Value, idx: Value) -> bool {
    for b in func.blocks() {
        for i in b.instructions() {
            let ptr = match i.opcode() {
                Some(LLVMOpcode::LLVMLoad) => i.operand(0),
                Some(LLVMOpcode::LLVMStore) => i.operand(1),
                Some(LLVMOpcode::LLVMCall) => {
                    if i.operands()
                        .iter()
                        .any(|o| o.ty().kind() == TyKind::Pointer && root_object(*o) == root)
                    {
                        return false;
                    }
                    continue;
                }
                _ => continue,
            };
            if root_object(ptr) != root {
                continue;
            }
            let (base, index) = base_and_index(ptr);
            if base != root || index != Some(idx) {
                return false;
            }
        }
    }
    true
}

/// `atomicrmw fadd ptr, v monotonic` (element by element for vectors).
pub(crate) fn atomic_add(b: &Builder, ptr: Value, v: Value) {
    if v.ty().kind() == TyKind::Vector {
        let elem = v.ty().element();
        let size = elem.alloc_size(ptr.module());
        for k in 0..v.ty().len() as u32 {
            let e = b.extract_member(v, k);
            atomic_add(b, b.byte_gep(ptr, u64::from(k) * size), e);
        }
        return;
    }
    b.atomic_fadd(ptr, v);
}

/// Adds this thread's `v` over the whole block and has thread 0 add the
/// total to `ptr` with one atomic. Every thread of the block must reach
/// this point (it is placed at the end of the reverse sweep).
pub(crate) fn block_reduce_add(b: &Builder, ptr: Value, v: Value) {
    let ctx = b.ctx();
    let i32t = Ty::int(ctx, 32);
    let sreg = |n: &str| b.call_intrinsic(&format!("llvm.nvvm.read.ptx.sreg.{n}"), &[], &[]);
    let (tx, ty, tz) = (sreg("tid.x"), sreg("tid.y"), sreg("tid.z"));
    let (nx, ny, nz) = (sreg("ntid.x"), sreg("ntid.y"), sreg("ntid.z"));
    let tid = b.add(tx, b.mul(nx, b.add(ty, b.mul(ny, tz))));
    let n = b.mul(nx, b.mul(ny, nz));
    let buf = reduction_buffer(b, v.ty());
    let arr = v.ty().array(MAX_BLOCK);
    let zero = b.const_int(i32t, 0);
    let slot = b.gep(arr, buf, &[zero, tid]);
    b.store(v, slot);
    barrier(b);
    // Thread 0 adds up the block's values and issues the one atomic.
    let f = b.insert_block().parent();
    let mk = |name: &str| f.append_block(name);
    let sum_head = mk("block_sum");
    let sum_loop = mk("block_sum_loop");
    let sum_done = mk("block_sum_done");
    let after = mk("block_sum_after");
    let is_first = b.icmp(crate::ir::LLVMIntPredicate::LLVMIntEQ, tid, zero);
    b.cond_br(is_first, sum_head, after);
    b.position_at_end(sum_head);
    b.br(sum_loop);
    b.position_at_end(sum_loop);
    let k = b.phi(i32t, "k");
    let acc = b.phi(v.ty(), "acc");
    let x = b.load(v.ty(), b.gep(arr, buf, &[zero, k]));
    let acc2 = b.fadd(acc, x);
    let k2 = b.add(k, b.const_int(i32t, 1));
    k.add_incoming(zero, sum_head);
    k.add_incoming(k2, sum_loop);
    acc.add_incoming(b.zero(v.ty()), sum_head);
    acc.add_incoming(acc2, sum_loop);
    let more = b.icmp(crate::ir::LLVMIntPredicate::LLVMIntULT, k2, n);
    b.cond_br(more, sum_loop, sum_done);
    b.position_at_end(sum_done);
    atomic_add(b, ptr, acc2);
    b.br(after);
    b.position_at_end(after);
    // The buffer is reused by the next reduction.
    barrier(b);
}

/// The largest block the reduction buffer holds.
const MAX_BLOCK: u64 = 1024;

/// A block-shared buffer of `MAX_BLOCK` elements of `ty` (`addrspace(3)`).
fn reduction_buffer(b: &Builder, ty: Ty) -> Value {
    let module = b.insert_block().parent().global_parent();
    let name = format!(
        "__enz_block_sum_{}",
        ty.to_ir().replace(['<', '>', ' '], "")
    );
    let g = named_global(module, &name).unwrap_or_else(|| {
        let arr = ty.array(MAX_BLOCK);
        add_internal_global(module, &name, arr, 3, arr.undef_constant(), 16)
    });
    b.addrspace_cast(g, Ty::ptr(b.ctx()))
}

/// `__syncthreads()`.
pub(crate) fn barrier(b: &Builder) {
    let i32t = Ty::int(b.ctx(), 32);
    b.call_intrinsic(
        "llvm.nvvm.barrier.cta.sync.aligned.all",
        &[],
        &[b.const_int(i32t, 0)],
    );
}

/// Zeroes shared-memory shadow `s` of `bytes` bytes: each thread clears a
/// strided share, then the block meets at a barrier.
pub(crate) fn zero_shared(b: &Builder, s: Value, bytes: u64) {
    let ctx = b.ctx();
    let i32t = Ty::int(ctx, 32);
    let i8t = Ty::int(ctx, 8);
    let sreg = |n: &str| b.call_intrinsic(&format!("llvm.nvvm.read.ptx.sreg.{n}"), &[], &[]);
    let tid = sreg("tid.x");
    let n = sreg("ntid.x");
    let f = b.insert_block().parent();
    let mk = |name: &str| f.append_block(name);
    let head = b.insert_block();
    let body = mk("zero_shared");
    let done = mk("zero_shared_done");
    let total = b.const_int(i32t, bytes as i64);
    let any = b.icmp(crate::ir::LLVMIntPredicate::LLVMIntULT, tid, total);
    b.cond_br(any, body, done);
    b.position_at_end(body);
    let k = b.phi(i32t, "k");
    let p = b.gep(i8t, s, &[k]);
    b.store(b.const_int(i8t, 0), p);
    let k2 = b.add(k, n);
    k.add_incoming(tid, head);
    k.add_incoming(k2, body);
    let more = b.icmp(crate::ir::LLVMIntPredicate::LLVMIntULT, k2, total);
    b.cond_br(more, body, done);
    b.position_at_end(done);
    barrier(b);
}
