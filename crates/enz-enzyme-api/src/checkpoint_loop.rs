//! `__enzyme_checkpoint_for(step, start, n, options..., args...)`, the loop
//! `for (i = start; i < start + n; i++) step(i, args...);`, and
//! `__enzyme_checkpoint_while(step, options..., args...)`, the loop
//! `i = 0; while (step(i++, args...));`, whose reverse derivatives a
//! checkpointing scheme drives (see `runtime/include/enzyme/checkpoint.h`).
//!
//! Each call becomes a call of an internal *loop function* made here, with
//! the options as leading parameters and the plain loop as its body,
//! marked with [`CHECKPOINT_LOOP`] (its layout, [`CheckpointLayout`]);
//! enz-core builds that function's reverse derivative itself
//! (`synth/checkpoint_loop.rs`) and differentiates the body in forward
//! mode. The options are parsed here and nowhere else.

use crate::callsite::marker_name;
use crate::ir::{
    add_internal_function, Builder, Function, Inst, LLVMIntPredicate, LLVMOpcode, Ty, TyKind, Value,
};
use crate::loop_call::{called_api, memory_option, replace_call, step_arguments, step_passed};
use enz_core::{
    CheckpointLayout, CheckpointOption, Diagnostic, CHECKPOINT_FOR, CHECKPOINT_LOOP,
    CHECKPOINT_WHILE,
};

/// Which checkpointed loop `i` calls, if any: `Some(true)` for
/// `__enzyme_checkpoint_while`.
pub(crate) fn call_kind(i: Inst<'_>) -> Option<bool> {
    let n = called_api(i)?;
    if n.contains(CHECKPOINT_WHILE) {
        Some(true)
    } else if n.contains(CHECKPOINT_FOR) {
        Some(false)
    } else {
        None
    }
}

/// The call's form, for diagnostics.
fn usage(while_loop: bool) -> String {
    let region = format!("[{}, ptr, bytes,]...", CheckpointOption::Region.name());
    let scheme = CheckpointOption::Scheme.name();
    if while_loop {
        format!(
            "the call is {CHECKPOINT_WHILE}(step, {scheme}, &scheme, data, {region} args...) with `int step(int64_t i, args...)` returning whether to go on"
        )
    } else {
        format!(
            "the call is {CHECKPOINT_FOR}(step, start, n, {scheme}, &scheme, data, {region} args...) with `void step(int64_t i, args...)`"
        )
    }
}

/// Replaces call `i` of a checkpointed loop by a call of its loop
/// function.
pub(crate) fn lower<'m>(i: Inst<'m>, while_loop: bool) -> Result<(), Diagnostic> {
    let caller = i.parent_block().parent();
    let cname = caller.name();
    let api = if while_loop {
        CHECKPOINT_WHILE
    } else {
        CHECKPOINT_FOR
    };
    let err = |msg: String| {
        Diagnostic::new(msg)
            .in_function(&cname)
            .at(i.as_value())
            .help(usage(while_loop))
    };
    let i = if i.opcode() == Some(LLVMOpcode::LLVMInvoke) {
        i.replace_invoke_with_call()
    } else {
        i
    };
    let nargs = i.call_num_args();
    let Some(step) = step_passed(i) else {
        return Err(err(format!(
            "`{api}` needs the step, a function defined in the module, as its first argument"
        )));
    };
    let ctx = i.context();
    let i64t = Ty::int(ctx, 64);
    let b = Builder::new(ctx);
    b.position_before(i);
    let mut k = 1u32;
    let (start, n) = if while_loop {
        (b.const_int(i64t, 0), b.const_int(i64t, -1))
    } else {
        let ok = nargs >= 3 && (1..3).all(|j| i.operand(j).ty().is_integer());
        if !ok || (1..3).any(|j| marker_name(i.operand(j)).is_some()) {
            return Err(err(format!(
                "`{api}` needs the first step's counter and the number of steps, two integers, after the step"
            )));
        }
        k = 3;
        (
            b.signed_int_cast(i.operand(1), i64t),
            b.signed_int_cast(i.operand(2), i64t),
        )
    };
    let mut regions = Vec::new();
    let mut scheme = None;
    let mut marker_uses = Vec::new();
    while k < nargs {
        let Some(opt) = marker_name(i.operand(k)).and_then(|n| CheckpointOption::from_name(&n))
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
        match opt {
            CheckpointOption::Region => {
                regions.push(memory_option(&b, i, k, opt.name()).map_err(err)?);
            }
            CheckpointOption::Scheme => {
                let (s, data) = (i.operand(k + 1), i.operand(k + 2));
                let ptrs = [s, data].iter().all(|v| v.ty().kind() == TyKind::Pointer);
                if !ptrs || scheme.is_some() {
                    return Err(err(format!(
                        "`{}` must come once, followed by a pointer to an EnzymeCheckpointScheme and the pointer its init is passed",
                        opt.name()
                    )));
                }
                scheme = Some((s, data));
            }
        }
        k += 1 + opt.values() as u32;
    }
    let Some((scheme, data)) = scheme else {
        return Err(err(format!(
            "`{api}` of `{}` names no scheme: it needs `{}, &scheme, data` before the step's arguments",
            step.name(),
            CheckpointOption::Scheme.name()
        )));
    };
    let args = if while_loop {
        step_arguments(
            &b,
            i,
            step,
            k,
            |t| t.is_integer(),
            "`int step(int64_t i, args...)`: an integer result (whether to go on) and the iteration counter first",
        )
    } else {
        step_arguments(
            &b,
            i,
            step,
            k,
            |t| t.is_void() || t.is_integer(),
            "`void step(int64_t i, args...)`: the iteration counter first",
        )
    }
    .map_err(err)?;
    let layout = CheckpointLayout {
        regions: regions.len(),
        while_loop,
    };
    let mut call_args = Vec::new();
    for (p, n) in &regions {
        call_args.push(*p);
        call_args.push(*n);
    }
    call_args.extend([scheme, data, start, n]);
    call_args.extend(args);
    let loop_fn = loop_function(i, step, layout, &call_args);
    replace_call(&b, i, loop_fn, &call_args, marker_uses);
    Ok(())
}

