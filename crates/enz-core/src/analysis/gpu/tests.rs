//! How adjoints are accumulated on small NVPTX functions: every floating
//! load of each function, by name, with the accumulation its shadow gets.
//! Plain only where no two threads can touch one element.

use super::*;
use inkwell::context::Context;
use inkwell::memory_buffer::MemoryBuffer;

const HEADER: &str = r#"
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.tid.y()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
declare void @sink(ptr)
"#;

/// `%gid = ctaid.x * ntid.x + tid.x` in the entry block, as clang writes it.
const GID: &str = r#"
  %ctaid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %blk = mul i32 %ctaid, %ntid
  %gid = add i32 %blk, %tid
  %g = sext i32 %gid to i64
"#;

/// `name: Accumulation` for every floating load of function `f` of the
/// module `body` (with `GID` substituted for `{gid}`).
fn classes(body: &str, f: &str) -> Vec<String> {
    let ir = format!("{HEADER}{}", body.replace("{gid}", GID));
    let ctx = Context::create();
    let buf = MemoryBuffer::create_from_memory_range_copy(ir.as_bytes(), "test");
    let module = ctx.create_module_from_ir(buf).expect("test IR parses");
    let func = crate::ir::named_function(crate::ir::Module::of(&module), f).expect("function");
    let accesses = GpuAccesses::of(func, |_| false);
    func.blocks()
        .into_iter()
        .flat_map(|b| b.instructions())
        .filter(|i| i.opcode() == Some(LLVMOpcode::LLVMLoad) && i.ty().carries_float())
        .map(|i| format!("{}: {:?}", i.name(), accesses.classify(i.operand(0))))
        .collect()
}

#[test]
fn the_global_id_in_any_form_is_thread_private() {
    // The same index computed again on another branch (other sreg reads,
    // operands swapped, zext instead of sext), an LCSSA-like phi of one
    // value, and a join of the two indices; y is read and written.
    let ir = r#"
define void @f(ptr %x, ptr %y, i1 %c) {
entry:
{gid}
  br i1 %c, label %a, label %b
a:
  %pa = getelementptr inbounds float, ptr %x, i64 %g
  %xa = load float, ptr %pa
  br label %join
b:
  %t2 = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %n2 = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %c2 = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %m2 = mul nuw i32 %n2, %c2
  %gid2 = add nuw i32 %t2, %m2
  %g2 = zext nneg i32 %gid2 to i64
  %pb = getelementptr inbounds float, ptr %x, i64 %g2
  %xb = load float, ptr %pb
  br label %one
one:
  %lcssa = phi i64 [ %g2, %b ]
  %pc = getelementptr inbounds [64 x float], ptr %x, i64 0, i64 %lcssa
  %xc = load float, ptr %pc
  br label %join
join:
  %i = phi i64 [ %g, %a ], [ %lcssa, %one ]
  %v = phi float [ %xa, %a ], [ %xb, %one ]
  %py = getelementptr inbounds float, ptr %y, i64 %i
  %yv = load float, ptr %py
  %s = fadd float %v, %yv
  store float %s, ptr %py
  ret void
}
"#;
    assert_eq!(
        classes(ir, "f"),
        ["xa: Plain", "xb: Plain", "xc: Plain", "yv: Plain"]
    );
}

#[test]
fn a_uniform_offset_is_thread_private_when_every_access_has_it() {
    let ir = r#"
define void @f(ptr %x, ptr %y) {
entry:
{gid}
  %g1 = add nsw i64 %g, 1
  %px = getelementptr inbounds float, ptr %x, i64 %g1
  %xv = load float, ptr %px
  %gid1 = add nsw i32 %gid, 1
  %h = sext i32 %gid1 to i64
  %px2 = getelementptr inbounds float, ptr %x, i64 %h
  %xw = load float, ptr %px2
  %py = getelementptr inbounds float, ptr %y, i64 %g
  %s = fadd float %xv, %xw
  store float %s, ptr %py
  ret void
}
"#;
    assert_eq!(classes(ir, "f"), ["xv: Plain", "xw: Plain"]);
}

