; A copy whose pointers carry no type in the module (they come from the
; caller): only the "enzyme_type" attributes rustc writes say that it
; moves doubles. ir_checks.rs differentiates it with and without them.
target triple = "x86_64-pc-linux-gnu"
@enzyme_dup = external global i32

define void @copy8(ptr "enzyme_type"="{[-1]:Pointer, [-1,-1]:Float@double}" %dst, ptr "enzyme_type"="{[-1]:Pointer, [-1,-1]:Float@double}" %src) {
  call void @llvm.memcpy.p0.p0.i64(ptr %dst, ptr %src, i64 8, i1 false)
  ret void
}

define void @grad(ptr %d, ptr %dd, ptr %s, ptr %ds) {
  call void (ptr, ...) @__enzyme_autodiff(ptr @copy8, ptr @enzyme_dup, ptr %d, ptr %dd, ptr @enzyme_dup, ptr %s, ptr %ds)
  ret void
}

declare void @__enzyme_autodiff(ptr, ...)
declare void @llvm.memcpy.p0.p0.i64(ptr, ptr, i64, i1)
