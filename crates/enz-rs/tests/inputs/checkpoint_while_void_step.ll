; __enzyme_checkpoint_while with a step that returns nothing: the loop
; could not end; a diagnostic naming the call and the step's form.
@enzyme_scheme = external global i32
@scheme = external global [80 x i8]

define void @run(ptr %u, ptr %config) {
  %s = load i32, ptr @enzyme_scheme
  call void (ptr, ...) @__enzyme_checkpoint_while(ptr @step, i32 %s, ptr @scheme, ptr %config, ptr %u)
  ret void
}
declare void @__enzyme_checkpoint_while(ptr, ...)
define internal void @step(i64 %i, ptr %u) {
  %a = load double, ptr %u
  %c = fmul double %a, 5.000000e-01
  store double %c, ptr %u
  ret void
}
