; enzyme_width in reverse mode through a call enz-rs does not inline (a
; recursive function): a diagnostic naming the callee, not a wrong answer.
@enzyme_width = external global i32
@enzyme_dup = external global i32

define void @main(ptr %x, ptr %dx0, ptr %dx1) {
  call void (ptr, ...) @__enzyme_autodiff(ptr @outer, ptr @enzyme_width, i64 2, ptr @enzyme_dup, ptr %x, ptr %dx0, ptr %dx1, i32 3)
  ret void
}
declare void @__enzyme_autodiff(ptr, ...)

define internal void @outer(ptr %x, i32 %n) {
  %r = call double @pw(ptr %x, i32 %n)
  store double %r, ptr %x
  ret void
}

define internal double @pw(ptr %x, i32 %n) {
  %c = icmp eq i32 %n, 0
  br i1 %c, label %base, label %rec
base:
  ret double 1.0
rec:
  %m = sub i32 %n, 1
  %p = call double @pw(ptr %x, i32 %m)
  %v = load double, ptr %x
  %r = fmul double %p, %v
  ret double %r
}
