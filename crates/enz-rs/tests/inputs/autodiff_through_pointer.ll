; __enzyme_autodiff used as data (stored into a table) rather than called:
; the reference would be an undefined symbol at link time.
@table = global ptr @__enzyme_autodiff
define double @main() {
  %1 = call double (ptr, ...) @__enzyme_autodiff(ptr @sq, double 3.000000e+00)
  ret double %1
}
declare double @__enzyme_autodiff(ptr, ...)
define internal double @sq(double %0) {
  %2 = fmul double %0, %0
  ret double %2
}
