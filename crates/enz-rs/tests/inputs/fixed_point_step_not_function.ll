; __enzyme_fixed_point whose step is a pointer read at run time, not a
; function of the module: a diagnostic naming the call.
@enzyme_fp_state = external global i32

define void @solve(ptr %u, ptr %fnp) {
  %s = load i32, ptr @enzyme_fp_state
  %step = load ptr, ptr %fnp
  call void (ptr, ...) @__enzyme_fixed_point(ptr %step, i32 %s, ptr %u, i64 8, ptr %u)
  ret void
}
declare void @__enzyme_fixed_point(ptr, ...)
