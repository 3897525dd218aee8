; A double read from a stream inside differentiated code (std::istream's
; operator>>(double&)): what it reads may have been written from active
; data, so it is a diagnostic rather than a silently constant value.
define double @f(double %x) {
  %s = alloca [16 x i8]
  %p = alloca double
  %1 = call ptr @_ZNSirsERd(ptr %s, ptr %p)
  %y = load double, ptr %p
  %r = fmul double %y, %x
  ret double %r
}
declare ptr @_ZNSirsERd(ptr, ptr)
define double @main() {
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @f, double 1.5)
  ret double %d
}
declare double @__enzyme_autodiff(ptr, ...)
