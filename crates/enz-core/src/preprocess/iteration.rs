//! `__enzyme_iter(N, M)`: an integer that is `N + M·level`, where `level`
//! counts the derivatives the code it appears in belongs to (0 in primal
//! code, 1 in a derivative, 2 in the derivative of a derivative, ...),
//! e.g. the number of terms of a series that must keep its accuracy
//! through differentiation.
//!
//! Every preprocessed clone (the code every derivative is built from)
//! turns each `__enzyme_iter(N, M)` it holds into `__enzyme_iter(N + M,
//! M)`, its own calls and those it inlined from a derivative it calls
//! alike; the front end finally replaces every call left by its first
//! argument ([`lower_iteration_counts`]).

use crate::ir::{Builder, Function, Inst, Module};
use crate::names::is_iteration_count;

/// The calls to `__enzyme_iter` in `f`.
pub(super) fn iteration_calls<'m>(f: Function<'m>) -> Vec<Inst<'m>> {
    f.blocks()
        .into_iter()
        .flat_map(|b| b.instructions())
        .filter(|i| {
            i.called_function()
                .is_some_and(|c| is_iteration_count(&c.name()))
                && i.call_num_args() == 2
        })
        .collect()
}

/// One derivative level more for every `__enzyme_iter` of `f` but those
/// in `stepped` (already stepped).
pub(super) fn step_iteration_counts<'m>(f: Function<'m>, stepped: &[Inst<'m>]) {
    for call in iteration_calls(f) {
        if stepped.contains(&call) {
            continue;
        }
        let b = Builder::new(call.context());
        b.position_before(call);
        let (n, m) = (call.operand(0), call.operand(1));
        if !n.ty().is_integer() || !m.ty().is_integer() {
            continue;
        }
        let m = b.signed_int_cast(m, n.ty());
        call.set_operand(0, b.add(n, m));
    }
}

/// Replaces every `__enzyme_iter(N, M)` of the module by `N` (converted to
/// the call's type), once every derivative has been built; deletes the
/// declaration. An `invoke` of it (C++ with exceptions) becomes a call
/// first: it never throws. Returns the calls that could not be replaced
/// (of another shape) for the caller to report.
pub fn lower_iteration_counts<'m>(m: Module<'m>) -> Vec<Inst<'m>> {
    let mut left = Vec::new();
    for f in crate::ir::functions(m) {
        if is_iteration_count(&f.name()) {
            continue;
        }
        let invokes: Vec<Inst> = f
            .blocks()
            .into_iter()
            .flat_map(|b| b.instructions())
            .filter(|i| {
                i.opcode() == Some(crate::ir::LLVMOpcode::LLVMInvoke)
                    && i.called_function_of_call_or_invoke()
                        .is_some_and(|c| is_iteration_count(&c.name()))
            })
            .collect();
        for i in invokes {
            i.replace_invoke_with_call();
        }
        for call in iteration_calls(f) {
            if !call.ty().is_integer() || !call.operand(0).ty().is_integer() {
                left.push(call);
                continue;
            }
            let b = Builder::new(call.context());
            b.position_before(call);
            let n = b.signed_int_cast(call.operand(0), call.ty());
            call.replace_all_uses_with(n);
            call.erase();
        }
    }
    for f in crate::ir::functions(m) {
        if is_iteration_count(&f.name()) && f.is_declaration() && !f.has_uses() {
            f.delete_function();
        }
    }
    left
}
