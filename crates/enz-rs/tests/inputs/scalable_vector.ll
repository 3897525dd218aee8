; A function over scalable vectors (<vscale x 2 x double>): their size is
; only known at run time; enz-rs refuses them with a diagnostic.
define double @main(ptr %x, ptr %dx) {
  call void (ptr, ...) @__enzyme_autodiff(ptr @f, ptr %x, ptr %dx)
  ret double 0.0
}
declare void @__enzyme_autodiff(ptr, ...)
define internal void @f(ptr %p) {
  %v = load <vscale x 2 x double>, ptr %p
  %w = fmul <vscale x 2 x double> %v, %v
  store <vscale x 2 x double> %w, ptr %p
  ret void
}
