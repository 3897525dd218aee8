; __enzyme_fwdsplit without the tape of __enzyme_augmentfwd: a diagnostic
; saying what is missing.
define double @main(double %x) {
  %d = call double (ptr, ...) @__enzyme_fwdsplit(ptr @sq, double %x, double 1.0)
  ret double %d
}
declare double @__enzyme_fwdsplit(ptr, ...)

define internal double @sq(double %0) {
  %2 = fmul double %0, %0
  ret double %2
}
