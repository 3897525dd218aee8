; ENZYME_FUNCTION_LIKE naming a function enz-rs has no rule for: a
; diagnostic naming both, not a silently wrong derivative.
@.str = private unnamed_addr constant [21 x i8] c"enzyme_function_like\00", section "llvm.metadata"
@.file = private unnamed_addr constant [4 x i8] c"a.c\00", section "llvm.metadata"
@.like = private unnamed_addr constant [9 x i8] c"my_magic\00"
@.args = private unnamed_addr constant { ptr } { ptr @.like }, section "llvm.metadata"
@llvm.global.annotations = appending global [1 x { ptr, ptr, ptr, i32, ptr }] [{ ptr, ptr, ptr, i32, ptr } { ptr @approx, ptr @.str, ptr @.file, i32 3, ptr @.args }], section "llvm.metadata"

define double @main(double %x) {
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @approx, double %x)
  ret double %d
}
declare double @__enzyme_autodiff(ptr, ...)

define double @approx(double %x) noinline {
  %y = fmul double %x, %x
  ret double %y
}
