; Golden IR input: split mode (__enzyme_augmentfwd / __enzyme_reverse): augmented forward with a tape, then reverse.
; Generated once by `clang-22 -O1 -S -emit-llvm -I runtime/include` from:
;   #include <math.h>
;   #include "enzyme.h"
;   void *__enzyme_augmentfwd(void *, ...);
;   void __enzyme_reverse(void *, ...);
;   /* Split mode: the augmented forward returns a tape the reverse reads. */
;   __attribute__((noinline)) static void f(double *x) {
;     x[0] = sin(x[0]) * x[0];
;   }
;   void grad(double *x, double *dx) {
;     void *tape = __enzyme_augmentfwd((void *)f, enzyme_dup, x, dx);
;     __enzyme_reverse((void *)f, enzyme_dup, x, dx, tape);
;   }

; ModuleID = 'split.c'
source_filename = "split.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

@enzyme_dup = external local_unnamed_addr global i32, align 4

; Function Attrs: nounwind uwtable
define dso_local void @grad(ptr noundef %0, ptr noundef %1) local_unnamed_addr #0 {
  %3 = load i32, ptr @enzyme_dup, align 4, !tbaa !5
  %4 = tail call ptr (ptr, ...) @__enzyme_augmentfwd(ptr noundef nonnull @f, i32 noundef %3, ptr noundef %0, ptr noundef %1) #4
  %5 = load i32, ptr @enzyme_dup, align 4, !tbaa !5
  tail call void (ptr, ...) @__enzyme_reverse(ptr noundef nonnull @f, i32 noundef %5, ptr noundef %0, ptr noundef %1, ptr noundef %4) #4
  ret void
}

declare ptr @__enzyme_augmentfwd(ptr noundef, ...) local_unnamed_addr #1

; Function Attrs: mustprogress nofree noinline norecurse nounwind willreturn memory(argmem: readwrite, errnomem: write) uwtable
define internal void @f(ptr noundef captures(none) %0) #2 {
  %2 = load double, ptr %0, align 8, !tbaa !9
  %3 = tail call double @sin(double noundef %2) #4, !tbaa !5
  %4 = fmul double %2, %3
  store double %4, ptr %0, align 8, !tbaa !9
  ret void
}

declare void @__enzyme_reverse(ptr noundef, ...) local_unnamed_addr #1

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
