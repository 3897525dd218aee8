; Golden IR input: vector forward mode (enzyme_width 2): two tangents per value.
; Generated once by `clang-22 -O1 -S -emit-llvm -I runtime/include` from:
;   #include <math.h>
;   #include "enzyme.h"
;   typedef struct { double t[2]; } tan2;
;   tan2 __enzyme_fwddiff_w2(void *, ...);
;   __attribute__((noinline)) static double f(double x, double y) {
;     return exp(x) * y;
;   }
;   tan2 tangents(double x, double y) {
;     return __enzyme_fwddiff_w2((void *)f, enzyme_width, 2, x, 1.0, 0.0, y, 0.0, 1.0);
;   }

; ModuleID = 'vector_forward.c'
source_filename = "vector_forward.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@enzyme_width = external local_unnamed_addr global i32, align 4

; Function Attrs: nounwind uwtable
define dso_local { double, double } @tangents(double noundef %0, double noundef %1) local_unnamed_addr #0 {
  %3 = load i32, ptr @enzyme_width, align 4, !tbaa !5
  %4 = tail call { double, double } (ptr, ...) @__enzyme_fwddiff_w2(ptr noundef nonnull @f, i32 noundef %3, i32 noundef 2, double noundef %0, double noundef 1.000000e+00, double noundef 0.000000e+00, double noundef %1, double noundef 0.000000e+00, double noundef 1.000000e+00) #4
  ret { double, double } %4
}

declare { double, double } @__enzyme_fwddiff_w2(ptr noundef, ...) local_unnamed_addr #1

; Function Attrs: mustprogress nofree noinline norecurse nounwind willreturn memory(errnomem: write) uwtable
define internal double @f(double noundef %0, double noundef %1) #2 {
  %3 = tail call double @exp(double noundef %0) #4, !tbaa !5
  %4 = fmul double %1, %3
  ret double %4
}

; Function Attrs: mustprogress nocallback nofree nounwind willreturn memory(errnomem: write)
declare double @exp(double noundef) local_unnamed_addr #3

attributes #0 = { nounwind uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #2 = { mustprogress nofree noinline norecurse nounwind willreturn memory(errnomem: write) uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
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
