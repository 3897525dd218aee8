; #pragma omp ordered in a parallel loop differentiated in reverse mode (made by clang-22 -O1 -fopenmp): refused, naming the ordered call
; ModuleID = 'ordered_in.c'
source_filename = "ordered_in.c"
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

%struct.ident_t = type { i32, i32, i32, i32, ptr }

@0 = private unnamed_addr constant [23 x i8] c";unknown;unknown;0;0;;\00", align 1
@1 = private unnamed_addr constant %struct.ident_t { i32 0, i32 2, i32 0, i32 22, ptr @0 }, align 8
@enzyme_dup = external local_unnamed_addr global i32, align 4

; Function Attrs: nounwind uwtable
define dso_local double @ord(ptr noundef %0) #0 {
  %2 = alloca ptr, align 8
  %3 = alloca double, align 8
  store ptr %0, ptr %2, align 8, !tbaa !10
  call void @llvm.lifetime.start.p0(ptr nonnull %3) #3
  store double 1.000000e+00, ptr %3, align 8, !tbaa !13
  call void (ptr, i32, ptr, ...) @__kmpc_fork_call(ptr nonnull @1, i32 2, ptr nonnull @ord.omp_outlined, ptr nonnull %3, ptr nonnull %2)
  %4 = load double, ptr %3, align 8, !tbaa !13
  call void @llvm.lifetime.end.p0(ptr nonnull %3) #3
  ret double %4
}

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.start.p0(ptr captures(none)) #1

; Function Attrs: alwaysinline norecurse nounwind uwtable
define internal void @ord.omp_outlined(ptr noalias noundef readonly captures(none) %0, ptr noalias readnone captures(none) %1, ptr noundef nonnull align 8 captures(none) dereferenceable(8) %2, ptr noundef nonnull readonly align 8 captures(none) dereferenceable(8) %3) #2 {
  %5 = alloca i32, align 4
  %6 = alloca i32, align 4
  %7 = alloca i32, align 4
  %8 = alloca i32, align 4
  call void @llvm.lifetime.start.p0(ptr nonnull %5) #3
  store i32 0, ptr %5, align 4, !tbaa !6
  call void @llvm.lifetime.start.p0(ptr nonnull %6) #3
  store i32 7, ptr %6, align 4, !tbaa !6
  call void @llvm.lifetime.start.p0(ptr nonnull %7) #3
  store i32 1, ptr %7, align 4, !tbaa !6
  call void @llvm.lifetime.start.p0(ptr nonnull %8) #3
  store i32 0, ptr %8, align 4, !tbaa !6
  %9 = load i32, ptr %0, align 4, !tbaa !6
  tail call void @__kmpc_dispatch_init_4(ptr nonnull @1, i32 %9, i32 65, i32 0, i32 7, i32 1, i32 1)
  %10 = call i32 @__kmpc_dispatch_next_4(ptr nonnull @1, i32 %9, ptr nonnull %8, ptr nonnull %5, ptr nonnull %6, ptr nonnull %7)
  %11 = icmp eq i32 %10, 0
  br i1 %11, label %32, label %15

12:                                               ; preds = %21, %15
  %13 = call i32 @__kmpc_dispatch_next_4(ptr nonnull @1, i32 %9, ptr nonnull %8, ptr nonnull %5, ptr nonnull %6, ptr nonnull %7)
  %14 = icmp eq i32 %13, 0
  br i1 %14, label %32, label %15

15:                                               ; preds = %4, %12
  %16 = load i32, ptr %5, align 4, !tbaa !6
  %17 = load i32, ptr %6, align 4, !tbaa !6
  %18 = icmp sgt i32 %16, %17
  br i1 %18, label %12, label %19

19:                                               ; preds = %15
  %20 = sext i32 %16 to i64
  br label %21

