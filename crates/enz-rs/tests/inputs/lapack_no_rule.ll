; A LAPACK routine enz-rs has no rule for (dgetrf_, an LU factorisation),
; in reverse mode, passed a matrix holding derivatives: refused by name.
@n = private constant i32 2
define double @f(ptr %a) {
  %ipiv = alloca [2 x i32]
  %info = alloca i32
  call void @dgetrf_(ptr @n, ptr @n, ptr %a, ptr @n, ptr %ipiv, ptr %info)
  %v = load double, ptr %a
  ret double %v
}
define void @main(ptr %a, ptr %da) {
  call void (ptr, ...) @__enzyme_autodiff(ptr @f, ptr %a, ptr %da)
  ret void
}
declare void @dgetrf_(ptr, ptr, ptr, ptr, ptr, ptr)
declare void @__enzyme_autodiff(ptr, ...)
