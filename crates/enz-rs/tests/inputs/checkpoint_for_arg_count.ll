; __enzyme_checkpoint_for passing the step fewer arguments than it takes:
; a diagnostic naming the call, the step and the counts.
@enzyme_scheme = external global i32
@scheme = external global [80 x i8]

define void @run(ptr %u, ptr %config, i64 %n) {
  %s = load i32, ptr @enzyme_scheme
  call void (ptr, i64, i64, ...) @__enzyme_checkpoint_for(ptr @step, i64 0, i64 %n, i32 %s, ptr @scheme, ptr %config, ptr %u)
  ret void
}
declare void @__enzyme_checkpoint_for(ptr, i64, i64, ...)
define internal void @step(i64 %i, ptr %u, double %alpha) {
  %a = load double, ptr %u
  %c = fmul double %a, %alpha
  store double %c, ptr %u
  ret void
}
