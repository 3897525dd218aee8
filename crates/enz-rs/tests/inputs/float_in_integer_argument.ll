; `struct { float x; int k; }` passed by value: the x86-64 ABI packs the
; float's bits into an i64 (bitcast, zext, or). Without inlining, the
; callee's derivative would get no derivative for x (the gradient was
; silently 0); enz-rs refuses it instead.
define internal float @use(i64 %s) noinline {
  %lo = trunc i64 %s to i32
  %x = bitcast i32 %lo to float
  %sq = fmul float %x, %x
  ret float %sq
}
define float @f(ptr %p) {
  %x = load float, ptr %p
  %y = fmul float %x, 2.0
  %bits = bitcast float %y to i32
  %wide = zext i32 %bits to i64
  %packed = or i64 %wide, 12884901888
  %r = call float @use(i64 %packed)
  ret float %r
}
declare void @__enzyme_autodiff(ptr, ...)
define void @grad(ptr %p, ptr %dp) {
  call void (ptr, ...) @__enzyme_autodiff(ptr @f, metadata !"enzyme_dup", ptr %p, ptr %dp)
  ret void
}
