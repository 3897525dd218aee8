// cpp_complex_fast.cpp: cpp_complex.cpp under -ffast-math (complex products
// and quotients inlined without libgcc's NaN-recovering helpers, libm
// calls as intrinsics); same checks. Finite-math-only stays off so that
// check.h's isfinite tests keep their meaning.
// enz-cflags: -ffast-math -fno-finite-math-only
#include "cpp_complex.cpp"
