; __enzyme_set_fixed_point (the in-loop form) is not supported: a
; diagnostic naming it and the step-function form, not a link error.
define void @solve(ptr %u) {
entry:
  br label %loop
loop:
  call void (double, i64, ptr, ...) @__enzyme_set_fixed_point(double -1.000000e+00, i64 -1, ptr null, ptr %u, i64 8)
  %a = load double, ptr %u
  %b = fmul double %a, 5.000000e-01
  store double %b, ptr %u
  %c = fcmp ogt double %b, 1.000000e-12
  br i1 %c, label %loop, label %done
done:
  ret void
}
declare void @__enzyme_set_fixed_point(double, i64, ptr, ...)
