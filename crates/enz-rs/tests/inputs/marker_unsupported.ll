; An Enzyme marker enz-rs does not implement (enzyme_runtime_activity):
; a diagnostic naming it, not a type mismatch.
define double @sq(double %x) {
  %r = fmul double %x, %x
  ret double %r
}

declare double @__enzyme_autodiff(ptr, ...)

define double @caller(double %x) {
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @sq, metadata !"enzyme_runtime_activity", double %x)
  ret double %d
}
