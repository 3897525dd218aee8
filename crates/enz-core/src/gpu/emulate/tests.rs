//! Retargeting hand-written NVPTX modules (the shapes clang-22 produces for
//! CUDA device code).

use super::*;

const HEADER: &str = r#"target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"
"#;

fn retarget(body: &str) -> String {
    let text = format!("{HEADER}{body}");
    match retarget_to_host(&text) {
        Ok(t) => t,
        Err(d) => panic!("retargeting failed: {d}\n--- input ---\n{text}"),
    }
}

/// The lines of `ir` that are not comments.
fn code(ir: &str) -> String {
    ir.lines()
        .filter(|l| !l.trim_start().starts_with(';'))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn kernel_with_shared_memory_barrier_and_atomic() {
    let out = retarget(
        r#"
@_ZZ1kE1s = internal unnamed_addr addrspace(3) global [256 x float] undef, align 4

define dso_local ptx_kernel void @k(ptr noundef %x, ptr noundef %a) #0 {
  %t = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %b = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %n = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %g = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.nctaid.y()
  %bn = mul i32 %b, %n
  %i = add i32 %bn, %t
  %i64 = sext i32 %i to i64
  %px = getelementptr inbounds float, ptr %x, i64 %i64
  %v = load float, ptr %px, align 4
  %t64 = zext i32 %t to i64
  %ps = getelementptr inbounds float, ptr addrspacecast (ptr addrspace(3) @_ZZ1kE1s to ptr), i64 %t64
  store float %v, ptr %ps, align 4
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0) #2
  %w = load float, ptr %ps, align 4
  %old = atomicrmw fadd ptr %a, float %w syncscope("block") monotonic, align 4
  ret void
}

declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32) #1
declare noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x() #3
declare noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #3
declare noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.x() #3
declare noundef range(i32 1, 65536) i32 @llvm.nvvm.read.ptx.sreg.nctaid.y() #3

attributes #0 = { convergent mustprogress noinline norecurse nounwind "frame-pointer"="all" "target-cpu"="sm_80" "target-features"="+ptx42,+ptx80,+sm_80" "uniform-work-group-size"="true" }
attributes #1 = { convergent nocallback nounwind }
attributes #2 = { convergent nounwind }
attributes #3 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }

!nvvm.annotations = !{!0}
!0 = !{ptr @k, !"maxntidx", i32 256}
"#,
    );
    let c = code(&out);
    assert!(
        c.contains(&format!("target triple = \"{HOST_TRIPLE}\"")),
        "{out}"
    );
    assert!(c.contains(HOST_DATA_LAYOUT), "{out}");
    for gone in [
        "addrspace",
        "ptx_kernel",
        "llvm.nvvm",
        "sm_80",
        "ptx80",
        "nvvm.annotations",
        "syncscope",
    ] {
        assert!(!c.contains(gone), "`{gone}` is still there:\n{out}");
    }
    assert!(c.contains("define dso_local void @k("), "{out}");
    assert!(
        c.contains("@_ZZ1kE1s = internal unnamed_addr global [256 x float]"),
        "{out}"
    );
    assert!(c.contains("call noundef i32 @__emu_tid_x()"), "{out}");
    assert!(c.contains("call noundef i32 @__emu_ctaid_x()"), "{out}");
    assert!(c.contains("call noundef i32 @__emu_ntid_x()"), "{out}");
    assert!(c.contains("call noundef i32 @__emu_nctaid_y()"), "{out}");
    assert!(c.contains("call void @__emu_barrier_sync(i32 0)"), "{out}");
    assert!(c.contains("declare void @__emu_barrier_sync(i32)"), "{out}");
    assert!(
        c.contains("atomicrmw fadd ptr %a, float %w monotonic"),
        "{out}"
    );
    // The shared array is addressed directly (the cast folded away).
    assert!(
        c.contains("getelementptr inbounds float, ptr @_ZZ1kE1s"),
        "{out}"
    );
}

