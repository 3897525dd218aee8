; `struct { float x; int k; }` returned by value: the x86-64 ABI returns it
; as an i64 that the caller takes apart (trunc, bitcast). Without inlining,
; the derivative through x was silently 0; enz-rs refuses it instead.
define internal i64 @mk(float %a) noinline {
  %s = fmul float %a, %a
  %bits = bitcast float %s to i32
  %wide = zext i32 %bits to i64
  %packed = or i64 %wide, 12884901888
  ret i64 %packed
}
define float @f(ptr %p) {
  %x = load float, ptr %p
  %r = call i64 @mk(float %x)
  %lo = trunc i64 %r to i32
  %y = bitcast i32 %lo to float
  ret float %y
}
declare void @__enzyme_autodiff(ptr, ...)
define void @grad(ptr %p, ptr %dp) {
  call void (ptr, ...) @__enzyme_autodiff(ptr @f, metadata !"enzyme_dup", ptr %p, ptr %dp)
  ret void
}
