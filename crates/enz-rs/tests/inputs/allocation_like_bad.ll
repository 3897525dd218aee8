; __enzyme_allocation_like whose deallocator arguments do not say where
; the pointer goes (no -1): refused, naming the registration.
@.spec = private unnamed_addr constant [4 x i8] c"1,1\00"
@__enzyme_allocation_like_pool = global [4 x ptr] [ptr @my_alloc, ptr null, ptr @.spec, ptr @my_free]

declare ptr @malloc(i64)
declare void @free(ptr)

define ptr @my_alloc(i64 %n, i32 %tag) {
  %p = call ptr @malloc(i64 %n)
  ret ptr %p
}

define void @my_free(i32 %tag, ptr %p) {
  call void @free(ptr %p)
  ret void
}

define double @sq(double %x) {
  %r = fmul double %x, %x
  ret double %r
}

declare double @__enzyme_autodiff(ptr, ...)

define double @caller(double %x) {
  %d = call double (ptr, ...) @__enzyme_autodiff(ptr @sq, double %x)
  ret double %d
}
