; A square root computed by inline assembly: no derivative (the FMAs
; Eigen writes as inline assembly are differentiated, this is not).
define double @f(double %x) {
  %r = call double asm "sqrtsd $1, $0", "=x,x,~{dirflag},~{fpsr},~{flags}"(double %x)
  %y = fmul double %r, %x
  ret double %y
}
define double @main() {
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @f, double 2.000000e+00)
  ret double %d
}
declare double @__enzyme_autodiff(ptr, ...)
