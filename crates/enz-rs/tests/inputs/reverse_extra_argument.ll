; __enzyme_reverse given one value more than `h` takes before the return
; adjoint and the tape (found by enz-fuzz malformed): the extra `i32 4`
; was passed where the adjoint goes and the module did not verify (exit 2).
define double @h(ptr %x, double %c, i32 %n) {
  %v = load double, ptr %x
  %m = fmul double %v, %c
  ret double %m
}
declare ptr @__enzyme_augmentfwd(ptr, ...)
declare double @__enzyme_reverse(ptr, ...)
@enzyme_dup = external global i32
define double @run(ptr %x, ptr %dx, double %c) {
  %tape = call ptr (ptr, ...) @__enzyme_augmentfwd(ptr @h, metadata !"enzyme_dup", ptr %x, ptr %dx, double %c, i32 4)
  %d = call double (ptr, ...) @__enzyme_reverse(ptr @h, metadata !"enzyme_dup", ptr %x, ptr %dx, double %c, i32 4, i32 4, double 1.0, ptr %tape)
  ret double %d
}
