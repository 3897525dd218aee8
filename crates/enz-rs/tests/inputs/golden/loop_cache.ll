; Golden IR input: a loop whose reverse sweep needs a value of every iteration: a per-iteration cache.
; Generated once by `clang-22 -O1 -S -emit-llvm -I runtime/include` from:
;   #include "enzyme.h"
;   double __enzyme_autodiff_d(void *, ...);
;   /* Horner's scheme: the reverse sweep needs s of every iteration. */
;   __attribute__((noinline)) static double f(const double *c, double x, int n) {
;     double s = 0.0;
;     for (int i = 0; i < n; i++)
;       s = s * x + c[i];
;     return s;
;   }
;   double grad(const double *c, double *dc, double x, int n) {
;     return __enzyme_autodiff_d((void *)f, enzyme_dup, c, dc, x, n);
;   }

; ModuleID = 'loop_cache.c'
source_filename = "loop_cache.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@enzyme_dup = external local_unnamed_addr global i32, align 4

; Function Attrs: nounwind uwtable
define dso_local double @grad(ptr noundef %0, ptr noundef %1, double noundef %2, i32 noundef %3) local_unnamed_addr #0 {
  %5 = load i32, ptr @enzyme_dup, align 4, !tbaa !5
  %6 = tail call double (ptr, ...) @__enzyme_autodiff_d(ptr noundef nonnull @f, i32 noundef %5, ptr noundef %0, ptr noundef %1, double noundef %2, i32 noundef %3) #4
  ret double %6
}

declare double @__enzyme_autodiff_d(ptr noundef, ...) local_unnamed_addr #1

; Function Attrs: nofree noinline norecurse nosync nounwind memory(argmem: read) uwtable
define internal double @f(ptr noundef readonly captures(none) %0, double noundef %1, i32 noundef %2) #2 {
  %4 = icmp sgt i32 %2, 0
  br i1 %4, label %5, label %7

5:                                                ; preds = %3
  %6 = zext nneg i32 %2 to i64
  br label %9

7:                                                ; preds = %9, %3
  %8 = phi double [ 0.000000e+00, %3 ], [ %14, %9 ]
  ret double %8

9:                                                ; preds = %5, %9
  %10 = phi i64 [ 0, %5 ], [ %15, %9 ]
  %11 = phi double [ 0.000000e+00, %5 ], [ %14, %9 ]
  %12 = getelementptr inbounds nuw double, ptr %0, i64 %10
  %13 = load double, ptr %12, align 8, !tbaa !9
  %14 = tail call double @llvm.fmuladd.f64(double %11, double %1, double %13)
  %15 = add nuw nsw i64 %10, 1
  %16 = icmp eq i64 %15, %6
  br i1 %16, label %7, label %9, !llvm.loop !11
}

; Function Attrs: mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare double @llvm.fmuladd.f64(double, double, double) #3

attributes #0 = { nounwind uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #2 = { nofree noinline norecurse nosync nounwind memory(argmem: read) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #3 = { mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none) }
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
!11 = distinct !{!11, !12, !13}
!12 = !{!"llvm.loop.mustprogress"}
!13 = !{!"llvm.loop.unroll.disable"}
