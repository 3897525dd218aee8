; @f_needs_two takes two doubles, the call site passes one: an error that
; must name the function and say "argument".
define double @f_needs_two(double %x, double %y) {
  %r = fmul double %x, %y
  ret double %r
}

declare double @__enzyme_autodiff(ptr, ...)

define double @caller() {
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @f_needs_two, double 1.0)
  ret double %d
}
