; enzyme_shouldrecompute: two calls whose results the reverse sweep needs
; in every iteration of a loop; the one to a function carrying the
; attribute is called again in the reverse sweep, the other is cached.
; Used by cli_errors.rs for --print-plan and as an accepted input.
define double @f(ptr %x, i32 %n) {
entry:
  br label %loop

loop:
  %i = phi i32 [ 0, %entry ], [ %i.next, %loop ]
  %s = phi double [ 0.0, %entry ], [ %s.next, %loop ]
  %p = getelementptr double, ptr %x, i32 %i
  %v = load double, ptr %p
  %w = call double @weight(i32 %i)
  %u = call double @cached_weight(i32 %i)
  %t = fmul double %v, %w
  %t2 = fmul double %t, %u
  %s.next = fadd double %s, %t2
  store double 0.0, ptr %p
  %i.next = add i32 %i, 1
  %c = icmp slt i32 %i.next, %n
  br i1 %c, label %loop, label %exit

exit:
  ret double %s.next
}

define double @weight(i32 %k) #0 {
  %f = sitofp i32 %k to double
  %r = fmul double %f, 0.5
  ret double %r
}

define double @cached_weight(i32 %k) #1 {
  %f = sitofp i32 %k to double
  %r = fadd double %f, 0.5
  ret double %r
}

attributes #0 = { noinline "enzyme_shouldrecompute" }
attributes #1 = { noinline }

declare double @__enzyme_autodiff(ptr, ...)

define void @caller(ptr %x, ptr %dx, i32 %n) {
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @f, ptr %x, ptr %dx, i32 %n)
  ret void
}
