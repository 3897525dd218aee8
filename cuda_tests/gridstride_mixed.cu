// gridstride.cu's loop in mixed mode: the partials of each iteration's
// output (with respect to a and x[i]) by vector forward mode in the
// forward sweep, cached per iteration instead of sin, exp and the loads.
// enz-args: --mode-per-loop mixed
// enz-no-extra-atomics
#define GRIDSTRIDE(name) gridstride_mixed_##name
#include "gridstride.cu"
