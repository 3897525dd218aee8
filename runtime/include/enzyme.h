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
 *   Function pointers: a function passed for a pointer parameter (no
 *   marker, the function itself; or a choice among functions) is its own
 *   shadow, and so is `enzyme_dup, f, f`: enz-rs passes a table of f's
 *   derivatives, which calls through the pointer inside the differentiated
 *   code use. Calls through function pointers loaded from constant tables
 *   or globals initialised to functions, and callbacks stored by the
 *   differentiated code itself, need nothing from the user.
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
 * Forward mode (__enzyme_fwddiff):
 *
 *     double f(double x, double *p, int n);
 *     double t = __enzyme_fwddiff((void *)f, x, dx, p, dp, n);
 *
 *   Without a marker, floating-point and pointer parameters are DUPLICATED:
 *   the value is followed by its tangent (`x, dx` for a double; `p, dp` for
 *   a pointer, where dp points to the tangent memory: tangents of what f
 *   reads there on entry, and it receives the tangents of what f writes
 *   there). Integer parameters are const. Markers: enzyme_dup (the same),
 *   enzyme_dupnoneed (like dup, but the primal result need not be
 *   computed: only the tangent memory is meaningful afterwards) and
 *   enzyme_const (no tangent follows).
 *   The call returns the tangent of f's floating-point return value, of
 *   f's return type (declare `float __enzyme_fwddiff_f32(void *, ...)` for
 *   a float function; float arguments and tangents arrive promoted to
 *   double and enz-rs converts them). For a void f declare a void entry
 *   point (e.g. `void __enzyme_fwddiff_v(void *, ...)`); its tangents come
 *   out through the pointer shadows.
 *
 * Vector (batched) forward mode: `enzyme_width, N` (1 <= N <= 16); each
 *   duplicated parameter is then
 *   followed by N tangents (N tangent pointers for a pointer), and the call
 *   returns the N tangents of the result as a struct of N elements of the
 *   return type (any C layout of N doubles works):
 *
 *     typedef struct { double d[4]; } tan4;
 *     tan4 __enzyme_fwddiff_w4(void *, ...);
 *     tan4 t = __enzyme_fwddiff_w4((void *)f, enzyme_width, 4,
 *                                  x, dx0, dx1, dx2, dx3,
 *                                  p, dp0, dp1, dp2, dp3, n);
 *
 * Vector reverse mode: `enzyme_width, N` with __enzyme_autodiff (not with
 *   enzyme_primal_return, not in split mode): one forward sweep, N reverse
 *   sweeps. Each enzyme_dup parameter is followed by N shadows (lane k's
 *   output shadows seed lane k; its input shadows receive lane k's
 *   adjoints), an active return is seeded with 1 in every lane, and each
 *   enzyme_out parameter's N adjoints come back in a row, e.g.
 *
 *     typedef struct { double dx[2], dy[2]; } adj2;
 *     adj2 a = __enzyme_autodiff_a2((void *)g, enzyme_width, 2, x, y);
 *     __enzyme_autodiff((void *)h, enzyme_width, 2,
 *                       enzyme_dup, in, din0, din1,
 *                       enzyme_dup, out, dout0, dout1);   two rows of J
 *
 *   Calls with active data must be inlined (not recursive, not through a
 *   pointer, no custom derivative): enz-rs says which one is not.
 *
 * Split reverse mode (__enzyme_augmentfwd + __enzyme_reverse): the two
 *   sweeps of __enzyme_autodiff as two calls, both taking the same
 *   arguments as __enzyme_autodiff would for f:
 *
 *     double f(double *x, double c, int n);
 *     void *tape = __enzyme_augmentfwd((void *)f, enzyme_dup, x, dx, c, n);
 *     ... the primal side effects of f are visible here; seed the shadows ...
 *     double dc = __enzyme_reverse_d((void *)f, enzyme_dup, x, dx, c, n,
 *                                    dret, tape);
 *
 *   __enzyme_augmentfwd runs the primal with the forward sweep and returns
 *   an opaque heap tape holding what the reverse sweep needs (the caller may
 *   change unrelated memory in between). __enzyme_reverse takes the same
 *   arguments, then `dret` (the adjoint seed of f's floating-point return,
 *   passed explicitly: NOT implicitly 1.0; absent for a void f), then the
 *   tape; it accumulates adjoints into the shadows, returns the adjoints of
 *   the `out` parameters as __enzyme_autodiff does, and releases the tape.
 *   Caller-allocated tape: put `enzyme_allocated, SIZE, enzyme_tape, buf`
 *   in front of the arguments of BOTH calls; __enzyme_augmentfwd then writes
 *   the tape into the SIZE bytes at buf and returns nothing, and
 *   __enzyme_reverse takes no trailing tape:
 *
 *     __enzyme_augmentfwd_v((void *)f, enzyme_allocated, 4096, enzyme_tape,
 *                           buf, enzyme_dup, x, dx, c, n);
 *     dc = __enzyme_reverse_d((void *)f, enzyme_allocated, 4096, enzyme_tape,
 *                             buf, enzyme_dup, x, dx, c, n, dret);
 *
 * Forward split mode (__enzyme_augmentfwd + __enzyme_fwdsplit): the
 *   tangents of f after __enzyme_augmentfwd ran it, from its tape (which
 *   __enzyme_fwdsplit frees). __enzyme_augmentfwd takes f's arguments as
 *   for reverse mode (a double without its tangent), __enzyme_fwdsplit as
 *   __enzyme_fwddiff does (a double followed by its tangent), then the tape
 *   (or `enzyme_allocated, SIZE, enzyme_tape, buf` in both calls):
 *
 *     void *tape = __enzyme_augmentfwd((void *)f, enzyme_dup, x, dx, c, n);
 *     double dr = __enzyme_fwdsplit_d((void *)f, enzyme_dup, x, dx,
 *                                     c, dc, n, tape);
 *
 *   enz-rs computes the primal values the tangents need by running f again
 *   from the memory __enzyme_augmentfwd left, which gives the same values
 *   when f reads no memory it writes afterwards (declare pointers that do
 *   not overlap `restrict`); otherwise, or when f calls a function enz-rs
 *   does not inline, it says so and __enzyme_fwddiff is the way.
 *
 * Whole-call markers: `enzyme_width, N`, `enzyme_allocated, SIZE` and
 *   `enzyme_tape, PTR` (and the return markers below) configure the whole
 *   call, not one parameter: like Enzyme, enz-rs accepts them anywhere
 *   after the function, before, between or after the parameters' values:
 *
 *     __enzyme_fwddiff_w2((void *)f, x, dx0, dx1, enzyme_width, 2, y, dy0, dy1);
 *
 * Return markers (anywhere after the function; at most one of the first
 *   three per call):
 *     enzyme_const_return   the return value is inactive: __enzyme_autodiff
 *                           does not seed it (only adjoints through memory
 *                           flow), __enzyme_fwddiff returns no tangent,
 *                           __enzyme_augmentfwd/__enzyme_reverse take no
 *                           dret (give it to both calls);
 *     enzyme_active_return  a floating return is active (the default);
 *     enzyme_dup_return     __enzyme_fwddiff returns the tangents (the
 *                           default for a floating return), or the shadow
 *                           of a returned pointer; __enzyme_augmentfwd of a
 *                           function returning a pointer returns {tape, r,
 *                           shadow of r} (give it to __enzyme_reverse too);
 *                           refused by __enzyme_autodiff;
 *     enzyme_primal_return  the primal result comes first in what the call
 *                           returns: __enzyme_autodiff gives {f, adjoints of
 *                           the out parameters...} (run as the two sweeps
 *                           of split mode), __enzyme_fwddiff {f, tangents...}
 *                           (just f with enzyme_const_return);
 *     enzyme_noret          the primal result is not needed
 *                           (__enzyme_augmentfwd then returns the tape only).
 *
 *     typedef struct { double f, dx; } prim1;
 *     prim1 __enzyme_autodiff_p1(void *, ...);
 *     prim1 r = __enzyme_autodiff_p1((void *)g, enzyme_primal_return, x);
 *
 * Custom derivatives: a global array whose name starts with a registration
 *   prefix and ends in any identifier (usually f's name):
 *
 *     void *__enzyme_register_gradient_f[3] = {f, aug_f, rev_f};
 *     void *__enzyme_register_derivative_f[2] = {f, fwd_f};
 *
 *   Reverse: aug_f takes f's parameters with a shadow pointer after each
 *   pointer parameter and returns a tape (void *, may be NULL), or void
 *   when it keeps none; rev_f takes the same parameters, then `double dret`
 *   if f returns a floating-point value, then the tape (none after a void
 *   aug_f), and returns the adjoints of f's floating-point
 *   scalar parameters (one: a scalar; several: a struct; none: void),
 *   accumulating pointer adjoints into the shadows. Each dynamic call of f
 *   in differentiated code runs aug_f once and rev_f once, with that call's
 *   tape.
 *   Forward: fwd_f takes f's parameters, each floating-point or pointer
 *   parameter followed by its tangent, and returns the tangent of f's
 *   result. The primal result of f comes from f itself.
 *
 * Library-like functions (plain C, no plugin): a global array whose name
 *   contains __enzyme_function_like, holding a function and the name of a
 *   libm function with a derivative rule (or malloc, free, ...) it behaves
 *   like. Its calls stay calls to it, and are differentiated with that
 *   function's rule instead of through its body:
 *
 *     void *__enzyme_function_like_log1p[2] = {(void *)my_log1p,
 *                                              (void *)"log1p"};
 *
 * User allocators: a global array whose name contains
 *   __enzyme_allocation_like, holding {allocator, (void *)K, "-1,i,j...",
 *   deallocator}: the allocator takes the size in bytes as its argument K;
 *   the deallocator is called with the pointer (-1, first) and the
 *   allocation call's arguments i, j, ... (at most 4 in all). Shadows of
 *   its blocks are allocated by the allocator (and zeroed) and freed by
 *   the deallocator:
 *
 *     void *__enzyme_allocation_like_pool[4] = {(void *)my_alloc, (void *)0,
 *                                               (void *)"-1,1",
 *                                               (void *)my_free};
 *
 * Inactive globals: a global whose name contains __enzyme_inactive_global,
 *   initialised with the address of a global (or an array of addresses):
 *   that memory carries no derivative (a log, a counter, a cache the
 *   derivative must not see); values stored there lose their derivative
 *   and values read from there are constants:
 *
 *     void *__enzyme_inactive_global = &trace;
 *     void *__enzyme_inactive_global_more[2] = {&a, &b};
 *
 * __enzyme_nofree (functions that free nothing) is accepted as a hint.
 *
 * Registration globals (__enzyme_register_*, __enzyme_inactivefn,
 *   __enzyme_function_like, ...) are read, then removed from the output.
 */
#ifndef ENZYME_H
#define ENZYME_H

#ifdef __cplusplus
extern "C" {
#endif

/* Activity markers. Only their identity matters: enz-rs recognises a value
 * loaded from one of these globals at a call site (C: `enzyme_const`), the
 * global itself passed by address (C++ and Enzyme's <enzyme/enzyme> header:
 * `&enzyme_const`), or a metadata string of the same name (rustc).
 * C++ may declare the entry points as templates, as Enzyme's users do:
 *     template <typename R, typename... Args>
 *     R __enzyme_autodiff(void *, Args...);
 *     double d = __enzyme_autodiff<double>((void *)f, &enzyme_const, x, y);
 * (every instantiation's mangled name contains `__enzyme_autodiff`; no
 * varargs, so floats arrive as floats). */
extern int enzyme_dup;
extern int enzyme_dupnoneed;
/* With enzyme_width N: `enzyme_dupv, stride, p, shadow` passes the N
 * shadows of pointer p as one pointer, lane k's at shadow + k * stride
 * bytes (e.g. the rows of `double s[N][M]` with sizeof(s[0])). */
extern int enzyme_dupv;
extern int enzyme_dupnoneedv;
extern int enzyme_out;
extern int enzyme_const;
extern int enzyme_allocated;
extern int enzyme_tape;
extern int enzyme_width;
extern int enzyme_scalar;
extern int enzyme_vector;
extern int enzyme_buffer;
/* Return markers, anywhere after the function (see "Return markers"). */
extern int enzyme_const_return;
extern int enzyme_active_return;
extern int enzyme_dup_return;
extern int enzyme_noret;
extern int enzyme_primal_return;
/* A hint before an argument (its memory is not overwritten): accepted and
 * ignored. Enzyme's other markers (enzyme_byref, enzyme_runtime_activity,
 * enzyme_nofree, ...) are recognised and refused with a diagnostic. */
extern int enzyme_not_overwritten;

/* Reverse mode, one double `out` parameter (or a double-typed result). */
double __enzyme_autodiff(void *, ...);
/* Reverse mode, one float `out` parameter. */
float __enzyme_autodiff_f32(void *, ...);

/* Forward mode. */
double __enzyme_fwddiff(void *, ...);

/* Contexts of global shadows: a set of shadows of the program's globals
 * that lives between derivative calls.
 *     void *ctx = __enzyme_context(1);             (lanes: enzyme_width)
 *     double *dscale = __enzyme_shadow(ctx, &scale, 0);   (global, lane)
 *     __enzyme_zero_shadows(ctx);
 *     double dx = __enzyme_autodiff((void *)f, enzyme_context, ctx, x);
 * A derivative given `enzyme_context, ctx` reads the tangents seeded in the
 * context (forward mode) and adds the adjoints of globals into it
 * (reverse mode); a global queried with __enzyme_shadow is active memory in
 * every derivative. Without a context, every derivative the program calls
 * starts from zero shadows. A global's shadow that points into another
 * global points into that global's shadow in the same context and lane.
 * Contexts are made and queried outside differentiated code. */
extern int enzyme_context;
void *__enzyme_context(int width);
void *__enzyme_shadow(void *context, void *global, int lane);
void __enzyme_zero_shadows(void *context);

/* Forward error estimation: the same arguments as __enzyme_fwddiff, each
 * tangent an absolute error bound of its value (0 for exact inputs); the
 * call returns the bound of the result's rounding error (pointers: the
 * bounds of what f writes land in the shadow memory). Each operation r of
 * operands x_k with errors e_k gets
 *     e(r) = max(ulp(r), sum_k |dr/dx_k * x_k / r * e_k|).
 * Define `void enzymeLogError(const char *id, double err)` (or Enzyme's
 * older `(double value, double err, const char *opcode, const char
 * *callee, const char *module, const char *function, const char *block)`)
 * and/or `void enzymeLogValue(const char *id, double value, unsigned n,
 * double *operands)` to be told every operation's bound and value. */
double __enzyme_error_estimate(void *, ...);

/* Split reverse mode: returns the heap tape (declare a void-returning
 * variant for a caller-allocated tape). */
void *__enzyme_augmentfwd(void *, ...);
/* Split reverse mode, no `out` parameter (declare e.g.
 * `double __enzyme_reverse_d(void *, ...)` for one double `out` parameter). */
void __enzyme_reverse(void *, ...);
/* Declare typed variants as needed (`double __enzyme_fwdsplit_d(void *,
 * ...)` for a double return). */
void __enzyme_fwdsplit(void *, ...);

/* N + M * level, where level is 0 in primal code, 1 inside a derivative, 2
 * inside the derivative of a derivative, ... (nested __enzyme_autodiff /
 * __enzyme_fwddiff): e.g. the number of terms of a series, so that each
 * derivative keeps the primal's accuracy. Every derivative enz-rs builds
 * of code holding it sees the level one higher than that code. */
int __enzyme_iter(int N, int M);

/* C++: the shadow of a vtable pointer, for a shadow object built by the
 * user: `*(void **)&dd = __enzyme_virtualreverse(*(void **)&d);` makes the
 * virtual calls of differentiated code on `dd` reach the derivatives of
 * the methods (a copy of the vtable holding their tables of derivatives). */
void *__enzyme_virtualreverse(void *);

/* Batched primal: N calls of f at once (no derivative).
 *     typedef struct { double r[4]; } d4;
 *     d4 __enzyme_batch_d4(void *, ...);
 *     d4 y = __enzyme_batch_d4((void *)f, enzyme_width, 4,
 *                              enzyme_vector, x0, x1, x2, x3,  // per lane
 *                              enzyme_scalar, p,               // shared
 *                              enzyme_buffer, buf);            // buf[lane]
 * Unmarked parameters take N values (enzyme_vector). The N results come
 * back as the declared struct (or nothing for a void f). Any declaration
 * whose name contains __enzyme_batch works. */

#ifdef __cplusplus
}
#endif

/* Source marks: annotations that survive into IR on every route (the CLI
 * and the pass plugin), each an alternative to a registration global. A
 * marked function is also kept from being inlined, so that the mark still
 * applies when enz-rs runs after the compiler's inliner.
 *     ENZYME_INACTIVE double noise(double);           no derivative
 *     ENZYME_INACTIVE_GLOBAL double scale;            memory with none
 *     ENZYME_FUNCTION_LIKE("log1p") double l1p(double x) { ... }
 *                                                     differentiated as log1p
 *     ENZYME_NOFREE void *pool_get(int);              frees nothing
 *     ENZYME_GRADIENT(aug_f, rev_f) double f(double); custom split rule, as
 *                                                     __enzyme_register_gradient
 *     ENZYME_DERIVATIVE(fwd_f) double f(double);      custom tangent, as
 *                                                     __enzyme_register_derivative
 * (aug_f, rev_f and fwd_f must be declared before the mark.) */
#define ENZYME_INACTIVE __attribute__((annotate("enzyme_inactive"), noinline))
#define ENZYME_INACTIVE_GLOBAL __attribute__((annotate("enzyme_inactive")))
#define ENZYME_FUNCTION_LIKE(name)                                            \
  __attribute__((annotate("enzyme_function_like", name), noinline))
#define ENZYME_NOFREE __attribute__((annotate("enzyme_nofree")))
#define ENZYME_GRADIENT(aug, rev)                                             \
  __attribute__((annotate("enzyme_gradient", aug, rev), noinline))
#define ENZYME_DERIVATIVE(fwd)                                                \
  __attribute__((annotate("enzyme_derivative", fwd), noinline))

#endif /* ENZYME_H */
