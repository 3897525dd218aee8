; A BLAS routine enz-rs has no rule for (complex precision), passed an
; array holding derivatives: refused by name.
define double @f(ptr %a, ptr %c) {
  call void @cblas_zgemm(i32 102, i32 111, i32 111, i32 2, i32 2, i32 2, ptr %a, ptr %a, i32 2, ptr %a, i32 2, ptr %a, ptr %c, i32 2)
  %v = load double, ptr %c
  ret double %v
}
define void @main(ptr %a, ptr %da, ptr %c, ptr %dc) {
  call void (ptr, ...) @__enzyme_autodiff(ptr @f, ptr %a, ptr %da, ptr %c, ptr %dc)
  ret void
}
declare void @cblas_zgemm(i32, i32, i32, i32, i32, i32, ptr, ptr, i32, ptr, i32, ptr, ptr, i32)
declare void @__enzyme_autodiff(ptr, ...)
