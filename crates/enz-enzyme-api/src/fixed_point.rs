//! `__enzyme_fixed_point(step, options..., args...)`: the loop
//! `i = 0; while (step(i++, args...));` whose derivatives iterate one
//! step's derivative at the state the loop ends in (see
//! `runtime/include/enzyme/fixed_point.h`).
//!
//! Each call becomes a call of an internal *loop function* made here, with
//! the options as leading parameters and the loop as its body, marked with
//! [`FIXED_POINT_LOOP`] (its layout, [`FixedPointLayout`]); enz-core builds
//! that function's derivatives itself (`synth/fixed_point.rs`) instead of
//! differentiating the loop. The options are parsed here and nowhere else;
//! nothing is differentiated here, so the calls are lowered before any
//! derivative is synthesised. The in-loop form, `__enzyme_set_fixed_point`,
//! is refused with a diagnostic.

use crate::abi;
use crate::callsite::marker_name;
use crate::ir::{add_internal_function, Builder, Function, Inst, LLVMOpcode, Ty, TyKind, Value};
use crate::loop_call::{called_api, memory_option, replace_call, step_arguments, step_passed};
use enz_core::{
    Diagnostic, FixedPointLayout, FixedPointOption, DEFAULT_MAX_ITERS, DEFAULT_REDUCTION,
    FIXED_POINT, FIXED_POINT_LOOP, SET_FIXED_POINT,
};

/// Whether `i` calls `__enzyme_fixed_point` (declared, any spelling C++
/// mangles it to).
pub(crate) fn is_call(i: Inst<'_>) -> bool {
    called_api(i).is_some_and(|n| n.contains(FIXED_POINT) && !n.contains(SET_FIXED_POINT))
}

/// Whether `i` calls `__enzyme_set_fixed_point`.
pub(crate) fn is_set_call(i: Inst<'_>) -> bool {
    called_api(i).is_some_and(|n| n.contains(SET_FIXED_POINT))
}

/// The diagnostic for a call of `__enzyme_set_fixed_point`.
pub(crate) fn refuse_set(i: Inst<'_>) -> Diagnostic {
    let caller = i.parent_block().parent().name();
    Diagnostic::new(format!(
        "`{SET_FIXED_POINT}` (a fixed-point loop marked from inside) is not supported by enz-rs"
    ))
    .in_function(&caller)
    .at(i.as_value())
    .help(format!(
        "move one iteration into a function `int step(int64_t i, args...)`: {}",
        usage()
    ))
}

/// The call's form, for diagnostics.
fn usage() -> String {
    use FixedPointOption::*;
    format!(
        "the call is {FIXED_POINT}(step, {}, z, bytes, [{}, r,] [{}, n,] [{}, control,] [{}, ptr, bytes,]... args...) with `int step(int64_t i, args...)`",
        State.name(),
        Reduction.name(),
        MaxIters.name(),
        Control.name(),
        CheckpointRegion.name()
    )
}

/// What the options of one call say.
struct Options<'m> {
    /// (pointer, bytes) of each state, then of each checkpointed region.
    states: Vec<(Value<'m>, Value<'m>)>,
    regions: Vec<(Value<'m>, Value<'m>)>,
    reduction: Option<Value<'m>>,
    max_iters: Option<Value<'m>>,
    control: Option<Value<'m>>,
}

