; enzyme_width as the last argument: its value is missing.
define double @sq(double %x) {
  %r = fmul double %x, %x
  ret double %r
}

declare double @__enzyme_fwddiff(ptr, ...)

define double @caller(double %x) {
  %d = call double (ptr, ...) @__enzyme_fwddiff(ptr @sq, double %x, double 1.0, metadata !"enzyme_width")
  ret double %d
}