#[test]
fn a_grid_stride_loop_index_is_private_to_its_thread_and_iteration() {
    // i = gid; i < n; i += nctaid.x * ntid.x (operands in either order),
    // with the loop rotated and x also read after it through an LCSSA phi.
    let ir = r#"
define void @f(ptr %x, ptr %y, i32 %n) {
entry:
{gid}
  %go = icmp slt i32 %gid, %n
  br i1 %go, label %pre, label %exit
pre:
  %nct = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %stride = mul i32 %ntid, %nct
  br label %loop
loop:
  %i = phi i32 [ %gid, %pre ], [ %next, %loop ]
  %ii = sext i32 %i to i64
  %px = getelementptr inbounds float, ptr %x, i64 %ii
  %xv = load float, ptr %px
  %py = getelementptr inbounds float, ptr %y, i64 %ii
  store float %xv, ptr %py
  %next = add i32 %stride, %i
  %more = icmp slt i32 %next, %n
  br i1 %more, label %loop, label %done
done:
  %last = phi i32 [ %i, %loop ]
  %il = sext i32 %last to i64
  %pl = getelementptr inbounds float, ptr %x, i64 %il
  %xl = load float, ptr %pl
  br label %exit
exit:
  ret void
}
"#;
    assert_eq!(classes(ir, "f"), ["xv: Plain", "xl: Plain"]);
}

#[test]
fn loops_that_do_not_stride_by_the_grid_stay_atomic() {
    // i = gid; i += 1: neighbouring threads meet.
    let ir = r#"
define void @f(ptr %x, i32 %n) {
entry:
{gid}
  br label %loop
loop:
  %i = phi i32 [ %gid, %entry ], [ %next, %loop ]
  %ii = sext i32 %i to i64
  %px = getelementptr inbounds float, ptr %x, i64 %ii
  %xv = load float, ptr %px
  %next = add i32 %i, 1
  %more = icmp slt i32 %next, %n
  br i1 %more, label %loop, label %exit
exit:
  ret void
}
"#;
    assert_eq!(classes(ir, "f"), ["xv: Atomic"]);
}

#[test]
fn strides_of_the_grid_size_keep_the_thread_private() {
    // x[gid + k * nctaid.x * ntid.x] for a counter k (`+ k * stride`):
    // the index modulo the grid's size is gid. y[gid + k * ntid.x] (a
    // block's size, not the grid's) lets threads of neighbouring blocks meet.
    let ir = r#"
define void @f(ptr %x, ptr %y, i32 %n) {
entry:
{gid}
  %nct = call i32 @llvm.nvvm.read.ptx.sreg.nctaid.x()
  %grid = mul i32 %nct, %ntid
  br label %loop
loop:
  %k = phi i32 [ 0, %entry ], [ %k1, %loop ]
  %off = mul i32 %k, %grid
  %i = add i32 %gid, %off
  %ii = sext i32 %i to i64
  %px = getelementptr inbounds float, ptr %x, i64 %ii
  %xv = load float, ptr %px
  %boff = mul i32 %k, %ntid
  %j = add i32 %gid, %boff
  %jj = sext i32 %j to i64
  %py = getelementptr inbounds float, ptr %y, i64 %jj
  %yv = load float, ptr %py
  %k1 = add i32 %k, 1
  %more = icmp slt i32 %k1, %n
  br i1 %more, label %loop, label %exit
exit:
  ret void
}
"#;
    assert_eq!(classes(ir, "f"), ["xv: Plain", "yv: Atomic"]);
}

#[test]
fn a_chunk_of_its_own_is_private_to_the_thread() {
    // for (k = 0; k < per; k++) x[gid * per + k], entered only when per > 0
    // (clang's rotated loop): thread gid owns per elements. The same loop
    // without the guard (k = 0 runs even when per <= 0), and one bounded
    // by another value than the multiplier, stay atomic.
    let body = r#"
define void @f(ptr %x, i32 %per, i32 %other) {
entry:
{gid}
  %first = mul i32 %gid, %per
  %go = icmp sgt i32 %per, 0
  br i1 %go, label %pre, label %exit
pre:
  br label %loop
loop:
  %k = phi i32 [ 0, %pre ], [ %k1, %loop ]
  %i = add nsw i32 %k, %first
  %ii = sext i32 %i to i64
  %px = getelementptr inbounds float, ptr %x, i64 %ii
  %xv = load float, ptr %px
  %k1 = add nuw nsw i32 %k, 1
  %more = icmp slt i32 %k1, BOUND
  br i1 %more, label %loop, label %exit
exit:
  ret void
}
"#;
    assert_eq!(classes(&body.replace("BOUND", "%per"), "f"), ["xv: Plain"]);
    assert_eq!(
        classes(&body.replace("BOUND", "%other"), "f"),
        ["xv: Atomic"]
    );
    let unguarded = body
        .replace("BOUND", "%per")
        .replace("br i1 %go, label %pre, label %exit", "br label %pre");
    assert_eq!(classes(&unguarded, "f"), ["xv: Atomic"]);
}

