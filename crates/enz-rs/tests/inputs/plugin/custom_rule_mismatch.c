// A custom gradient registered with the wrong signature: rev_f takes an
// extra int. enz-rs must report it and leave nothing half-built behind for
// the passes after it (clang used to crash in instcombine / instruction
// selection on the adapter it had begun, `reverse_f`).
#include "enzyme.h"
__attribute__((noinline)) double f(double x) { return x * x; }
void *aug_f(double x) { return 0; }
double rev_f(double x, double dret, void *tape, int extra) { return 2 * x * dret; }
void *__enzyme_register_gradient_f[3] = {(void *)f, (void *)aug_f, (void *)rev_f};
double g(double x) { return f(x) + 1.0; }
double dg(double x) { return __enzyme_autodiff((void *)g, x); }
int main(void) { return (int)dg(3.0); }