/// The loop function of one call: `void checkpoint_for.STEP(layout params,
/// args...)` (or `checkpoint_while.`), whose body is the plain loop.
fn loop_function<'m>(
    i: Inst<'m>,
    step: Function<'m>,
    layout: CheckpointLayout,
    call_args: &[Value<'m>],
) -> Function<'m> {
    let ctx = i.context();
    let i64t = Ty::int(ctx, 64);
    let tys: Vec<Ty<'m>> = call_args.iter().map(|v| v.ty()).collect();
    let fty = Ty::function(Ty::void(ctx), &tys, false);
    let kind = if layout.while_loop { "while" } else { "for" };
    let name = format!("checkpoint_{kind}.{}", step.name());
    let f = add_internal_function(i.module(), &name, fty);
    f.add_string_attribute_at(u32::MAX, CHECKPOINT_LOOP, &layout.attribute());
    let params = f.params();
    let (start, n) = (params[layout.scheme() + 2], params[layout.scheme() + 3]);
    let b = Builder::new(ctx);
    let entry = f.append_block("entry");
    let body = f.append_block("step");
    let exit = f.append_block("done");
    b.position_at_end(entry);
    let call_step = |j: Value<'m>| {
        let counter = b.add(start, j);
        let mut args = vec![b.signed_int_cast(counter, step.params()[0].ty())];
        args.extend(params.iter().skip(layout.first_arg()).copied());
        b.call(step.function_type(), step, &args).as_value()
    };
    if layout.while_loop {
        b.br(body);
        b.position_at_end(body);
        let j = b.phi(i64t, "i");
        let r = call_step(j.as_value());
        let next = b.add(j.as_value(), b.const_int(i64t, 1));
        j.add_incoming(b.const_int(i64t, 0), entry);
        j.add_incoming(next, body);
        let again = b.icmp(LLVMIntPredicate::LLVMIntNE, r, b.zero(r.ty()));
        b.cond_br(again, body, exit);
    } else {
        let head = f.append_block("steps");
        b.br(head);
        b.position_at_end(head);
        let j = b.phi(i64t, "j");
        let more = b.icmp(LLVMIntPredicate::LLVMIntSLT, j.as_value(), n);
        b.cond_br(more, body, exit);
        b.position_at_end(body);
        call_step(j.as_value());
        let next = b.add(j.as_value(), b.const_int(i64t, 1));
        b.br(head);
        j.add_incoming(b.const_int(i64t, 0), entry);
        j.add_incoming(next, body);
    }
    b.position_at_end(exit);
    b.ret(None);
    f
}
