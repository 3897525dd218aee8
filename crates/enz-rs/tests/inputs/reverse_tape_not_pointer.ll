; __enzyme_reverse whose last value, where the tape goes, is not a pointer.
define double @h(ptr %x, double %c) {
  %v = load double, ptr %x
  %m = fmul double %v, %c
  ret double %m
}
declare ptr @__enzyme_augmentfwd(ptr, ...)
declare double @__enzyme_reverse(ptr, ...)
define double @run(ptr %x, ptr %dx, double %c) {
  %tape = call ptr (ptr, ...) @__enzyme_augmentfwd(ptr @h, metadata !"enzyme_dup", ptr %x, ptr %dx, double %c)
  %d = call double (ptr, ...) @__enzyme_reverse(ptr @h, metadata !"enzyme_dup", ptr %x, ptr %dx, double %c, double 1.0, i64 7)
  ret double %d
}
