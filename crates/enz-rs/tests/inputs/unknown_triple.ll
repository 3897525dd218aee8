; A module for an architecture LLVM does not know: refused (opt and clang
; refuse it too), where enz-rs used to write it out unchanged.
target triple = "qwerty-unknown-linux"
; A minimal valid input: one __enzyme_autodiff call site of a defined
; function. Used as the positive control of cli_errors.rs and as the source
; of the truncated-bitcode case.
define double @square(double %x) {
  %r = fmul double %x, %x
  ret double %r
}

declare double @__enzyme_autodiff(ptr, ...)

define double @dsquare(double %x) {
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @square, double %x)
  ret double %d
}
