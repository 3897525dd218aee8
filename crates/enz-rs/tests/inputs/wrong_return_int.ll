; __enzyme_autodiff declared to return i64 while the adjoint is a double:
; the caller would get the adjoint's bit pattern.
define i64 @main() {
  %1 = call i64 (ptr, ...) @__enzyme_autodiff(ptr @sq, double 3.000000e+00)
  ret i64 %1
}
declare i64 @__enzyme_autodiff(ptr, ...)
define internal double @sq(double %0) {
  %2 = fmul double %0, %0
  ret double %2
}
