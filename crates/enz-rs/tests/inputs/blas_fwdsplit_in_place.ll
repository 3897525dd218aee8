; __enzyme_fwdsplit of a function whose BLAS call updates memory in place
; (cblas_dscal on its argument): running it again from what
; __enzyme_augmentfwd left would scale twice, so a diagnostic names the
; call, not a wrong tangent.
@enzyme_dup = external global i32

define void @main(ptr %x, ptr %dx) {
  %t = call ptr (ptr, ...) @__enzyme_augmentfwd(ptr @scale_in_place, ptr @enzyme_dup, ptr %x, ptr %dx)
  call void (ptr, ...) @__enzyme_fwdsplit(ptr @scale_in_place, ptr @enzyme_dup, ptr %x, ptr %dx, ptr %t)
  ret void
}
declare ptr @__enzyme_augmentfwd(ptr, ...)
declare void @__enzyme_fwdsplit(ptr, ...)
declare void @cblas_dscal(i32, double, ptr, i32)

define internal void @scale_in_place(ptr %x) {
  call void @cblas_dscal(i32 3, double 2.0, ptr %x, i32 1)
  ret void
}
