; A call through a function type that differs from the callee's definition
; (undefined in LLVM; enz-rs used to segfault building its adjoint).
define double @g(double %x) {
  %y = fmul double %x, %x
  ret double %y
}
define double @f(double %x) {
  %p = call ptr @g(double %x)
  %v = load double, ptr %p
  %r = fadd double %v, %x
  ret double %r
}
declare double @__enzyme_autodiff(ptr, ...)
define double @main_grad(double %x) {
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @f, double %x)
  ret double %d
}
