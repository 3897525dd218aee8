; enzyme_width with __enzyme_augmentfwd (split mode has no vector form):
; a diagnostic naming the entry points that take it.
@enzyme_width = external global i32

define ptr @main(double %x) {
  %t = call ptr (ptr, ...) @__enzyme_augmentfwd(ptr @sq, ptr @enzyme_width, i64 2, double %x)
  ret ptr %t
}
declare ptr @__enzyme_augmentfwd(ptr, ...)

define internal double @sq(double %0) {
  %2 = fmul double %0, %0
  ret double %2
}
