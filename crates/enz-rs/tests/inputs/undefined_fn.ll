; @ext_no_body has no body to differentiate (and no known derivative rule):
; an error that must name the function.
declare double @ext_no_body(double)

declare double @__enzyme_autodiff(ptr, ...)

define double @caller() {
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @ext_no_body, double 1.0)
  ret double %d
}
