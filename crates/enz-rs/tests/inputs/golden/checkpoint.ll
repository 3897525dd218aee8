; Golden IR input: checkpointing (--cache-budget 1): a time loop over a state in memory, recomputed from saved states.
; enz-args: --cache-budget 1
; Generated once by `clang-22 -O1 -S -emit-llvm -I runtime/include` from:
;   #include <math.h>
;   #include "enzyme.h"
;   void __enzyme_autodiff_v(void *, ...);
;   /* A time loop over a state in memory: checkpointed under the budget. */
;   __attribute__((noinline)) static void f(double *u, int n, int T) {
;     for (int t = 0; t < T; t++)
;       for (int i = 0; i < n; i++)
;         u[i] = u[i] * sin(u[i]);
;   }
;   void grad(double *u, double *du, int n, int T) {
;     __enzyme_autodiff_v((void *)f, enzyme_dup, u, du, n, T);
;   }

; ModuleID = 'checkpoint.c'
source_filename = "checkpoint.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@enzyme_dup = external local_unnamed_addr global i32, align 4

; Function Attrs: nounwind uwtable
define dso_local void @grad(ptr noundef %0, ptr noundef %1, i32 noundef %2, i32 noundef %3) local_unnamed_addr #0 {
  %5 = load i32, ptr @enzyme_dup, align 4, !tbaa !5
  tail call void (ptr, ...) @__enzyme_autodiff_v(ptr noundef nonnull @f, i32 noundef %5, ptr noundef %0, ptr noundef %1, i32 noundef %2, i32 noundef %3) #4
  ret void
}

declare void @__enzyme_autodiff_v(ptr noundef, ...) local_unnamed_addr #1

; Function Attrs: nofree noinline norecurse nounwind memory(argmem: readwrite, errnomem: write) uwtable
define internal void @f(ptr noundef captures(none) %0, i32 noundef %1, i32 noundef %2) #2 {
  %4 = icmp sgt i32 %2, 0
  br i1 %4, label %5, label %10

5:                                                ; preds = %3
  %6 = icmp sgt i32 %1, 0
  %7 = zext nneg i32 %1 to i64
  br label %8

8:                                                ; preds = %5, %11
  %9 = phi i32 [ 0, %5 ], [ %12, %11 ]
  br i1 %6, label %14, label %11

10:                                               ; preds = %11, %3
  ret void

11:                                               ; preds = %14, %8
  %12 = add nuw nsw i32 %9, 1
  %13 = icmp eq i32 %12, %2
  br i1 %13, label %10, label %8, !llvm.loop !9

14:                                               ; preds = %8, %14
  %15 = phi i64 [ %20, %14 ], [ 0, %8 ]
  %16 = getelementptr inbounds nuw double, ptr %0, i64 %15
  %17 = load double, ptr %16, align 8, !tbaa !12
  %18 = tail call double @sin(double noundef %17) #4, !tbaa !5
  %19 = fmul double %17, %18
  store double %19, ptr %16, align 8, !tbaa !12
  %20 = add nuw nsw i64 %15, 1
  %21 = icmp eq i64 %20, %7
  br i1 %21, label %11, label %14, !llvm.loop !14
}

; Function Attrs: mustprogress nocallback nofree nounwind willreturn memory(errnomem: write)
declare double @sin(double noundef) local_unnamed_addr #3

attributes #0 = { nounwind uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #2 = { nofree noinline norecurse nounwind memory(argmem: readwrite, errnomem: write) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
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
!9 = distinct !{!9, !10, !11}
!10 = !{!"llvm.loop.mustprogress"}
!11 = !{!"llvm.loop.unroll.disable"}
!12 = !{!13, !13, i64 0}
!13 = !{!"double", !7, i64 0}
!14 = distinct !{!14, !10, !11}
