; Golden IR input: forward mode (__enzyme_fwddiff): an active scalar and a duplicated array.
; Generated once by `clang-22 -O1 -S -emit-llvm -I runtime/include` from:
;   #include <math.h>
;   #include "enzyme.h"
;   double __enzyme_fwddiff_d(void *, ...);
;   __attribute__((noinline)) static double f(double x, const double *p) {
;     return sin(x) * p[0] + x * p[1];
;   }
;   double tangent(double x, double dx, const double *p, const double *dp) {
;     return __enzyme_fwddiff_d((void *)f, x, dx, enzyme_dup, p, dp);
;   }

; ModuleID = 'forward.c'
source_filename = "forward.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@enzyme_dup = external local_unnamed_addr global i32, align 4

; Function Attrs: nounwind uwtable
define dso_local double @tangent(double noundef %0, double noundef %1, ptr noundef %2, ptr noundef %3) local_unnamed_addr #0 {
  %5 = load i32, ptr @enzyme_dup, align 4, !tbaa !5
  %6 = tail call double (ptr, ...) @__enzyme_fwddiff_d(ptr noundef nonnull @f, double noundef %0, double noundef %1, i32 noundef %5, ptr noundef %2, ptr noundef %3) #5
  ret double %6
}

declare double @__enzyme_fwddiff_d(ptr noundef, ...) local_unnamed_addr #1

; Function Attrs: mustprogress nofree noinline norecurse nounwind willreturn memory(argmem: read, errnomem: write) uwtable
define internal double @f(double noundef %0, ptr noundef readonly captures(none) %1) #2 {
  %3 = tail call double @sin(double noundef %0) #5, !tbaa !5
  %4 = load double, ptr %1, align 8, !tbaa !9
  %5 = getelementptr inbounds nuw i8, ptr %1, i64 8
  %6 = load double, ptr %5, align 8, !tbaa !9
  %7 = fmul double %0, %6
  %8 = tail call double @llvm.fmuladd.f64(double %3, double %4, double %7)
  ret double %8
}

; Function Attrs: mustprogress nocallback nofree nounwind willreturn memory(errnomem: write)
declare double @sin(double noundef) local_unnamed_addr #3

; Function Attrs: mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare double @llvm.fmuladd.f64(double, double, double) #4

attributes #0 = { nounwind uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #2 = { mustprogress nofree noinline norecurse nounwind willreturn memory(argmem: read, errnomem: write) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #3 = { mustprogress nocallback nofree nounwind willreturn memory(errnomem: write) "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #4 = { mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none) }
attributes #5 = { nounwind }

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
