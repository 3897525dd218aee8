//! GPU (NVPTX) specifics of synthesis: emitting accumulations into shadow
//! memory when many threads run the same reverse sweep (an atomic add, or
//! a block reduction followed by one atomic), barriers and shared memory.
//! Which accumulation each pointer gets is a fact of `analysis/gpu.rs`,
//! computed once per derivative.

use crate::ir::{add_internal_global, named_global, Builder, Ty, TyKind, Value};

pub(crate) use crate::analysis::gpu::is_gpu_module;

/// `atomicrmw fadd ptr, v monotonic` (element by element for vectors).
pub(crate) fn atomic_add<'m>(b: &Builder<'m>, ptr: Value<'m>, v: Value<'m>) {
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
pub(crate) fn block_reduce_add<'m>(b: &Builder<'m>, ptr: Value<'m>, v: Value<'m>) {
    let ctx = b.ctx();
    let i32t = Ty::int(ctx, 32);
    let sreg = |n: &str| b.call_intrinsic(&format!("llvm.nvvm.read.ptx.sreg.{n}"), &[], &[]);
    let (tx, ty, tz) = (sreg("tid.x"), sreg("tid.y"), sreg("tid.z"));
    let (nx, ny, nz) = (sreg("ntid.x"), sreg("ntid.y"), sreg("ntid.z"));
    let tid = b.add(
        tx.as_value(),
        b.mul(
            nx.as_value(),
            b.add(ty.as_value(), b.mul(ny.as_value(), tz.as_value())),
        ),
    );
    let n = b.mul(nx.as_value(), b.mul(ny.as_value(), nz.as_value()));
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
    let x = b.load(v.ty(), b.gep(arr, buf, &[zero, k.into()]));
    let acc2 = b.fadd(acc.into(), x);
    let k2 = b.add(k.into(), b.const_int(i32t, 1));
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
fn reduction_buffer<'m>(b: &Builder<'m>, ty: Ty<'m>) -> Value<'m> {
    let module = b.insert_block().parent().global_parent();
    let name = format!(
        "{}{}",
        crate::names::BLOCK_SUM_PREFIX,
        ty.to_ir().replace(['<', '>', ' '], "")
    );
    let g = named_global(module, &name).unwrap_or_else(|| {
        let arr = ty.array(MAX_BLOCK);
        add_internal_global(module, &name, arr, 3, arr.undef_constant(), 16)
    });
    b.addrspace_cast(g.as_value(), Ty::ptr(b.ctx()))
}

/// `__syncthreads()`.
pub(crate) fn barrier<'m>(b: &Builder<'m>) {
    let i32t = Ty::int(b.ctx(), 32);
    b.call_intrinsic(
        "llvm.nvvm.barrier.cta.sync.aligned.all",
        &[],
        &[b.const_int(i32t, 0)],
    );
}

/// Zeroes shared-memory shadow `s` of `bytes` bytes: each thread clears a
/// strided share, then the block meets at a barrier.
pub(crate) fn zero_shared<'m>(b: &Builder<'m>, s: Value<'m>, bytes: u64) {
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
    let any = b.icmp(
        crate::ir::LLVMIntPredicate::LLVMIntULT,
        tid.as_value(),
        total,
    );
    b.cond_br(any, body, done);
    b.position_at_end(body);
    let k = b.phi(i32t, "k");
    let p = b.gep(i8t, s, &[k.into()]);
    b.store(b.const_int(i8t, 0), p);
    let k2 = b.add(k.into(), n.as_value());
    k.add_incoming(tid, head);
    k.add_incoming(k2, body);
    let more = b.icmp(crate::ir::LLVMIntPredicate::LLVMIntULT, k2, total);
    b.cond_br(more, body, done);
    b.position_at_end(done);
    barrier(b);
}
