; What clang -O1 makes of a function registered with __enzyme_function_like
; that it inlined: the registration stays, nothing calls the function, and
; the derivative goes through the inlined body. enz-rs succeeds but warns.
@__enzyme_function_like = global [2 x ptr] [ptr @log1p_like, ptr @.name]
@.name = private constant [6 x i8] c"log1p\00"

define double @log1p_like(double %a) {
  %r = fmul double %a, 2.0
  ret double %r
}

define double @test(double %a) {
  %r = fmul double %a, 2.0
  ret double %r
}

declare double @__enzyme_autodiff(ptr, ...)

define double @dtest(double %x) {
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @test, double %x)
  ret double %d
}
