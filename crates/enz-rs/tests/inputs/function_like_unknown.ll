; __enzyme_function_like names a function enz-rs has no rule for.
@.name = private unnamed_addr constant [10 x i8] c"nextafter\00"
@__enzyme_function_like_g = global [2 x ptr] [ptr @my_nextafter, ptr @.name]

define double @my_nextafter(double %x) {
  ret double %x
}

declare double @__enzyme_autodiff(ptr, ...)

define double @caller(double %x) {
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @my_nextafter, double %x)
  ret double %d
}
