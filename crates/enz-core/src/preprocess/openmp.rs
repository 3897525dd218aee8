//! OpenMP reductions take their atomic path. Clang ends a region with
//! `reduction(...)` by `r = __kmpc_reduce_nowait(...)` (or
//! `__kmpc_reduce`) and a switch: on 1 the thread adds its private copy to
//! the shared variable under the runtime's lock, on 2 with an atomic
//! update, on 0 the runtime has already combined the thread's copy into
//! another's through the combiner function it was given. Only the atomic
//! path keeps every thread's contribution visible in the thread's own
//! code, where its reverse sweep can read the shared adjoint back: the
//! preprocessed clone takes it always (`r` becomes 2), and the blocking
//! form's end, which also waits for the team, becomes a barrier.

use crate::ir::{Builder, Function, Ty};
use crate::names::{OmpReduce, BARRIER};

/// Makes every reduction of `func` take its atomic path (see the module
/// documentation); returns whether there was one.
pub(crate) fn atomic_reductions(func: Function<'_>) -> bool {
    let mut ends: Vec<&'static str> = Vec::new();
    let mut calls = Vec::new();
    for b in func.blocks() {
        for i in b.instructions() {
            let Some(kind) = i
                .called_function()
                .and_then(|f| OmpReduce::from_callee(&f.name()))
            else {
                continue;
            };
            if !has_atomic_path(i) {
                continue;
            }
            if kind == OmpReduce::Blocking && !ends.contains(&kind.end()) {
                ends.push(kind.end());
            }
            calls.push(i);
        }
    }
    if calls.is_empty() {
        return false;
    }
    let ctx = func.context();
    let b = Builder::new(ctx);
    for c in calls {
        c.replace_all_uses_with(b.const_int(c.ty(), 2));
        c.erase();
    }
    // `__kmpc_end_reduce(loc, gtid, lock)` on the atomic path: the team
    // waits there.
    let ends_found: Vec<_> = func
        .blocks()
        .into_iter()
        .flat_map(|bl| bl.instructions())
        .filter(|i| {
            i.called_function()
                .is_some_and(|f| ends.contains(&f.name().as_str()))
        })
        .collect();
    for e in ends_found {
        b.position_before(e);
        let fty = Ty::function(Ty::void(ctx), &[Ty::ptr(ctx), Ty::int(ctx, 32)], false);
        b.call_named(BARRIER, fty, &[e.operand(0), e.operand(1)]);
        e.erase();
    }
    true
}

/// Whether the result of reduction call `c` selects a path on 2 (a switch
/// with a case 2): clang omits it when a reduction has no atomic form.
fn has_atomic_path(c: crate::ir::Inst<'_>) -> bool {
    c.as_value().users().into_iter().any(|u| {
        u.as_inst().is_some_and(|s| {
            s.switch_case_values()
                .iter()
                .any(|v| v.const_int_sext() == Some(2))
        })
    })
}