/// Replaces call `i` of `__enzyme_fixed_point` by a call of its loop
/// function.
pub(crate) fn lower<'m>(i: Inst<'m>) -> Result<(), Diagnostic> {
    let caller = i.parent_block().parent();
    let cname = caller.name();
    let err = |msg: String| {
        Diagnostic::new(msg)
            .in_function(&cname)
            .at(i.as_value())
            .help(usage())
    };
    let i = if i.opcode() == Some(LLVMOpcode::LLVMInvoke) {
        i.replace_invoke_with_call()
    } else {
        i
    };
    let nargs = i.call_num_args();
    let Some(step) = step_passed(i) else {
        return Err(err(format!(
            "`{FIXED_POINT}` needs the step, a function defined in the module, as its first argument"
        )));
    };
    let ctx = i.context();
    let (i64t, ptr, f64t) = (Ty::int(ctx, 64), Ty::ptr(ctx), Ty::double(ctx));
    let b = Builder::new(ctx);
    b.position_before(i);
    // Options, until the first argument that is no option marker.
    let mut opts = Options {
        states: Vec::new(),
        regions: Vec::new(),
        reduction: None,
        max_iters: None,
        control: None,
    };
    let mut marker_uses: Vec<Value<'m>> = Vec::new();
    let mut k = 1u32;
    while k < nargs {
        let Some(opt) = marker_name(i.operand(k)).and_then(|n| FixedPointOption::from_name(&n))
        else {
            break;
        };
        marker_uses.push(i.operand(k));
        if k as usize + opt.values() >= nargs as usize {
            return Err(err(format!(
                "`{}` at argument {k} needs {} value(s) after it",
                opt.name(),
                opt.values()
            )));
        }
        let v = i.operand(k + 1);
        match opt {
            FixedPointOption::State | FixedPointOption::CheckpointRegion => {
                let pair = memory_option(&b, i, k, opt.name()).map_err(err)?;
                if opt == FixedPointOption::State {
                    opts.states.push(pair);
                } else {
                    opts.regions.push(pair);
                }
            }
            FixedPointOption::Reduction => {
                let Some(r) = abi::convert_arg(&b, v, f64t).filter(|_| v.ty().is_fp_scalar())
                else {
                    return Err(err(format!(
                        "`{}` must be followed by a double",
                        opt.name()
                    )));
                };
                opts.reduction = Some(r);
            }
            FixedPointOption::MaxIters => {
                if !v.ty().is_integer() {
                    return Err(err(format!(
                        "`{}` must be followed by an integer",
                        opt.name()
                    )));
                }
                opts.max_iters = Some(b.signed_int_cast(v, i64t));
            }
            FixedPointOption::Control => {
                if v.ty().kind() != TyKind::Pointer {
                    return Err(err(format!(
                        "`{}` must be followed by a function `int control(double *, double *)`",
                        opt.name()
                    )));
                }
                opts.control = Some(v);
            }
        }
        k += 1 + opt.values() as u32;
    }
    if opts.states.is_empty() {
        return Err(err(format!(
            "`{FIXED_POINT}` of `{}` names no state: it needs `{}, z, bytes` after the step",
            step.name(),
            FixedPointOption::State.name()
        )));
    }
    // The step's arguments: its parameters after the iteration counter.
    let args = step_arguments(
        &b,
        i,
        step,
        k,
        |t| t.is_integer(),
        "`int step(int64_t i, args...)`: an integer result and the iteration counter first",
    )
    .map_err(err)?;
    let layout = FixedPointLayout {
        states: opts.states.len(),
        regions: opts.regions.len(),
    };
    let mut call_args = Vec::new();
    for (p, n) in opts.states.iter().chain(&opts.regions) {
        call_args.push(*p);
        call_args.push(*n);
    }
    call_args.push(
        opts.reduction
            .unwrap_or_else(|| b.const_float(f64t, DEFAULT_REDUCTION)),
    );
    call_args.push(
        opts.max_iters
            .unwrap_or_else(|| b.const_int(i64t, DEFAULT_MAX_ITERS)),
    );
    call_args.push(opts.control.unwrap_or_else(|| b.zero(ptr)));
    call_args.extend(args);
    let loop_fn = loop_function(i, step, layout, &call_args);
    replace_call(&b, i, loop_fn, &call_args, marker_uses);
    Ok(())
}

/// The loop function of one call: `void fixed_point.STEP(layout params,
/// args...)`, whose body is the primal loop.
fn loop_function<'m>(
    i: Inst<'m>,
    step: Function<'m>,
    layout: FixedPointLayout,
    call_args: &[Value<'m>],
) -> Function<'m> {
    let ctx = i.context();
    let i64t = Ty::int(ctx, 64);
    let tys: Vec<Ty<'m>> = call_args.iter().map(|v| v.ty()).collect();
    let fty = Ty::function(Ty::void(ctx), &tys, false);
    let name = format!("fixed_point.{}", step.name());
    let f = add_internal_function(i.module(), &name, fty);
    f.add_string_attribute_at(u32::MAX, FIXED_POINT_LOOP, &layout.attribute());
    let b = Builder::new(ctx);
    let entry = f.append_block("entry");
    let body = f.append_block("iterate");
    let exit = f.append_block("done");
    b.position_at_end(entry);
    b.br(body);
    b.position_at_end(body);
    let n = b.phi(i64t, "i");
    let counter_ty = step.params()[0].ty();
    let mut args = vec![b.signed_int_cast(n.as_value(), counter_ty)];
    args.extend(f.params().into_iter().skip(layout.first_arg()));
    let go_on = b.call(step.function_type(), step, &args);
    let next = b.add(n.as_value(), b.const_int(i64t, 1));
    n.add_incoming(b.const_int(i64t, 0), entry);
    n.add_incoming(next, body);
    let zero = b.zero(go_on.ty());
    let again = b.icmp(
        crate::ir::LLVMIntPredicate::LLVMIntNE,
        go_on.as_value(),
        zero,
    );
    b.cond_br(again, body, exit);
    b.position_at_end(exit);
    b.ret(None);
    f
}
