; enzyme_primal_return on a function that returns void.
define void @sq(ptr %p, double %x) {
  %r = fmul double %x, %x
  store double %r, ptr %p
  ret void
}

declare double @__enzyme_autodiff(ptr, ...)

define double @caller(ptr %p, ptr %dp, double %x) {
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @sq, metadata !"enzyme_primal_return", ptr %p, ptr %dp, double %x)
  ret double %d
}
