; Golden IR input: loads and stores through shadow memory: reverse mode (combined), two duplicated arrays.
; Generated once by `clang-22 -O1 -S -emit-llvm -I runtime/include` from:
;   #include <math.h>
;   #include "enzyme.h"
;   void __enzyme_autodiff_v(void *, ...);
;   __attribute__((noinline)) static void f(const double *x, double *y) {
;     y[0] = x[0] * x[1];
;     y[1] = sin(x[0]) + y[1];
;   }
;   void grad(const double *x, double *dx, double *y, double *dy) {
;     __enzyme_autodiff_v((void *)f, enzyme_dup, x, dx, enzyme_dup, y, dy);
;   }

; ModuleID = 'mem_shadow.c'
source_filename = "mem_shadow.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@enzyme_dup = external local_unnamed_addr global i32, align 4

; Function Attrs: nounwind uwtable
define dso_local void @grad(ptr noundef %0, ptr noundef %1, ptr noundef %2, ptr noundef %3) local_unnamed_addr #0 {
  %5 = load i32, ptr @enzyme_dup, align 4, !tbaa !5
  tail call void (ptr, ...) @__enzyme_autodiff_v(ptr noundef nonnull @f, i32 noundef %5, ptr noundef %0, ptr noundef %1, i32 noundef %5, ptr noundef %2, ptr noundef %3) #4
  ret void
}

declare void @__enzyme_autodiff_v(ptr noundef, ...) local_unnamed_addr #1

; Function Attrs: mustprogress nofree noinline norecurse nounwind willreturn memory(argmem: readwrite, errnomem: write) uwtable
define internal void @f(ptr noundef readonly captures(none) %0, ptr noundef captures(none) initializes((0, 8)) %1) #2 {
  %3 = load double, ptr %0, align 8, !tbaa !9
  %4 = getelementptr inbounds nuw i8, ptr %0, i64 8
  %5 = load double, ptr %4, align 8, !tbaa !9
  %6 = fmul double %3, %5
  store double %6, ptr %1, align 8, !tbaa !9
  %7 = load double, ptr %0, align 8, !tbaa !9
  %8 = tail call double @sin(double noundef %7) #4, !tbaa !5
  %9 = getelementptr inbounds nuw i8, ptr %1, i64 8
  %10 = load double, ptr %9, align 8, !tbaa !9
  %11 = fadd double %8, %10
  store double %11, ptr %9, align 8, !tbaa !9
  ret void
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
