; enzyme_dup_return asks reverse mode for the return's shadow, which only
; forward mode returns.
define double @sq(double %x) {
  %r = fmul double %x, %x
  ret double %r
}

@enzyme_dup_return = external global i32
declare double @__enzyme_autodiff(ptr, ...)

define double @caller(double %x) {
  %m = load i32, ptr @enzyme_dup_return
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @sq, i32 %m, double %x)
  ret double %d
}
