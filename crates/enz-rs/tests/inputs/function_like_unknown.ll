; __enzyme_function_like names a function enz-rs has no rule for.
@.name = private unnamed_addr constant [7 x i8] c"lgamma\00"
@__enzyme_function_like_g = global [2 x ptr] [ptr @my_lgamma, ptr @.name]

define double @my_lgamma(double %x) {
  ret double %x
}

declare double @__enzyme_autodiff(ptr, ...)

define double @caller(double %x) {
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @my_lgamma, double %x)
  ret double %d
}
