; __enzyme_fixed_point naming no enzyme_fp_state: a diagnostic naming the
; call and the missing state, not a loop without a state to converge.
@enzyme_fp_reduction = external global i32

define void @solve(ptr %u, ptr %p) {
  %r = load i32, ptr @enzyme_fp_reduction
  call void (ptr, ...) @__enzyme_fixed_point(ptr @step, i32 %r, double 1.000000e-20, ptr %u, ptr %p)
  ret void
}
declare void @__enzyme_fixed_point(ptr, ...)
define internal i32 @step(i64 %i, ptr %u, ptr %p) {
  %a = load double, ptr %u
  %b = load double, ptr %p
  %c = fmul double %a, 5.000000e-01
  %d = fadd double %c, %b
  store double %d, ptr %u
  %e = fsub double %d, %a
  %f = fcmp ogt double %e, 1.000000e-12
  %g = zext i1 %f to i32
  ret i32 %g
}
