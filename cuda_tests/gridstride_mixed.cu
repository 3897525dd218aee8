// gridstride.cu's loop in mixed mode: the partials of each iteration's
// output (with respect to a and x[i]) by vector forward mode in the
// forward sweep, cached per iteration instead of sin, exp and the loads.
// enz-args: --mode-per-loop mixed
// Not `enz-no-extra-atomics` (yet): in mixed mode dx[i] and dy[i] are still
// updated atomically (3 atomics where the hand-written gradient has 1), the
// thread-exclusive index is not recognised through the mixed-mode rewrite.
#define GRIDSTRIDE(name) gridstride_mixed_##name
#include "gridstride.cu"
