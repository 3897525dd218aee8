; __enzyme_batch with an activity marker (enzyme_dup) before a parameter:
; batching has no activities, so a diagnostic rather than the marker's
; address passed on as a value.
@enzyme_width = external global i32
@enzyme_dup = external global i32

define void @main(ptr %out) {
  %1 = call [2 x double] (ptr, ...) @__enzyme_batch(ptr @sq, ptr @enzyme_width, i64 2, ptr @enzyme_dup, double 3.0, double 4.0)
  store [2 x double] %1, ptr %out
  ret void
}
declare [2 x double] @__enzyme_batch(ptr, ...)

define internal double @sq(double %0) {
  %2 = fmul double %0, %0
  ret double %2
}
