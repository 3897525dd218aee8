//! Which globals carry derivatives across the functions one derivative
//! calls out of line.
//!
//! Activity is analysed one function at a time. Inlined callees are part of
//! the function, but a callee kept as a call (an augmented/reverse pair, or
//! a forward derivative) is analysed on its own: a global it writes with
//! varied values, and that its caller then reads, is shadowed in the
//! callee's analysis only. The caller would read the global as inactive
//! memory and drop its adjoint, a silently wrong (zero) gradient. The same
//! holds the other way round (the caller writes, the callee reads).
//!
//! So before the first analysis of a derivative whose function still calls
//! functions of the module, every function it reaches through calls is
//! analysed with every argument active or shadowed, and the globals found
//! shadowed in any of them are shadowed in all of them, to a fixed point.
//! The approximation only errs towards shadowing: a global shadowed without
//! need costs a shadow and some adjoint work, never a wrong derivative.

use super::activity::{Activity, ActivityInputs, ArgFact};
use super::calls::CallFacts;
use crate::ir::{Function, TyKind, Value};
use std::collections::HashSet;

/// At most this many functions are followed from one derivative (past
/// that, the globals of the functions found so far).
const MAX_FUNCTIONS: usize = 512;
/// At most this many rounds of the fixed point.
const MAX_ROUNDS: usize = 8;

/// The globals of the module that carry derivatives in the functions
/// `root` calls out of line or in `root` itself, given that `seeds` do
/// (the user's shadowed globals); `seeds` included. Empty work (and
/// `seeds` returned) when `root` calls no function defined in the module.
pub(crate) fn shadowed_globals_reached<'m>(
    root: Function<'m>,
    calls: CallFacts<'m, '_>,
    seeds: &HashSet<Value<'m>>,
    inactive: &HashSet<Value<'m>>,
) -> HashSet<Value<'m>> {
    let functions = reached(root);
    let mut shadowed = seeds.clone();
    if functions.len() < 2 {
        return shadowed;
    }
    for _ in 0..MAX_ROUNDS {
        let before = shadowed.len();
        for f in &functions {
            let args: Vec<ArgFact> = f
                .params()
                .iter()
                .map(|p| match p.ty().kind() {
                    TyKind::Pointer => ArgFact::Shadowed,
                    _ => ArgFact::Active,
                })
                .collect();
            let ret = f.function_type().return_type();
            let act = Activity::analyse(
                *f,
                &ActivityInputs {
                    args: &args,
                    ret_active: ret.carries_float(),
                    ret_shadowed: ret.kind() == TyKind::Pointer,
                    calls,
                    shadowed_globals: &shadowed,
                    inactive_globals: inactive,
                },
            );
            for g in defined_globals_used(*f) {
                if !inactive.contains(&g) && act.is_shadowed(g) {
                    shadowed.insert(g);
                }
            }
        }
        if shadowed.len() == before {
            break;
        }
    }
    shadowed
}

/// `root` and the functions defined in the module it reaches through
/// direct calls, in the order found.
pub(crate) fn reached<'m>(root: Function<'m>) -> Vec<Function<'m>> {
    let mut seen = vec![root];
    let mut set: HashSet<Function<'m>> = HashSet::from([root]);
    let mut k = 0;
    while k < seen.len() && seen.len() < MAX_FUNCTIONS {
        let f = seen[k];
        k += 1;
        for i in f.blocks().iter().flat_map(|b| b.instructions()) {
            if let Some(g) = i.called_function().filter(|g| !g.is_declaration()) {
                if set.insert(g) {
                    seen.push(g);
                }
            }
        }
    }
    seen
}

/// The writable globals `f`'s instructions use (directly or inside
/// constant expressions), in the order of their first use: defined in the
/// module or declared (`extern`).
pub(crate) fn writable_globals_used<'m>(f: Function<'m>) -> Vec<Value<'m>> {
    let mut out = Vec::new();
    for i in f.blocks().iter().flat_map(|b| b.instructions()) {
        let mut stack: Vec<(Value<'m>, u32)> = i
            .as_value()
            .operands()
            .into_iter()
            .map(|v| (v, 0))
            .collect();
        while let Some((v, depth)) = stack.pop() {
            if let Some(g) = v.as_global() {
                if !g.is_global_constant() && !out.contains(&v) {
                    out.push(v);
                }
            } else if !v.is_instruction() && depth < 4 && v.is_constant_expr() {
                stack.extend(v.operands().into_iter().map(|o| (o, depth + 1)));
            }
        }
    }
    out
}

/// [`writable_globals_used`] defined in the module (a shadow can be made
/// for them).
fn defined_globals_used<'m>(f: Function<'m>) -> Vec<Value<'m>> {
    writable_globals_used(f)
        .into_iter()
        .filter(|v| v.as_global().is_some_and(|g| g.initializer().is_some()))
        .collect()
}

/// Whether `f`, or a function of the module it reaches through calls, uses
/// one of `globals`: a call of `f` then moves derivatives through them
/// whatever its arguments.
pub(crate) fn reaches_globals<'m>(f: Function<'m>, globals: &HashSet<Value<'m>>) -> bool {
    !globals.is_empty()
        && reached(f)
            .into_iter()
            .any(|g| defined_globals_used(g).iter().any(|v| globals.contains(v)))
}
