; A Fortran BLAS routine enz-rs has no rule for (dsyr2k_), in forward
; mode, passed arrays holding derivatives: refused by name.
@uplo = private constant [2 x i8] c"U\00"
@n = private constant i32 2
@one = private constant double 1.0
define double @f(ptr %a, ptr %c) {
  call void @dsyr2k_(ptr @uplo, ptr @uplo, ptr @n, ptr @n, ptr @one, ptr %a, ptr @n, ptr %a, ptr @n, ptr @one, ptr %c, ptr @n)
  %v = load double, ptr %c
  ret double %v
}
define double @main(ptr %a, ptr %da, ptr %c, ptr %dc) {
  %t = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, ptr %a, ptr %da, ptr %c, ptr %dc)
  ret double %t
}
declare void @dsyr2k_(ptr, ptr, ptr, ptr, ptr, ptr, ptr, ptr, ptr, ptr, ptr, ptr)
declare double @__enzyme_fwddiff(ptr, ...)
