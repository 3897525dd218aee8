; A double written to a stream and read back inside differentiated code
; (std::ostream's operator<<(double) on the active x, then std::istream's
; operator>>(double&)): what is read was written from active data, so it
; is a diagnostic rather than a silently constant value. (A read with no
; such write in the differentiated code reads a constant: see
; c_tests/read_constant_input.c.)
define double @f(double %x) {
  %s = alloca [16 x i8]
  %p = alloca double
  %w = call ptr @_ZNSolsEd(ptr %s, double %x)
  %v = call ptr @_ZNSirsERd(ptr %s, ptr %p)
  %y = load double, ptr %p
  %r = fmul double %y, %x
  ret double %r
}
declare ptr @_ZNSolsEd(ptr, double)
declare ptr @_ZNSirsERd(ptr, ptr)
define double @main() {
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @f, double 1.5)
  ret double %d
}
declare double @__enzyme_autodiff(ptr, ...)
