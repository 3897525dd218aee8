; __enzyme_autodiff declared to return a pointer while the adjoint is a double.
define ptr @main() {
  %1 = call ptr (ptr, ...) @__enzyme_autodiff(ptr @sq, double 3.000000e+00)
  ret ptr %1
}
declare ptr @__enzyme_autodiff(ptr, ...)
define internal double @sq(double %0) {
  %2 = fmul double %0, %0
  ret double %2
}
