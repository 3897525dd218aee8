; __enzyme_checkpoint_for naming no enzyme_scheme: a diagnostic naming the
; call and the missing scheme, not a loop without anyone to drive it.
@enzyme_checkpoint_region = external global i32

define void @run(ptr %u, i64 %n) {
  %r = load i32, ptr @enzyme_checkpoint_region
  call void (ptr, i64, i64, ...) @__enzyme_checkpoint_for(ptr @step, i64 0, i64 %n, i32 %r, ptr %u, i64 8, ptr %u)
  ret void
}
declare void @__enzyme_checkpoint_for(ptr, i64, i64, ...)
define internal void @step(i64 %i, ptr %u) {
  %a = load double, ptr %u
  %c = fmul double %a, 5.000000e-01
  store double %c, ptr %u
  ret void
}
