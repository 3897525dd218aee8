; dgetrf_ (Fortran) with M and N in two variables: getrf's rule is for
; square matrices, and nothing here shows M = N (they are run-time values),
; so the call is refused rather than taken as square.
define double @f(ptr %a, i32 %m, i32 %n) {
  %mp = alloca i32
  %np = alloca i32
  %lda = alloca i32
  %info = alloca i32
  %ipiv = alloca [4 x i32]
  store i32 %m, ptr %mp
  store i32 %n, ptr %np
  store i32 %m, ptr %lda
  call void @dgetrf_(ptr %mp, ptr %np, ptr %a, ptr %lda, ptr %ipiv, ptr %info)
  %v = load double, ptr %a
  ret double %v
}
define void @main(ptr %a, ptr %da, i32 %m, i32 %n) {
  call void (ptr, ...) @__enzyme_autodiff(ptr @f, ptr %a, ptr %da, i32 %m, i32 %n)
  ret void
}
declare void @dgetrf_(ptr, ptr, ptr, ptr, ptr, ptr)
declare void @__enzyme_autodiff(ptr, ...)
