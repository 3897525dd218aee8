; enzyme_primal_return and enzyme_noret on one call contradict each other.
define double @sq(double %x) {
  %r = fmul double %x, %x
  ret double %r
}

declare { double, double } @__enzyme_autodiff(ptr, ...)

define { double, double } @caller(double %x) {
  %d = call { double, double } (ptr, ...) @__enzyme_autodiff(ptr @sq, metadata !"enzyme_primal_return", double %x, metadata !"enzyme_noret")
  ret { double, double } %d
}
