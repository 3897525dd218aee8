; Golden IR input: mixed mode (--mode-per-loop mixed): an elementwise loop's partials by forward mode, cached.
; enz-args: --mode-per-loop mixed
; Generated once by `clang-22 -O1 -S -emit-llvm -I runtime/include` from:
;   #include <math.h>
;   #include "enzyme.h"
;   void __enzyme_autodiff_v(void *, ...);
;   /* Elementwise: each iteration's partials by forward mode, cached. */
;   __attribute__((noinline)) static void f(const double *x, double *y, int n) {
;     for (int i = 0; i < n; i++)
;       y[i] = exp(sin(x[i]) * x[i]);
;   }
;   void grad(const double *x, double *dx, double *y, double *dy, int n) {
;     __enzyme_autodiff_v((void *)f, enzyme_dup, x, dx, enzyme_dup, y, dy, n);
;   }

; ModuleID = 'mixed_loop.c'
source_filename = "mixed_loop.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@enzyme_dup = external local_unnamed_addr global i32, align 4

; Function Attrs: nounwind uwtable
define dso_local void @grad(ptr noundef %0, ptr noundef %1, ptr noundef %2, ptr noundef %3, i32 noundef %4) local_unnamed_addr #0 {
  %6 = load i32, ptr @enzyme_dup, align 4, !tbaa !5
  tail call void (ptr, ...) @__enzyme_autodiff_v(ptr noundef nonnull @f, i32 noundef %6, ptr noundef %0, ptr noundef %1, i32 noundef %6, ptr noundef %2, ptr noundef %3, i32 noundef %4) #4
  ret void
}

declare void @__enzyme_autodiff_v(ptr noundef, ...) local_unnamed_addr #1

; Function Attrs: nofree noinline norecurse nounwind memory(argmem: readwrite, errnomem: write) uwtable
define internal void @f(ptr noundef readonly captures(none) %0, ptr noundef writeonly captures(none) %1, i32 noundef %2) #2 {
  %4 = icmp sgt i32 %2, 0
  br i1 %4, label %5, label %7

5:                                                ; preds = %3
  %6 = zext nneg i32 %2 to i64
  br label %8

7:                                                ; preds = %8, %3
  ret void

8:                                                ; preds = %5, %8
  %9 = phi i64 [ 0, %5 ], [ %16, %8 ]
  %10 = getelementptr inbounds nuw double, ptr %0, i64 %9
  %11 = load double, ptr %10, align 8, !tbaa !9
  %12 = tail call double @sin(double noundef %11) #4, !tbaa !5
  %13 = fmul double %11, %12
  %14 = tail call double @exp(double noundef %13) #4, !tbaa !5
  %15 = getelementptr inbounds nuw double, ptr %1, i64 %9
  store double %14, ptr %15, align 8, !tbaa !9
  %16 = add nuw nsw i64 %9, 1
  %17 = icmp eq i64 %16, %6
  br i1 %17, label %7, label %8, !llvm.loop !11
}

; Function Attrs: mustprogress nocallback nofree nounwind willreturn memory(errnomem: write)
declare double @exp(double noundef) local_unnamed_addr #3

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
!9 = !{!10, !10, i64 0}
!10 = !{!"double", !7, i64 0}
!11 = distinct !{!11, !12, !13}
!12 = !{!"llvm.loop.mustprogress"}
!13 = !{!"llvm.loop.unroll.disable"}
