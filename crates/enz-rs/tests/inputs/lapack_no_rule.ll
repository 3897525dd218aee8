; A LAPACK routine enz-rs has no rule for (dgetri_, an inverse from LU
; factors), in reverse mode, passed a matrix holding derivatives: refused
; by name.
@n = private constant i32 2
define double @f(ptr %a) {
  %ipiv = alloca [2 x i32]
  store i32 1, ptr %ipiv
  %work = alloca [4 x double]
  %lwork = alloca i32
  %info = alloca i32
  store i32 4, ptr %lwork
  call void @dgetri_(ptr @n, ptr %a, ptr @n, ptr %ipiv, ptr %work, ptr %lwork, ptr %info)
  %v = load double, ptr %a
  ret double %v
}
define void @main(ptr %a, ptr %da) {
  call void (ptr, ...) @__enzyme_autodiff(ptr @f, ptr %a, ptr %da)
  ret void
}
declare void @dgetri_(ptr, ptr, ptr, ptr, ptr, ptr, ptr)
declare void @__enzyme_autodiff(ptr, ...)
