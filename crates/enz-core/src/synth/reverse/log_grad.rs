//! Enzyme's gradient logging: where the module has a function
//! `void enzymeLogGrad(double grad, const char *opcode, const char *callee,
//! const char *module, const char *function, unsigned block, unsigned
//! inst)` (the user's, defined or declared, C or C++), the reverse sweep calls it
//! with the adjoint of each active instruction it differentiates by the
//! rule table (float arithmetic, casts, math calls), as that adjoint is
//! taken: its opcode, the callee of a call (else ""), the module's
//! identifier, the primal function's name, and the instruction's place
//! (block and instruction index in the preprocessed function). Nothing is
//! emitted without that function.

use crate::ir::{functions, module_identifier, named_function, Builder, Inst, Ty, TyKind, Value};
use crate::names::{LOG_GRAD, LOG_GRAD_CXX_PREFIX};

/// Calls the user's `enzymeLogGrad` with adjoint `d` of instruction `i`
/// (of primal function `function`), when the module has it with that
/// signature and `d` is a scalar float.
pub(super) fn log_adjoint<'m>(b: &Builder<'m>, i: Inst<'m>, d: Value<'m>, function: &str) {
    let blk = i.parent_block();
    let module = blk.parent().global_parent();
    let log = named_function(module, LOG_GRAD).or_else(|| {
        functions(module)
            .into_iter()
            .find(|f| f.name().starts_with(LOG_GRAD_CXX_PREFIX))
    });
    let Some(log) = log else {
        return;
    };
    let ctx = b.ctx();
    let (f64t, p, i32t) = (Ty::double(ctx), Ty::ptr(ctx), Ty::int(ctx, 32));
    let fty = Ty::function(Ty::void(ctx), &[f64t, p, p, p, p, i32t, i32t], false);
    if log.function_type() != fty || !matches!(d.ty().kind(), TyKind::Float | TyKind::Double) {
        return;
    }
    let grad = b.fp_cast(d, f64t);
    let callee = i.called_function().map(|f| f.name()).unwrap_or_default();
    let place = |items: Vec<Value<'m>>, x: Value<'m>| {
        items.iter().position(|v| *v == x).unwrap_or(0) as i64
    };
    let blocks: Vec<Value<'m>> = blk.parent().blocks().iter().map(|k| k.as_value()).collect();
    let insts: Vec<Value<'m>> = blk.instructions().iter().map(|k| k.as_value()).collect();
    let args = [
        grad,
        b.global_string(&super::opcode_name(i.as_value()), "log.opcode"),
        b.global_string(&callee, "log.callee"),
        b.global_string(&module_identifier(module), "log.module"),
        b.global_string(function, "log.function"),
        b.const_int(i32t, place(blocks, blk.as_value())),
        b.const_int(i32t, place(insts, i.as_value())),
    ];
    b.call(fty, log, &args);
}
