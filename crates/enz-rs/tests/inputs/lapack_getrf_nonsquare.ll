; LAPACKE_dgetrf of a 3 x 2 matrix: getrf's rule is for square matrices,
; so a call whose dimensions are known to differ is refused.
define double @f(ptr %a) {
  %ipiv = alloca [2 x i32]
  %r = call i32 @LAPACKE_dgetrf(i32 102, i32 3, i32 2, ptr %a, i32 3, ptr %ipiv)
  %v = load double, ptr %a
  ret double %v
}
define void @main(ptr %a, ptr %da) {
  call void (ptr, ...) @__enzyme_autodiff(ptr @f, ptr %a, ptr %da)
  ret void
}
declare i32 @LAPACKE_dgetrf(i32, i32, i32, ptr, i32, ptr)
declare void @__enzyme_autodiff(ptr, ...)
