; __enzyme_batch without `enzyme_width, N`: a diagnostic saying what is
; missing, not a module that fails to link.
define double @main() {
  %1 = call double (ptr, ...) @__enzyme_batch(ptr @sq, double 3.000000e+00)
  ret double %1
}
declare double @__enzyme_batch(ptr, ...)
define internal double @sq(double %0) {
  %2 = fmul double %0, %0
  ret double %2
}
