; __enzyme_fwdsplit of a function that updates memory in place: running it
; again from what __enzyme_augmentfwd left would read the updated value, so
; a diagnostic names the load, not a wrong tangent.
@enzyme_dup = external global i32

define void @main(ptr %x, ptr %dx) {
  %t = call ptr (ptr, ...) @__enzyme_augmentfwd(ptr @square_in_place, ptr @enzyme_dup, ptr %x, ptr %dx)
  call void (ptr, ...) @__enzyme_fwdsplit(ptr @square_in_place, ptr @enzyme_dup, ptr %x, ptr %dx, ptr %t)
  ret void
}
declare ptr @__enzyme_augmentfwd(ptr, ...)
declare void @__enzyme_fwdsplit(ptr, ...)

define internal void @square_in_place(ptr %x) {
  %v = load double, ptr %x
  %s = fmul double %v, %v
  store double %s, ptr %x
  ret void
}
