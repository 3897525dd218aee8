; C++ with exceptions reaches __enzyme_autodiff through `invoke`; the
; landing pad's phi has an entry for the invoking block.
@enzyme_dup = external global i32
define double @main() personality ptr @__gxx_personality_v0 {
entry:
  %x = alloca [2 x double]
  %dx = alloca [2 x double]
  store double 3.0, ptr %x
  %x1 = getelementptr double, ptr %x, i64 1
  store double 0.5, ptr %x1
  store double 0.0, ptr %dx
  %dx1 = getelementptr double, ptr %dx, i64 1
  store double 0.0, ptr %dx1
  %m = load i32, ptr @enzyme_dup
  invoke void (ptr, ...) @__enzyme_autodiff(ptr @prod, i32 %m, ptr %x, ptr %dx)
          to label %ok unwind label %lpad
ok:
  %g0 = load double, ptr %dx
  %g1 = load double, ptr %dx1
  %s = fadd double %g0, %g1
  ret double %s
lpad:
  %from = phi i32 [ 7, %entry ]
  %lp = landingpad { ptr, i32 } cleanup
  resume { ptr, i32 } %lp
}
declare void @__enzyme_autodiff(ptr, ...)
declare i32 @__gxx_personality_v0(...)
define internal double @prod(ptr %p) {
  %a = load double, ptr %p
  %q = getelementptr double, ptr %p, i64 1
  %b = load double, ptr %q
  %s = fmul double %a, %b
  ret double %s
}