#[test]
fn addrspacecast_instructions_become_no_op_casts() {
    let out = retarget(
        r#"
@g = addrspace(1) global float 0.0
@c = addrspace(4) constant [2 x double] [double 1.0, double 2.0]

define void @f(ptr %p, ptr addrspace(3) %s) {
  %q = addrspacecast ptr %p to ptr addrspace(1)
  store float 1.0, ptr addrspace(1) %q
  %r = addrspacecast ptr addrspace(3) %s to ptr
  store float 2.0, ptr %r
  %gv = load float, ptr addrspace(1) @g
  %cp = getelementptr [2 x double], ptr addrspace(4) @c, i64 0, i64 1
  %cv = load double, ptr addrspace(4) %cp
  call void @llvm.memcpy.p0.p3.i64(ptr %p, ptr addrspace(3) %s, i64 8, i1 false)
  ret void
}
declare void @llvm.memcpy.p0.p3.i64(ptr, ptr addrspace(3), i64, i1)
"#,
    );
    let c = code(&out);
    assert!(!c.contains("addrspace"), "{out}");
    assert!(c.contains("%q = bitcast ptr %p to ptr"), "{out}");
    assert!(c.contains("@g = global float"), "{out}");
    assert!(c.contains("@c = constant [2 x double]"), "{out}");
    // The parser remangles the memcpy for its new pointer types.
    assert!(c.contains("@llvm.memcpy.p0.p0.i64"), "{out}");
}

#[test]
fn every_barrier_form() {
    let out = retarget(
        r#"
define i32 @f(i1 %p, i32 %n) {
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  call void @llvm.nvvm.barrier.cta.sync.all(i32 1)
  call void @llvm.nvvm.barrier.cta.sync.aligned.count(i32 0, i32 %n)
  %c = call i32 @llvm.nvvm.barrier.cta.red.popc.aligned.all(i32 0, i1 %p)
  %a = call i1 @llvm.nvvm.barrier.cta.red.and.aligned.all(i32 0, i1 %p)
  %o = call i1 @llvm.nvvm.barrier.cta.red.or.aligned.all(i32 0, i1 %a)
  call void @llvm.nvvm.membar.gl()
  call void @llvm.nvvm.membar.cta()
  %z = zext i1 %o to i32
  %s = add i32 %c, %z
  ret i32 %s
}
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32)
declare void @llvm.nvvm.barrier.cta.sync.all(i32)
declare void @llvm.nvvm.barrier.cta.sync.aligned.count(i32, i32)
declare i32 @llvm.nvvm.barrier.cta.red.popc.aligned.all(i32, i1)
declare i1 @llvm.nvvm.barrier.cta.red.and.aligned.all(i32, i1)
declare i1 @llvm.nvvm.barrier.cta.red.or.aligned.all(i32, i1)
declare void @llvm.nvvm.membar.gl()
declare void @llvm.nvvm.membar.cta()
"#,
    );
    let c = code(&out);
    assert!(!c.contains("llvm.nvvm"), "{out}");
    assert_eq!(
        c.matches("call void @__emu_barrier_sync(i32").count(),
        2,
        "{out}"
    );
    assert!(
        c.contains("call void @__emu_barrier_sync_count(i32 0, i32 %n)"),
        "{out}"
    );
    assert!(
        c.contains("call i32 @__emu_barrier_red_popc(i32 0, i1 %p)"),
        "{out}"
    );
    assert!(
        c.contains("call i1 @__emu_barrier_red_and(i32 0, i1 %p)"),
        "{out}"
    );
    assert!(
        c.contains("call i1 @__emu_barrier_red_or(i32 0, i1 %a)"),
        "{out}"
    );
    assert_eq!(
        c.matches("call void @__emu_threadfence()").count(),
        2,
        "{out}"
    );
    // One declaration each.
    assert_eq!(
        c.matches("declare void @__emu_threadfence()").count(),
        1,
        "{out}"
    );
}

