; Golden IR input: GPU (NVPTX) accumulation: an adjoint at a data-dependent address, accumulated with atomics.
; Generated once by `clang-22 -x cuda --cuda-device-only --cuda-gpu-arch=sm_80 -nocudainc -nocudalib -O1 -S -emit-llvm -I runtime/include` from:
;   #include "enz_cuda.h"
;   /* tab[idx[i]] may be shared between threads: dtab takes atomics. */
;   __device__ void lookup(const double *tab, const int *idx, double *out, int n) {
;     int i = blockIdx.x * blockDim.x + threadIdx.x;
;     if (i < n)
;       out[i] = tab[idx[i]] * tab[idx[i]];
;   }
;   extern "C" __global__ void lookup_grad(const double *tab, double *dtab, const int *idx,
;                                          double *out, double *dout, int n) {
;     __enzyme_autodiff((void *)lookup, enzyme_dup, tab, dtab, enzyme_const, idx,
;                       enzyme_dup, out, dout, n);
;   }

; ModuleID = 'gpu_atomic.cu'
source_filename = "gpu_atomic.cu"
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@enzyme_dup = external dso_local local_unnamed_addr addrspace(1) global i32, align 4
@enzyme_const = external dso_local local_unnamed_addr addrspace(1) global i32, align 4

; Function Attrs: mustprogress nofree norecurse nosync nounwind willreturn memory(argmem: readwrite)
define dso_local void @_Z6lookupPKdPKiPdi(ptr noundef readonly captures(none) %0, ptr noundef readonly captures(none) %1, ptr noundef writeonly captures(none) %2, i32 noundef %3) #0 {
  %5 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %6 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %7 = mul i32 %5, %6
  %8 = tail call noundef i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %9 = add i32 %7, %8
  %10 = icmp slt i32 %9, %3
  br i1 %10, label %11, label %20

11:                                               ; preds = %4
  %12 = sext i32 %9 to i64
  %13 = getelementptr inbounds i32, ptr %1, i64 %12
  %14 = load i32, ptr %13, align 4, !tbaa !4
  %15 = sext i32 %14 to i64
  %16 = getelementptr inbounds double, ptr %0, i64 %15
  %17 = load double, ptr %16, align 8, !tbaa !8
  %18 = fmul contract double %17, %17
  %19 = getelementptr inbounds double, ptr %2, i64 %12
  store double %18, ptr %19, align 8, !tbaa !8
  br label %20

20:                                               ; preds = %11, %4
  ret void
}

; Function Attrs: convergent mustprogress noinline norecurse nounwind
define dso_local ptx_kernel void @lookup_grad(ptr noundef %0, ptr noundef %1, ptr noundef %2, ptr noundef %3, ptr noundef %4, i32 noundef %5) local_unnamed_addr #1 {
  %7 = load i32, ptr addrspacecast (ptr addrspace(1) @enzyme_dup to ptr), align 4, !tbaa !4
  %8 = load i32, ptr addrspacecast (ptr addrspace(1) @enzyme_const to ptr), align 4, !tbaa !4
  tail call void (ptr, ...) @__enzyme_autodiff(ptr noundef nonnull @_Z6lookupPKdPKiPdi, i32 noundef %7, ptr noundef %0, ptr noundef %1, i32 noundef %8, ptr noundef %2, i32 noundef %7, ptr noundef %3, ptr noundef %4, i32 noundef %5) #4
  ret void
}

; Function Attrs: convergent nounwind
declare dso_local void @__enzyme_autodiff(ptr noundef, ...) local_unnamed_addr #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #3

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 1, 1025) i32 @llvm.nvvm.read.ptx.sreg.ntid.x() #3

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x() #3

attributes #0 = { mustprogress nofree norecurse nosync nounwind willreturn memory(argmem: readwrite) "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_80" "target-features"="+ptx42,+ptx80,+sm_80" }
attributes #1 = { convergent mustprogress noinline norecurse nounwind "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_80" "target-features"="+ptx42,+ptx80,+sm_80" "uniform-work-group-size"="true" }
attributes #2 = { convergent nounwind "frame-pointer"="all" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="sm_80" "target-features"="+ptx42,+ptx80,+sm_80" }
attributes #3 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #4 = { convergent nounwind }

!llvm.module.flags = !{!0, !1, !2}
!llvm.errno.tbaa = !{!4}

!0 = !{i32 1, !"wchar_size", i32 4}
!1 = !{i32 4, !"nvvm-reflect-ftz", i32 0}
!2 = !{i32 7, !"frame-pointer", i32 2}
!4 = !{!5, !5, i64 0}
!5 = !{!"int", !6, i64 0}
!6 = !{!"omnipotent char", !7, i64 0}
!7 = !{!"Simple C++ TBAA"}
!8 = !{!9, !9, i64 0}
!9 = !{!"double", !6, i64 0}
