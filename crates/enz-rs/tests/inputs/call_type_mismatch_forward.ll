; A call whose arguments do not match the callee's parameters, in forward
; mode (enz-rs used to emit a derivative call that did not verify).
define double @pw(i32 %n) {
  %c = sitofp i32 %n to double
  ret double %c
}
define double @f(double %x) {
  %p = call double @pw(double %x, i16 3)
  %r = fmul double %p, %x
  ret double %r
}
declare double @__enzyme_fwddiff(ptr, ...)
define double @main_grad(double %x) {
  %d = call double (ptr, ...) @__enzyme_fwddiff(ptr @f, double %x, double 1.0)
  ret double %d
}
