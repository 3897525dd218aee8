; enzyme_dup followed by a pointer and then a double where the shadow
; pointer belongs.
@enzyme_dup = external global i32
define double @main(ptr %x) {
  %m = load i32, ptr @enzyme_dup
  call void (ptr, ...) @__enzyme_autodiff(ptr @sum2, i32 %m, ptr %x, double 1.000000e+00)
  ret double 0.0
}
declare void @__enzyme_autodiff(ptr, ...)
define internal double @sum2(ptr %p) {
  %a = load double, ptr %p
  %q = getelementptr double, ptr %p, i64 1
  %b = load double, ptr %q
  %s = fadd double %a, %b
  ret double %s
}