#[test]
fn nvvm_math_becomes_generic_intrinsics() {
    let out = retarget(
        r#"
define float @f(float %x, double %y) {
  %a = call float @llvm.nvvm.sqrt.rn.f(float %x)
  %b = call float @llvm.nvvm.fabs.ftz.f32(float %a)
  %c = call float @llvm.nvvm.fmin.ftz.f(float %b, float %x)
  %d = call double @llvm.nvvm.fmax.d(double %y, double 1.0)
  %e = call float @llvm.nvvm.ex2.approx.ftz.f32(float %c)
  %f = call float @llvm.nvvm.lg2.approx.f(float %e)
  %g = call double @llvm.nvvm.rcp.rn.d(double %d)
  %h = fptrunc double %g to float
  %i = fadd float %f, %h
  ret float %i
}
declare float @llvm.nvvm.sqrt.rn.f(float)
declare float @llvm.nvvm.fabs.ftz.f32(float)
declare float @llvm.nvvm.fmin.ftz.f(float, float)
declare double @llvm.nvvm.fmax.d(double, double)
declare float @llvm.nvvm.ex2.approx.ftz.f32(float)
declare float @llvm.nvvm.lg2.approx.f(float)
declare double @llvm.nvvm.rcp.rn.d(double)
"#,
    );
    let c = code(&out);
    assert!(!c.contains("llvm.nvvm"), "{out}");
    for want in [
        "@llvm.sqrt.f32(float %x)",
        "@llvm.fabs.f32(float %a)",
        "@llvm.minnum.f32(float %b, float %x)",
        "@llvm.maxnum.f64(double %y",
        "@llvm.exp2.f32(float %c)",
        "@llvm.log2.f32(float %e)",
        "@__emu_rcp(double %d)",
    ] {
        assert!(c.contains(want), "no `{want}` in\n{out}");
    }
}

#[test]
fn unsupported_intrinsic_is_named() {
    let text = format!(
        "{HEADER}
define i32 @f(i32 %v) {{
  %r = call i32 @llvm.nvvm.shfl.sync.idx.i32(i32 -1, i32 %v, i32 0, i32 31)
  ret i32 %r
}}
declare i32 @llvm.nvvm.shfl.sync.idx.i32(i32, i32, i32, i32)
"
    );
    let err = retarget_to_host(&text).unwrap_err();
    assert!(
        err.message
            .contains("`llvm.nvvm.shfl.sync.idx.i32` (1 use)"),
        "{err}"
    );
    assert!(err.help.is_some());
}

#[test]
fn strings_comments_and_names_are_left_alone() {
    let out = retarget(
        r#"
@msg = private constant [13 x i8] c"addrspace(3)\00"
@ptx_kernel = global i32 0

; a comment mentioning addrspace(3) and ptx_kernel
define void @f(ptr %addrspace) {
  %ptx_kernel = load i32, ptr @ptx_kernel
  store i32 %ptx_kernel, ptr %addrspace
  ret void
}
"#,
    );
    let c = code(&out);
    assert!(c.contains(r#"c"addrspace(3)\00""#), "{out}");
    assert!(c.contains("@ptx_kernel = global i32 0"), "{out}");
    assert!(
        c.contains("%ptx_kernel = load i32, ptr @ptx_kernel"),
        "{out}"
    );
    assert!(c.contains("ptr %addrspace"), "{out}");
}

#[test]
fn nvvm_function_attributes_are_dropped() {
    let out = retarget(
        r#"
define ptx_kernel void @k() #0 {
  ret void
}
attributes #0 = { nounwind "nvvm.maxntid"="128" "target-cpu"="sm_80" "target-features"="+ptx80,+sm_80" "frame-pointer"="all" }
"#,
    );
    let c = code(&out);
    assert!(!c.contains("nvvm."), "{out}");
    assert!(!c.contains("sm_80"), "{out}");
    assert!(c.contains("\"frame-pointer\"=\"all\""), "{out}");
}

#[test]
fn retargeting_twice_is_a_no_op() {
    let once = retarget(
        r#"
define ptx_kernel void @k(ptr %p) {
  %t = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  store i32 %t, ptr %p
  ret void
}
"#,
    );
    let twice = retarget_to_host(&once).expect("second retarget");
    assert_eq!(code(&once), code(&twice));
}

#[test]
fn parse_errors_are_diagnostics() {
    let err = retarget_to_host("define void @f( {").unwrap_err();
    assert!(err.message.contains("does not parse"), "{err}");
}
