; A scalable vector only as an alloca's allocated type (its size is known at
; run time only): refused, where it used to abort inside LLVM.
define double @f(double %x, i1 %c) {
  %a = alloca <vscale x 2 x double>
  %b = alloca double
  %s = select i1 %c, ptr %a, ptr %b
  store double %x, ptr %s
  %v = load double, ptr %s
  %r = fmul double %v, %x
  ret double %r
}
declare double @__enzyme_autodiff(ptr, ...)
define double @g(double %x, i1 %c) {
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @f, double %x, metadata !"enzyme_const", i1 %c)
  ret double %d
}
