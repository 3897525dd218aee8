; Loads and stores aligned to 2^32, the largest alignment LLVM allows (its C
; API reports it as 0): the shadow accesses must still carry a valid one.
define double @f(ptr %p) {
  %v = load double, ptr %p, align 4294967296
  %r = fmul double %v, %v
  store double %r, ptr %p, align 4294967296
  ret double %r
}
declare double @__enzyme_autodiff(ptr, ...)
declare double @__enzyme_fwddiff(ptr, ...)
define void @grad(ptr %p, ptr %dp) {
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @f, ptr %p, ptr %dp)
  ret void
}
define double @tangent(ptr %p, ptr %dp) {
  %d = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, ptr %p, ptr %dp)
  ret double %d
}
