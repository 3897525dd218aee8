; A loop whose values reach the reverse sweep in every planned way: used
; directly (after the loop), an affine induction variable, recomputed
; arithmetic, a re-read load, cached per iteration. Used by cli_errors.rs
; for --print-plan.
target datalayout = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-i128:128-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-linux-gnu"

define dso_local double @f(ptr noundef readonly captures(none) %0, i32 noundef %1) local_unnamed_addr {
  %3 = icmp sgt i32 %1, 0
  br i1 %3, label %4, label %6

4:                                                ; preds = %2
  %5 = zext nneg i32 %1 to i64
  br label %12

6:                                                ; preds = %12, %2
  %7 = phi double [ 0.000000e+00, %2 ], [ %19, %12 ]
  %8 = load double, ptr %0, align 8
  %9 = getelementptr inbounds nuw i8, ptr %0, i64 8
  %10 = load double, ptr %9, align 8
  %11 = tail call double @llvm.fmuladd.f64(double %8, double %10, double %7)
  ret double %11

12:                                               ; preds = %4, %12
  %13 = phi i64 [ 0, %4 ], [ %20, %12 ]
  %14 = phi double [ 0.000000e+00, %4 ], [ %19, %12 ]
  %15 = getelementptr inbounds nuw double, ptr %0, i64 %13
  %16 = load double, ptr %15, align 8
  %17 = tail call double @sin(double noundef %16)
  %18 = fmul double %16, %17
  %19 = tail call double @llvm.fmuladd.f64(double %18, double %18, double %14)
  %20 = add nuw nsw i64 %13, 1
  %21 = icmp eq i64 %20, %5
  br i1 %21, label %6, label %12
}

declare double @sin(double noundef) local_unnamed_addr

declare double @llvm.fmuladd.f64(double, double, double)

