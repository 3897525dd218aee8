//! What the lowering of the Enzyme API's loop calls shares
//! (`__enzyme_fixed_point` in `fixed_point.rs`, `__enzyme_checkpoint_for`
//! and `__enzyme_checkpoint_while` in `checkpoint_loop.rs`): each call
//! names a step `int step(int64_t i, args...)` first, options with marker
//! globals, then the step's arguments, and becomes a call of an internal
//! loop function. Here: which API a call calls, the step, a `ptr, bytes`
//! option's values, the step's arguments converted to its parameter types,
//! and the final replacement of the call.

use crate::abi;
use crate::callsite::function_passed;
use crate::ir::{Builder, Function, Inst, Ty, TyKind, Value};

/// The name of the declared function `i` calls (or invokes), if any.
pub(crate) fn called_api(i: Inst<'_>) -> Option<String> {
    i.called_function_of_call_or_invoke()
        .filter(|f| f.is_declaration())
        .map(|f| f.name())
}

/// The step a call passes first, if it is a function defined in the
/// module.
pub(crate) fn step_passed<'m>(i: Inst<'m>) -> Option<Function<'m>> {
    (i.call_num_args() > 0)
        .then(|| function_passed(i.operand(0)))
        .flatten()
        .filter(|f| !f.is_declaration())
}

/// The (pointer, bytes as i64) after a `ptr, bytes` option marker at
/// argument `k` named `name`.
pub(crate) fn memory_option<'m>(
    b: &Builder<'m>,
    i: Inst<'m>,
    k: u32,
    name: &str,
) -> Result<(Value<'m>, Value<'m>), String> {
    let (v, bytes) = (i.operand(k + 1), i.operand(k + 2));
    if v.ty().kind() != TyKind::Pointer || !bytes.ty().is_integer() {
        return Err(format!(
            "`{name}` at argument {k} must be followed by a pointer and a size in bytes"
        ));
    }
    Ok((v, b.signed_int_cast(bytes, Ty::int(i.context(), 64))))
}

/// The step's arguments (its parameters after the counter), from argument
/// `k` of call `i` on, converted to the parameters' types. `result_ok`
/// says whether the step's return type is acceptable; `form` is the step's
/// form for the diagnostic.
pub(crate) fn step_arguments<'m>(
    b: &Builder<'m>,
    i: Inst<'m>,
    step: Function<'m>,
    k: u32,
    result_ok: impl Fn(Ty<'m>) -> bool,
    form: &str,
) -> Result<Vec<Value<'m>>, String> {
    let params = step.params();
    let sname = step.name();
    let counter_ok = params.first().is_some_and(|p| p.ty().is_integer());
    let step_ret = step.function_type().return_type();
    if !counter_ok || !result_ok(step_ret) || step.function_type().is_vararg() {
        return Err(format!("the step `{sname}` must be {form}"));
    }
    let given = i.call_num_args() - k;
    if given as usize != params.len() - 1 {
        return Err(format!(
            "the step `{sname}` takes {} argument(s) after its counter, the call passes {given}",
            params.len() - 1
        ));
    }
    let mut args = Vec::new();
    for (j, p) in params.iter().enumerate().skip(1) {
        let v = i.operand(k + j as u32 - 1);
        let Some(v) = abi::convert_arg(b, v, p.ty()) else {
            return Err(format!(
                "argument {} passes {} for parameter {j} of `{sname}`, which has type {}",
                k + j as u32 - 1,
                v.ty(),
                p.ty()
            ));
        };
        args.push(v);
    }
    Ok(args)
}

/// Replaces call `i` by a call of `loop_fn` with `args` (the builder
/// before `i`), erasing it and the marker loads nothing else uses.
pub(crate) fn replace_call<'m>(
    b: &Builder<'m>,
    i: Inst<'m>,
    loop_fn: Function<'m>,
    args: &[Value<'m>],
    marker_uses: Vec<Value<'m>>,
) {
    b.call(loop_fn.function_type(), loop_fn, args);
    if i.as_value().has_uses() {
        i.replace_all_uses_with(b.poison(i.ty()));
    }
    i.erase();
    for v in marker_uses {
        if let Some(load) = v.as_inst() {
            if !load.as_value().has_uses() {
                load.erase();
            }
        }
    }
}
