; an activity marker after the last parameter, with nothing to qualify (by
; address, as C++ passes it): a diagnostic naming the marker and function.
define double @sq(double %x) {
  %r = fmul double %x, %x
  ret double %r
}

@enzyme_const = external global i32
declare double @__enzyme_autodiff(ptr, ...)

define double @caller(double %x) {
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @sq, double %x, ptr @enzyme_const)
  ret double %d
}
