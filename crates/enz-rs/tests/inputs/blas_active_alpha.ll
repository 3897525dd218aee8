; A BLAS call whose alpha is active (differentiated with respect to):
; enz-rs differentiates BLAS calls with respect to their arrays only, so
; it refuses the call by name rather than drop alpha's derivative.
define double @f(double %a, ptr %x, ptr %y) {
  call void @cblas_daxpy(i32 2, double %a, ptr %x, i32 1, ptr %y, i32 1)
  %v = load double, ptr %y
  ret double %v
}
define double @main(ptr %x, ptr %dx, ptr %y, ptr %dy) {
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @f, double 2.0, ptr %x, ptr %dx, ptr %y, ptr %dy)
  ret double %d
}
declare void @cblas_daxpy(i32, double, ptr, i32, ptr, i32)
declare double @__enzyme_autodiff(ptr, ...)
