/*
 * enzyme.h -- user-facing declarations for enz-rs (Enzyme-compatible).
 *
 * enz-rs differentiates LLVM IR. C code asks for a derivative by calling one
 * of the __enzyme_* functions declared below; `enz-rs in.bc -o out.bc`
 * replaces every such call with a call to a synthesised derivative function.
 * None of these functions has a definition: a program that is linked without
 * running enz-rs first fails to link, on purpose.
 *
 * Call sites are recognised by a callee name that CONTAINS the entry-point
 * name, so any number of differently typed declarations can coexist, e.g.
 * `__enzyme_autodiff`, `__enzyme_autodiff_f32`, `__enzyme_autodiff_grad2`.
 *
 * Reverse mode (__enzyme_autodiff):
 *
 *     double f(double x, double y);
 *     double dfdx = __enzyme_autodiff((void *)f, x, enzyme_const, y);
 *
 *   The first argument is the function to differentiate. Then comes one value
 *   per parameter of that function, each optionally preceded by an activity
 *   marker (one of the enzyme_* globals below, passed by value):
 *
 *     enzyme_out       the parameter is active and passed by value; its
 *                      adjoint is returned.
 *     enzyme_const     the parameter is inactive; no adjoint.
 *     enzyme_dup       (pointers) the next TWO values are the primal pointer
 *                      and its shadow; adjoints are accumulated into the
 *                      shadow memory.
 *     enzyme_dupnoneed like enzyme_dup, but the primal result is not needed.
 *
 *   Without a marker: floating-point parameters are `out`, integer
 *   parameters are `const`, pointer parameters are `dup`.
 *
 *   An active floating-point return value of the function is seeded with 1.0,
 *   so the result is the gradient of the return value.
 *
 *   `float` values passed through the `...` are promoted to `double` by C;
 *   enz-rs converts them back to the parameter type of the function.
 *
 * Return value of __enzyme_autodiff:
 *
 *   - no `out` parameter: no value (declare the entry point as returning
 *     void);
 *   - one `out` parameter: its adjoint, as a scalar of the parameter's type.
 *     Use __enzyme_autodiff for double and __enzyme_autodiff_f32 for float;
 *   - several `out` parameters: a struct holding their adjoints in argument
 *     order, with the parameters' types as element types and the ordinary C
 *     layout. Declare an entry point returning that struct yourself:
 *
 *         typedef struct { double dx, dy; } grad2;
 *         grad2 __enzyme_autodiff_grad2(void *, ...);
 *
 *         double f(double x, double y) { return x * y; }
 *         grad2 g = __enzyme_autodiff_grad2((void *)f, 3.0, 4.0);
 *         // g.dx == 4.0, g.dy == 3.0
 *
 *     Any C return convention works: registers ({double,double},
 *     {float,float} as <2 x float>, {float,double}), or memory (sret) for
 *     larger structs such as three or more doubles.
 *
 * Forward mode (__enzyme_fwddiff): an active parameter is marked enzyme_dup
 *   and followed by its tangent; the result is the tangent of the return
 *   value.
 *
 * Split reverse mode: __enzyme_augmentfwd runs the forward sweep and returns
 *   a tape; __enzyme_reverse (with enzyme_tape, tape) runs the reverse sweep.
 */
#ifndef ENZYME_H
#define ENZYME_H

#ifdef __cplusplus
extern "C" {
#endif

/* Activity markers. Only their identity matters: enz-rs recognises a value
 * loaded from one of these globals at a call site. */
extern int enzyme_dup;
extern int enzyme_dupnoneed;
extern int enzyme_out;
extern int enzyme_const;
extern int enzyme_allocated;
extern int enzyme_tape;
extern int enzyme_width;
extern int enzyme_scalar;

/* Reverse mode, one double `out` parameter (or a double-typed result). */
double __enzyme_autodiff(void *, ...);
/* Reverse mode, one float `out` parameter. */
float __enzyme_autodiff_f32(void *, ...);

/* Forward mode. */
double __enzyme_fwddiff(void *, ...);

/* Split reverse mode. */
void *__enzyme_augmentfwd(void *, ...);
void __enzyme_reverse(void *, ...);

#ifdef __cplusplus
}
#endif

#endif /* ENZYME_H */
