; A BLAS routine with a rule called with other arguments than BLAS's
; (cblas_ddot with three): enz-rs cannot read them, so it refuses the
; call by name rather than guess.
define double @f(ptr %x) {
  %d = call double @cblas_ddot(i32 2, ptr %x, i32 1)
  ret double %d
}
define void @main(ptr %x, ptr %dx) {
  call void (ptr, ...) @__enzyme_autodiff(ptr @f, ptr %x, ptr %dx)
  ret void
}
declare double @cblas_ddot(i32, ptr, i32)
declare void @__enzyme_autodiff(ptr, ...)