#[test]
fn colliding_indices_stay_atomic() {
    // p[gid % 4]; x[gid] with x[gid + 1]; threadIdx.x alone (one per
    // block); twice the id; an i16 index that wraps.
    let ir = r#"
define void @f(ptr %p, ptr %x, ptr %t, ptr %d, ptr %w) {
entry:
{gid}
  %r = srem i32 %gid, 4
  %rr = sext i32 %r to i64
  %pp = getelementptr inbounds float, ptr %p, i64 %rr
  %pv = load float, ptr %pp
  %px = getelementptr inbounds float, ptr %x, i64 %g
  %x0 = load float, ptr %px
  %g1 = add nsw i64 %g, 1
  %px1 = getelementptr inbounds float, ptr %x, i64 %g1
  %x1 = load float, ptr %px1
  %tt = zext i32 %tid to i64
  %pt = getelementptr inbounds float, ptr %t, i64 %tt
  %tv = load float, ptr %pt
  %g2 = shl i64 %g, 1
  %pd = getelementptr inbounds float, ptr %d, i64 %g2
  %dv = load float, ptr %pd
  %narrow = trunc i32 %gid to i16
  %nw = sext i16 %narrow to i64
  %pw = getelementptr inbounds float, ptr %w, i64 %nw
  %wv = load float, ptr %pw
  ret void
}
"#;
    assert_eq!(
        classes(ir, "f"),
        [
            "pv: Atomic",
            "x0: Atomic",
            "x1: Atomic",
            "tv: Atomic",
            "dv: Atomic",
            "wv: Atomic"
        ]
    );
}

#[test]
fn escaping_or_reinterpreted_objects_stay_atomic() {
    // x goes to a call, y through a select, z is also read as doubles, v
    // as a vector wider than an element, q is a pointer loaded per thread.
    let ir = r#"
define void @f(ptr %x, ptr %y, ptr %o, ptr %z, ptr %v, ptr %pq, i1 %c) {
entry:
{gid}
  %px = getelementptr inbounds float, ptr %x, i64 %g
  %xv = load float, ptr %px
  call void @sink(ptr %x)
  %py = getelementptr inbounds float, ptr %y, i64 %g
  %yv = load float, ptr %py
  %sel = select i1 %c, ptr %y, ptr %o
  store float 0.0, ptr %sel
  %pz = getelementptr inbounds float, ptr %z, i64 %g
  %zv = load float, ptr %pz
  %pzd = getelementptr inbounds double, ptr %z, i64 %g
  %zd = load double, ptr %pzd
  %pv = getelementptr inbounds float, ptr %v, i64 %g
  %vv = load float, ptr %pv
  %vw = load <2 x float>, ptr %pv
  %q = load ptr, ptr %pq
  %pqq = getelementptr inbounds float, ptr %q, i64 %g
  %qv = load float, ptr %pqq
  ret void
}
"#;
    assert_eq!(
        classes(ir, "f"),
        [
            "xv: Atomic",
            "yv: Atomic",
            "zv: Atomic",
            "zd: Atomic",
            "vv: Atomic",
            "vw: Atomic",
            "qv: Atomic"
        ]
    );
}

#[test]
fn a_multi_dimensional_kernel_does_not_trust_the_x_id() {
    // Threads differing in y share gid.
    let ir = r#"
define void @f(ptr %x, ptr %r) {
entry:
{gid}
  %ty = call i32 @llvm.nvvm.read.ptx.sreg.tid.y()
  store i32 %ty, ptr %r
  %px = getelementptr inbounds float, ptr %x, i64 %g
  %xv = load float, ptr %px
  ret void
}
"#;
    assert_eq!(classes(ir, "f"), ["xv: Atomic"]);
}

#[test]
fn shared_scalars_are_block_reduced_and_stack_objects_plain() {
    let ir = r#"
define void @f(ptr %a, ptr %x) {
entry:
{gid}
  %av = load float, ptr %a
  %s = alloca float
  store float %av, ptr %s
  %sv = load float, ptr %s
  ret void
}
"#;
    assert_eq!(classes(ir, "f"), ["av: BlockReduce", "sv: Plain"]);
}
