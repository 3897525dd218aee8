; C++'s sized `delete p` (`_ZdlPvm(p, size)`) of memory the reverse sweep
; re-reads: combined mode defers the delete to the end of the reverse
; sweep, which must pass it the size too (printf keeps the allocation
; from being optimised away).
declare ptr @_Znwm(i64)
declare void @_ZdlPvm(ptr, i64)
declare i32 @printf(ptr, ...)
@fmt = private constant [4 x i8] c"%p\0A\00"
define double @f(double %x) {
  %p = call ptr @_Znwm(i64 8)
  %y = fmul double %x, %x
  store double %y, ptr %p
  call i32 (ptr, ...) @printf(ptr @fmt, ptr %p)
  %v = load double, ptr %p
  %r = fmul double %v, %x
  call void @_ZdlPvm(ptr %p, i64 8)
  ret double %r
}
declare double @__enzyme_autodiff(ptr, ...)
define double @main_grad(double %x) {
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @f, double %x)
  ret double %d
}
