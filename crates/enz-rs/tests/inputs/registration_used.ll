; Registrations marked __attribute__((used)) (listed in llvm.used and
; llvm.compiler.used, as C++ static members are): read, taken out of the
; lists and deleted; nothing named __enzyme_ is left, and the other
; member of llvm.used stays.
@.name = private unnamed_addr constant [6 x i8] c"log1p\00"
@__enzyme_function_like_l = global [2 x ptr] [ptr @my_log1p, ptr @.name]
@__enzyme_inactivefn_p = global ptr @note
@keep_me = global i32 7
@llvm.used = appending global [2 x ptr] [ptr @__enzyme_function_like_l, ptr @keep_me], section "llvm.metadata"
@llvm.compiler.used = appending global [1 x ptr] [ptr @__enzyme_inactivefn_p], section "llvm.metadata"

declare double @log(double)

define double @my_log1p(double %x) noinline {
  %y = fadd double %x, 1.0
  %r = call double @log(double %y)
  ret double %r
}

define void @note(double %x) noinline {
  ret void
}

define double @f(double %x) {
  call void @note(double %x)
  %r = call double @my_log1p(double %x)
  ret double %r
}

declare double @__enzyme_autodiff(ptr, ...)

define double @caller(double %x) {
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @f, double %x)
  ret double %d
}