21:                                               ; preds = %19, %21
  %22 = phi i64 [ %20, %19 ], [ %28, %21 ]
  call void @__kmpc_ordered(ptr nonnull @1, i32 %9)
  %23 = load double, ptr %2, align 8, !tbaa !13
  %24 = load ptr, ptr %3, align 8, !tbaa !10
  %25 = getelementptr inbounds double, ptr %24, i64 %22
  %26 = load double, ptr %25, align 8, !tbaa !13
  %27 = call double @llvm.fmuladd.f64(double %23, double %26, double 1.000000e+00)
  store double %27, ptr %2, align 8, !tbaa !13
  call void @__kmpc_end_ordered(ptr nonnull @1, i32 %9)
  %28 = add nsw i64 %22, 1
  call void @__kmpc_dispatch_fini_4(ptr nonnull @1, i32 %9)
  %29 = load i32, ptr %6, align 4, !tbaa !6
  %30 = sext i32 %29 to i64
  %31 = icmp slt i64 %22, %30
  br i1 %31, label %21, label %12

32:                                               ; preds = %12, %4
  call void @__kmpc_dispatch_deinit(ptr nonnull @1, i32 %9)
  call void @llvm.lifetime.end.p0(ptr nonnull %8) #3
  call void @llvm.lifetime.end.p0(ptr nonnull %7) #3
  call void @llvm.lifetime.end.p0(ptr nonnull %6) #3
  call void @llvm.lifetime.end.p0(ptr nonnull %5) #3
  ret void
}

; Function Attrs: nounwind
declare void @__kmpc_dispatch_init_4(ptr, i32, i32, i32, i32, i32, i32) local_unnamed_addr #3

; Function Attrs: nounwind
declare i32 @__kmpc_dispatch_next_4(ptr, i32, ptr, ptr, ptr, ptr) local_unnamed_addr #3

; Function Attrs: convergent nounwind
declare void @__kmpc_ordered(ptr, i32) local_unnamed_addr #4

; Function Attrs: convergent nounwind
declare void @__kmpc_end_ordered(ptr, i32) local_unnamed_addr #4

; Function Attrs: mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare double @llvm.fmuladd.f64(double, double, double) #5

; Function Attrs: nounwind
declare void @__kmpc_dispatch_fini_4(ptr, i32) local_unnamed_addr #3

; Function Attrs: nounwind
declare void @__kmpc_dispatch_deinit(ptr, i32) local_unnamed_addr #3

; Function Attrs: mustprogress nocallback nofree nosync nounwind willreturn memory(argmem: readwrite)
declare void @llvm.lifetime.end.p0(ptr captures(none)) #1

; Function Attrs: nounwind
declare !callback !15 void @__kmpc_fork_call(ptr, i32, ptr, ...) local_unnamed_addr #3

; Function Attrs: nounwind uwtable
define dso_local double @grad(ptr noundef %0, ptr noundef %1) local_unnamed_addr #0 {
  %3 = load i32, ptr @enzyme_dup, align 4, !tbaa !6
  %4 = tail call double (ptr, ...) @__enzyme_autodiff(ptr noundef nonnull @ord, i32 noundef %3, ptr noundef %0, ptr noundef %1) #3
  ret double %4
}

declare double @__enzyme_autodiff(ptr noundef, ...) local_unnamed_addr #6

attributes #0 = { nounwind uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { mustprogress nocallback nofree nosync nounwind willreturn memory(argmem: readwrite) }
attributes #2 = { alwaysinline norecurse nounwind uwtable "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #3 = { nounwind }
attributes #4 = { convergent nounwind }
attributes #5 = { mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none) }
attributes #6 = { "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cmov,+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }

!llvm.errno.tbaa = !{!6}

!0 = !{i32 1, !"wchar_size", i32 4}
!1 = !{i32 7, !"openmp", i32 51}
!2 = !{i32 8, !"PIC Level", i32 2}
!3 = !{i32 7, !"PIE Level", i32 2}
!4 = !{i32 7, !"uwtable", i32 2}
!5 = !{!"Debian clang version 22.1.8 (1~deb12u1)"}
!6 = !{!7, !7, i64 0}
!7 = !{!"int", !8, i64 0}
!8 = !{!"omnipotent char", !9, i64 0}
!9 = !{!"Simple C/C++ TBAA"}
!10 = !{!11, !11, i64 0}
!11 = !{!"p1 double", !12, i64 0}
!12 = !{!"any pointer", !8, i64 0}
!13 = !{!14, !14, i64 0}
!14 = !{!"double", !8, i64 0}
!15 = !{!16}
!16 = !{i64 2, i64 -1, i64 -1, i1 true}
