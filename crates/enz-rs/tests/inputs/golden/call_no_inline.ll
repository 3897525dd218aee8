; Golden IR input: calls under --no-inline: the callee gets its own augmented primal and reverse, with a tape.
; enz-args: --no-inline
; Generated once by `clang-22 -O1 -S -emit-llvm -I runtime/include` from:
;   #include <math.h>
;   #include "enzyme.h"
;   double __enzyme_autodiff_d(void *, ...);
;   __attribute__((noinline)) static double g(double a, double *p) {
;     double r = a * p[0];
;     p[0] = sin(a);
;     return r;
;   }
;   __attribute__((noinline)) static double f(double x, double *p) {
;     return g(x, p) * x;
;   }
;   double grad(double x, double *p, double *dp) {
;     return __enzyme_autodiff_d((void *)f, x, enzyme_dup, p, dp);
;   }

; ModuleID = 'call_no_inline.c'
source_filename = "call_no_inline.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@enzyme_dup = external local_unnamed_addr global i32, align 4

; Function Attrs: nounwind uwtable
define dso_local double @grad(double noundef %0, ptr noundef %1, ptr noundef %2) local_unnamed_addr #0 {
  %4 = load i32, ptr @enzyme_dup, align 4, !tbaa !5
  %5 = tail call double (ptr, ...) @__enzyme_autodiff_d(ptr noundef nonnull @f, double noundef %0, i32 noundef %4, ptr noundef %1, ptr noundef %2) #4
  ret double %5
}

declare double @__enzyme_autodiff_d(ptr noundef, ...) local_unnamed_addr #1

; Function Attrs: mustprogress nofree noinline norecurse nounwind willreturn memory(argmem: readwrite, errnomem: write) uwtable
define internal double @f(double noundef %0, ptr noundef captures(none) %1) #2 {
  %3 = tail call fastcc double @g(double noundef %0, ptr noundef %1)
  %4 = fmul double %0, %3
  ret double %4
}

; Function Attrs: mustprogress nofree noinline norecurse nounwind willreturn memory(argmem: readwrite, errnomem: write) uwtable
define internal fastcc double @g(double noundef %0, ptr noundef captures(none) %1) unnamed_addr #2 {
  %3 = load double, ptr %1, align 8, !tbaa !9
  %4 = fmul double %0, %3
  %5 = tail call double @sin(double noundef %0) #4, !tbaa !5
  store double %5, ptr %1, align 8, !tbaa !9
  ret double %4
}

; Function Attrs: mustprogress nocallback nofree nounwind willreturn memory(errnomem: write)
declare double @sin(double noundef) local_unnamed_addr #3

attributes #0 = { nounwind uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #2 = { mustprogress nofree noinline norecurse nounwind willreturn memory(argmem: readwrite, errnomem: write) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #3 = { mustprogress nocallback nofree nounwind willreturn memory(errnomem: write) "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #4 = { nounwind }

!llvm.module.flags = !{!0, !1, !2, !3}
!llvm.errno.tbaa = !{!5}

!0 = !{i32 1, !"wchar_size", i32 4}
!1 = !{i32 8, !"PIC Level", i32 2}
!2 = !{i32 7, !"PIE Level", i32 2}
!3 = !{i32 7, !"uwtable", i32 2}
!5 = !{!6, !6, i64 0}
!6 = !{!"int", !7, i64 0}
!7 = !{!"omnipotent char", !8, i64 0}
!8 = !{!"Simple C/C++ TBAA"}
!9 = !{!10, !10, i64 0}
!10 = !{!"double", !7, i64 0}
