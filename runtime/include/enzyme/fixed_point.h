/*
 * <enzyme/fixed_point.h> -- enz-rs's fixed-point loops, the C API of
 * Enzyme's header of the same name.
 *
 *   __enzyme_fixed_point(step, enzyme_fp_state, z, bytes, ...,
 *                        [enzyme_fp_reduction, r,]
 *                        [enzyme_fp_max_iters, n,]
 *                        [enzyme_fp_control, control,]
 *                        [enzyme_checkpoint_region, ptr, bytes,]...
 *                        args...);
 *
 * runs `int64_t i = 0; while (step(i++, args...));` with
 * `int step(int64_t i, args...)` a function defined in the same module.
 * Each iteration maps the state z (doubles, `bytes` of them at each
 * enzyme_fp_state pointer; several states may be named) to phi(z, x).
 *
 * Derivatives do not go through the iterations. At the state the loop
 * stops in, enz-rs repeats the derivative of a single step:
 *
 *   reverse mode: the seed of z is propagated by the step's adjoint,
 *     zbar <- phi_z^T zbar, adding phi_x^T zbar to the other adjoints on
 *     each pass (the first pass also takes the adjoints of the step's
 *     other outputs). This sums the Neumann series of Christianson's
 *     adjoint fixed point. Afterwards the shadow of z is zero (the
 *     solution does not depend on the starting guess) and z and the
 *     regions hold what they held before the reverse pass. Memory: one
 *     copy of the states and regions.
 *   forward mode: after the loop, zdot starts at zero and each pass sets
 *     zdot <- phi_z zdot + phi_x xdot; the states and regions end as the
 *     loop left them. A Newton step (phi_z = 0 at the solution) needs two
 *     passes.
 *
 * Passes stop when c_k, the squared 2-norm over the states of the pass's
 * change (reverse: of zbar; forward: of zdot minus its previous value),
 * drops to r * c_1 or below (r from enzyme_fp_reduction, 1e-12 unless
 * given), when it increases after the fifth pass, or after n passes
 * (enzyme_fp_max_iters, 1000 unless given; 0 removes the limit).
 *
 * enzyme_fp_control, control replaces the r and growth tests by
 *   int control(double *cumul, double *reduction);
 * called with *cumul == -1 before the first pass (a zero result: no pass
 * at all) and with *cumul == c_k after pass k; a nonzero result asks for
 * another pass. *reduction points to r.
 *
 * enzyme_checkpoint_region, ptr, bytes: memory the step reads that code
 * after the loop may change; saved with the state when the loop ends and
 * restored for every pass.
 *
 * Not supported by enz-rs: __enzyme_set_fixed_point (the in-loop form;
 * a diagnostic), vector forward mode and __enzyme_fwdsplit through a
 * fixed-point loop, float states, and globals the step writes that are
 * not listed as a state or region.
 */
#ifndef ENZ_RS_FIXED_POINT_H
#define ENZ_RS_FIXED_POINT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

extern int enzyme_fp_state;
extern int enzyme_fp_reduction;
extern int enzyme_fp_max_iters;
extern int enzyme_fp_control;
extern int enzyme_checkpoint_region;

void __enzyme_fixed_point(void *step, ...);
void __enzyme_set_fixed_point(double reduction, int64_t max_iters,
                              void *control, ...);

#ifdef __cplusplus
}
#endif

#endif /* ENZ_RS_FIXED_POINT_H */
