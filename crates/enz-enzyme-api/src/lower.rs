//! Lowering `__enzyme_*` call sites: choosing (or building) the derivative
//! a call asks for, replacing the call by a call to it, and packing the
//! result into what the caller's declaration returns.
//!
//! | entry point            | derivative                      | result                      |
//! |------------------------|---------------------------------|-----------------------------|
//! | `__enzyme_autodiff`    | `diffe_f` (combined reverse)    | adjoints of `out` params    |
//! | `__enzyme_fwddiff`     | `fwddiffe_f` (forward, width N) | tangents of the return      |
//! | `__enzyme_augmentfwd`  | `augmented_f` (split forward)   | the tape (or into a buffer) |
//! | `__enzyme_reverse`     | `reverse_f` (split reverse)     | adjoints of `out` params    |
//! | `__enzyme_fwdsplit`    | `fwdsplit_f` (after augmentfwd) | tangents of the return      |

use crate::abi;
use crate::call_config::ReturnActivity;
use crate::callsite::CallSite;
use crate::ir::{Builder, Inst, Ty, TyKind, Value};
use enz_core::Diagnostic;
use enz_core::EntryPoint;
use enz_core::Session;
use enz_core::{Field, Kind, Mode, Param, Request, Signature};
use std::collections::HashMap;

/// A size operand to set once the tape of `key` is known.
struct TapePatch<'m> {
    inst: Value<'m>,
    operand: u32,
    key: Request<'m>,
    /// The caller's buffer size, when the tape goes to a caller buffer.
    allocated: Option<Value<'m>>,
}

/// State of the lowering of one module's call sites.
#[derive(Default)]
pub(crate) struct Lowering<'m> {
    patches: Vec<TapePatch<'m>>,
}

impl<'m> Lowering<'m> {
    /// Replaces one call site.
    pub(crate) fn lower(
        &mut self,
        cs: &CallSite<'m>,
        session: &mut Session<'m>,
    ) -> Result<(), Vec<Diagnostic>> {
        if cs.function.function_type().is_vararg() {
            return Err(vec![Diagnostic::new(format!(
                "cannot differentiate `{}`: variadic functions are not supported",
                cs.function.name()
            ))
            .at(cs.call)]);
        }
        let vector_gradient = cs.entry == EntryPoint::Autodiff && !cs.ret.primal;
        if cs.width > 1 && cs.entry != EntryPoint::FwdDiff && !vector_gradient {
            return Err(vec![Diagnostic::new(format!(
                "enzyme_width is supported by __enzyme_fwddiff and __enzyme_autodiff (without enzyme_primal_return) only (in the call to differentiate `{}`)",
                cs.function.name()
            ))
            .at(cs.call)]);
        }
        check_return_markers(cs)?;
        if let Some(c) = cs.context {
            crate::context::bracket(cs.call, c);
        }
        let with_tables = function_shadows(&strided_shadows(cs), session)?;
        let cs = &with_tables;
        match cs.entry {
            EntryPoint::Autodiff if cs.ret.primal => self.lower_gradient_with_primal(cs, session),
            EntryPoint::Autodiff => {
                let (mode, kind) = match cs.width {
                    1 => (Mode::Combined, Kind::Gradient),
                    width => (
                        Mode::CombinedVector { width },
                        Kind::VectorGradient { width },
                    ),
                };
                let req = request(cs, mode);
                let g = session.gradient(&req)?;
                let b = builder_at(cs.call);
                let sig = req.signature(kind);
                let args = call_args(&b, cs, &sig);
                let call = b.call(g.function_type(), g, &args);
                call.copy_debug_loc(cs.call);
                let outs = fields(&b, call.as_value(), &sig, |f| {
                    matches!(f, Field::Adjoint(_))
                });
                finish_call(&b, cs, &outs, &[call])
            }
            EntryPoint::FwdDiff | EntryPoint::ErrorEstimate => {
                let width = cs.width;
                let mode = match cs.entry {
                    EntryPoint::ErrorEstimate => Mode::ForwardError,
                    _ => Mode::Forward { width },
                };
                let req = request(cs, mode);
                let f = session.forward(&req).map_err(|d| vec![d.at(cs.call)])?;
                let b = builder_at(cs.call);
                let sig = req.signature(Kind::Forward { width });
                let args = call_args(&b, cs, &sig);
                let call = b.call(f.function_type(), f, &args);
                call.copy_debug_loc(cs.call);
                let outs = forward_outs(&b, cs, call.as_value(), &sig);
                finish_call(&b, cs, &outs, &[call])
            }
            EntryPoint::FwdSplit => self.lower_fwdsplit(cs, session),
            EntryPoint::AugmentFwd | EntryPoint::Reverse => self.lower_split(cs, session),
        }
    }

    fn lower_split(
        &mut self,
        cs: &CallSite<'m>,
        session: &mut Session<'m>,
    ) -> Result<(), Vec<Diagnostic>> {
        let ret = cs.function.function_type().return_type();
        let key = request(cs, Mode::Split);
        let fns = session.split(&key).map_err(|d| vec![d.at(cs.call)])?;
        let err = |m: &str| {
            vec![Diagnostic::new(m.to_string())
                .in_function(cs.call.parent_block().parent().name())
                .at(cs.call)]
        };
        let b = builder_at(cs.call);
        let kind = if cs.entry == EntryPoint::AugmentFwd {
            Kind::Augmented
        } else {
            Kind::Reverse
        };
        let sig = key.signature(kind);
        let mut args = call_args(&b, cs, &sig);
        let i64t = Ty::int(b.ctx(), 64);
        let placeholder = || b.const_int(i64t, 0);
        if cs.entry == EntryPoint::AugmentFwd {
            let ret_shadowed = key.ret_shadowed;
            let call = b.call(fns.forward.function_type(), fns.forward, &args);
            call.copy_debug_loc(cs.call);
            let field = |f: Field| {
                sig.field_index(f)
                    .expect("the augmented function returns it")
            };
            let mut tape = b.extract_value(call.as_value(), field(Field::Tape));
            if let Some(buf) = cs.tape {
                let copy = b.memcpy(buf, tape, placeholder());
                self.patches.push(TapePatch {
                    inst: copy,
                    operand: 2,
                    key,
                    allocated: cs.allocated,
                });
                b.free(tape);
                tape = buf;
            }
            let mut outs = vec![tape];
            if !ret.is_void() && !cs.ret.noret {
                outs.push(b.extract_value(call.as_value(), field(Field::Return)));
            }
            if ret_shadowed {
                let shadow = field(Field::ReturnShadow { lane: 0 });
                outs.push(b.extract_value(call.as_value(), shadow));
            }
            return finish_call(&b, cs, &outs, &[call]);
        }
        let ret_active = key.ret_active;
        let mut trailing = cs.trailing.iter().copied();
        if ret_active {
            let Some(d) = trailing.next() else {
                return Err(err(
                    "__enzyme_reverse needs the adjoint of the return value after the arguments",
                ));
            };
            let Some(d) = abi::convert_arg(&b, d, ret) else {
                return Err(err(&format!(
                    "the adjoint of the return value passed to __enzyme_reverse is a `{}`, but `{}` returns `{ret}`",
                    d.ty(),
                    cs.function.name()
                )));
            };
            args.insert(
                sig.param_index(Param::ReturnAdjoint)
                    .expect("a dret parameter"),
                d,
            );
        }
        let tape = self.tape_argument(&b, cs, key, &mut trailing)?;
        let extra = trailing.count();
        if extra > 0 {
            return Err(err(&format!(
                "too many arguments: after the arguments of `{}`, __enzyme_reverse takes {} the tape, but the call passes {extra} more value(s)",
                cs.function.name(),
                if ret_active { "the return value's adjoint and" } else { "only" }
            )));
        }
        args.insert(
            sig.param_index(Param::Tape).expect("a tape parameter"),
            tape,
        );
        let call = b.call(fns.reverse.function_type(), fns.reverse, &args);
        call.copy_debug_loc(cs.call);
        let outs = fields(&b, call.as_value(), &sig, |f| {
            matches!(f, Field::Adjoint(_))
        });
        finish_call(&b, cs, &outs, &[call])
    }

    /// `__enzyme_autodiff` with `enzyme_primal_return`: the primal result
    /// and the adjoints, `{r, adjoints…}`. The combined gradient does not
    /// return `r`, so both sweeps of split mode run back to back: the
    /// augmented forward sweep gives `r` and the tape, the reverse sweep
    /// (seeded with 1.0 unless the return is `enzyme_const_return`) the
    /// adjoints.
    /// `__enzyme_fwdsplit(f, args, tangents..., tape)` (or with
    /// `enzyme_allocated, SIZE, enzyme_tape, buf`): the forward split
    /// derivative, given the tape of the matching `__enzyme_augmentfwd`.
    fn lower_fwdsplit(
        &mut self,
        cs: &CallSite<'m>,
        session: &mut Session<'m>,
    ) -> Result<(), Vec<Diagnostic>> {
        let req = request(cs, Mode::ForwardSplit);
        let f = session.forward(&req).map_err(|d| vec![d.at(cs.call)])?;
        let err = |m: &str| {
            vec![Diagnostic::new(m.to_string())
                .in_function(cs.call.parent_block().parent().name())
                .at(cs.call)]
        };
        let b = builder_at(cs.call);
        let sig = req.signature(Kind::ForwardSplit);
        let mut args = call_args(&b, cs, &sig);
        let mut trailing = cs.trailing.iter().copied();
        let tape = self.tape_argument(&b, cs, req.split_counterpart(), &mut trailing)?;
        let extra = trailing.count();
        if extra > 0 {
            return Err(err(&format!(
                "too many arguments: after the arguments of `{}` and their tangents, __enzyme_fwdsplit takes only the tape, but the call passes {extra} more value(s)",
                cs.function.name()
            )));
        }
        args.insert(
            sig.param_index(Param::Tape).expect("a tape parameter"),
            tape,
        );
        let call = b.call(f.function_type(), f, &args);
        call.copy_debug_loc(cs.call);
        let outs = forward_outs(&b, cs, call.as_value(), &sig);
        finish_call(&b, cs, &outs, &[call])
    }

    /// The tape a `__enzyme_reverse` or `__enzyme_fwdsplit` call passes
    /// for split request `key`: a heap copy of the caller's buffer
    /// (`enzyme_tape`), else the next trailing argument, which must be a
    /// pointer.
    fn tape_argument(
        &mut self,
        b: &Builder<'m>,
        cs: &CallSite<'m>,
        key: Request<'m>,
        trailing: &mut impl Iterator<Item = Value<'m>>,
    ) -> Result<Value<'m>, Vec<Diagnostic>> {
        if let Some(buf) = cs.tape {
            return Ok(self.copy_of_caller_tape(b, cs, buf, key));
        }
        let entry = cs.entry.name();
        let why = match trailing.next() {
            Some(t) if t.ty().kind() == TyKind::Pointer => return Ok(t),
            Some(t) => format!(
                "the tape passed to {entry} is a `{}`; it must be the pointer __enzyme_augmentfwd returned",
                t.ty()
            ),
            None => format!(
                "{entry} needs the tape returned by __enzyme_augmentfwd as its last argument (or enzyme_tape with the caller's buffer)"
            ),
        };
        Err(vec![Diagnostic::new(why)
            .in_function(cs.call.parent_block().parent().name())
            .at(cs.call)])
    }

    /// A heap copy of the caller's tape buffer `buf` (filled by
    /// `__enzyme_augmentfwd` of `key` with `enzyme_tape`), which the
    /// derivative frees; its size is set once the tape of `key` is known.
    fn copy_of_caller_tape(
        &mut self,
        b: &Builder<'m>,
        cs: &CallSite<'m>,
        buf: Value<'m>,
        key: Request<'m>,
    ) -> Value<'m> {
        let i64t = Ty::int(b.ctx(), 64);
        let t = b.malloc(b.const_int(i64t, 0));
        self.patches.push(TapePatch {
            inst: t.as_value(),
            operand: 0,
            key: key.clone(),
            allocated: cs.allocated,
        });
        let copy = b.memcpy(t.as_value(), buf, b.const_int(i64t, 0));
        self.patches.push(TapePatch {
            inst: copy,
            operand: 2,
            key,
            allocated: cs.allocated,
        });
        t.as_value()
    }

    fn lower_gradient_with_primal(
        &mut self,
        cs: &CallSite<'m>,
        session: &mut Session<'m>,
    ) -> Result<(), Vec<Diagnostic>> {
        let key = request(cs, Mode::Split);
        let fns = session.split(&key).map_err(|d| vec![d.at(cs.call)])?;
        let b = builder_at(cs.call);
        let aug = key.signature(Kind::Augmented);
        let aug_call = b.call(
            fns.forward.function_type(),
            fns.forward,
            &call_args(&b, cs, &aug),
        );
        aug_call.copy_debug_loc(cs.call);
        let field = |f: Field| {
            aug.field_index(f)
                .expect("the augmented function returns it")
        };
        let tape = b.extract_value(aug_call.as_value(), field(Field::Tape));
        let primal = b.extract_value(aug_call.as_value(), field(Field::Return));
        let rev = key.signature(Kind::Reverse);
        let mut args = call_args(&b, cs, &rev);
        if key.ret_active {
            let one = b.const_float(cs.function.function_type().return_type(), 1.0);
            args.insert(
                rev.param_index(Param::ReturnAdjoint)
                    .expect("a dret parameter"),
                one,
            );
        }
        args.insert(
            rev.param_index(Param::Tape).expect("a tape parameter"),
            tape,
        );
        let call = b.call(fns.reverse.function_type(), fns.reverse, &args);
        call.copy_debug_loc(cs.call);
        let mut outs = vec![primal];
        outs.extend(fields(&b, call.as_value(), &rev, |f| {
            matches!(f, Field::Adjoint(_))
        }));
        finish_call(&b, cs, &outs, &[aug_call, call])
    }

    /// Sets the tape sizes of copies into and out of caller buffers.
    pub(crate) fn patch_tape_sizes(&self, session: &Session<'m>) -> Result<(), Diagnostic> {
        for p in &self.patches {
            let size = session.tape_size(&p.key).unwrap_or(8);
            if let Some(n) = p.allocated.and_then(|a| a.const_int_sext()) {
                if (n as u64) < size {
                    return Err(Diagnostic::new(format!(
                        "enzyme_allocated gives {n} bytes, but the tape of `{}` needs {size}",
                        p.key.function.name()
                    ))
                    .at(p.inst));
                }
            }
            let b = Builder::new(p.inst.context());
            p.inst
                .set_operand(p.operand, b.const_int(Ty::int(b.ctx(), 64), size as i64));
        }
        Ok(())
    }
}

/// What a forward-mode call returns: the tangents of a floating return (a
/// pointer's shadows only with enzyme_dup_return), after the primal result
/// with enzyme_primal_return.
fn forward_outs<'m>(
    b: &Builder<'m>,
    cs: &CallSite<'m>,
    call: Value<'m>,
    sig: &Signature<'m>,
) -> Vec<Value<'m>> {
    let ret = cs.function.function_type().return_type();
    let tangents = match cs.ret.activity {
        Some(ReturnActivity::Const) => false,
        Some(ReturnActivity::Dup) => true,
        _ => ret.carries_float(),
    };
    fields(b, call, sig, |f| match f {
        Field::Return => cs.ret.primal,
        Field::ReturnShadow { .. } => tangents,
        _ => false,
    })
}

/// Whether `e` is a forward-mode entry point.
fn forward_entry(e: EntryPoint) -> bool {
    matches!(
        e,
        EntryPoint::FwdDiff | EntryPoint::FwdSplit | EntryPoint::ErrorEstimate
    )
}

/// Refuses return markers that ask for what the entry point cannot give.
fn check_return_markers(cs: &CallSite<'_>) -> Result<(), Vec<Diagnostic>> {
    let ret = cs.function.function_type().return_type();
    let fname = cs.function.name();
    let entry = cs.entry.name();
    let why = match cs.ret.activity {
        Some(ReturnActivity::Active) if !ret.is_fp_scalar() => Some(format!(
            "`enzyme_active_return`: `{fname}` returns {ret}, which has no adjoint (only a floating-point return can be active)"
        )),
        Some(ReturnActivity::Active) if forward_entry(cs.entry) => Some(format!(
            "`enzyme_active_return` asks for an adjoint of the return of `{fname}`, which forward mode does not have (use enzyme_dup_return for its tangent)"
        )),
        Some(ReturnActivity::Dup)
            if cs.entry == EntryPoint::Autodiff
                || (!forward_entry(cs.entry) && ret.kind() != TyKind::Pointer) =>
        {
            Some(format!(
                "`enzyme_dup_return` asks `{entry}` for the shadow of the return of `{fname}`, which only __enzyme_fwddiff returns, and __enzyme_augmentfwd for a returned pointer (reverse mode: enzyme_active_return or enzyme_const_return)"
            ))
        }
        Some(ReturnActivity::Dup) if !ret.carries_float() && ret.kind() != TyKind::Pointer => Some(format!(
            "`enzyme_dup_return`: `{fname}` returns {ret}, which has no tangent"
        )),
        _ if cs.ret.primal && ret.is_void() => Some(format!(
            "`enzyme_primal_return`: `{fname}` returns void, so there is no primal result to return"
        )),
        _ if cs.ret.primal && cs.entry == EntryPoint::Reverse => Some(format!(
            "`enzyme_primal_return` asks __enzyme_reverse for the primal result of `{fname}`, which __enzyme_augmentfwd returns"
        )),
        _ => None,
    };
    match why {
        Some(m) => Err(vec![Diagnostic::new(m)
            .in_function(cs.call.parent_block().parent().name())
            .at(cs.call)]),
        None => Ok(()),
    }
}

fn builder_at<'m>(call: Inst<'m>) -> Builder<'m> {
    let b = Builder::new(call.context());
    b.position_before(call);
    b
}

/// `cs` with the lanes of each `enzyme_dupv` argument's shadow made at the
/// call: lane k's shadow is the first's plus k times the byte stride.
fn strided_shadows<'m>(cs: &CallSite<'m>) -> CallSite<'m> {
    let mut out = cs.clone();
    for arg in &mut out.args {
        let Some(stride) = arg.lane_stride.take() else {
            continue;
        };
        let b = builder_at(cs.call);
        let ctx = cs.call.context();
        let i64t = crate::ir::Ty::int(ctx, 64);
        let stride = b.int_cast(stride, i64t);
        for (k, s) in arg.shadows.iter_mut().enumerate().skip(1) {
            let offset = b.mul(stride, b.const_int(i64t, k as i64));
            *s = b.gep(crate::ir::Ty::int(ctx, 8), *s, &[offset]);
        }
    }
    out
}

/// `cs` with every shadow that is a function (a function pointer passed
/// with `enzyme_dup`, or a function passed where a pointer parameter
/// expects one) replaced by that function's shadow table, the table of its
/// derivatives an indirect call in the derivative calls through.
fn function_shadows<'m>(
    cs: &CallSite<'m>,
    session: &mut Session<'m>,
) -> Result<CallSite<'m>, Vec<Diagnostic>> {
    let mut out = cs.clone();
    let mode = match cs.entry {
        EntryPoint::FwdDiff | EntryPoint::FwdSplit => Mode::Forward { width: cs.width },
        EntryPoint::ErrorEstimate => Mode::ForwardError,
        _ => Mode::Split,
    };
    for arg in &mut out.args {
        for s in &mut arg.shadows {
            if crate::callsite::is_function_choice(*s) {
                *s = function_table_of(*s, mode, session, &mut HashMap::new())
                    .map_err(|d| vec![d.at(cs.call)])?;
            }
        }
    }
    Ok(out)
}

/// The shadow of `v`, a function or a choice among functions (see
/// `is_function_choice`): the tables of the functions, chosen the same way
/// (a select of tables next to the select, a phi of tables next to the
/// phi).
fn function_table_of<'m>(
    v: Value<'m>,
    mode: Mode,
    session: &mut Session<'m>,
    done: &mut HashMap<Value<'m>, Value<'m>>,
) -> Result<Value<'m>, Diagnostic> {
    if let Some(f) = v.strip_to_function() {
        return Ok(session.function_shadow(f, mode)?.as_value());
    }
    if let Some(t) = done.get(&v) {
        return Ok(*t);
    }
    let i = v
        .as_inst()
        .expect("a choice among functions is an instruction");
    let b = Builder::new(v.context());
    b.position_before(i);
    if v.opcode() == Some(crate::ir::LLVMOpcode::LLVMPHI) {
        let phi = b.phi(v.ty(), &format!("{}.shadow", v.name()));
        done.insert(v, phi.as_value());
        for (x, blk) in i.incoming() {
            let t = function_table_of(x, mode, session, done)?;
            phi.add_incoming(t, blk);
        }
        return Ok(phi.as_value());
    }
    let a = function_table_of(v.operand(1), mode, session, done)?;
    let c = function_table_of(v.operand(2), mode, session, done)?;
    b.position_before(i);
    let sel = b.select(v.operand(0), a, c);
    done.insert(v, sel);
    Ok(sel)
}

/// The derivative request a call site makes in `mode`: a floating return
/// is active unless `enzyme_const_return` says otherwise.
fn request<'m>(cs: &CallSite<'m>, mode: Mode) -> Request<'m> {
    Request {
        function: cs.function,
        args: cs.args.iter().map(|a| a.activity).collect(),
        ret_active: cs.function.function_type().return_type().is_fp_scalar()
            && cs.ret.activity != Some(ReturnActivity::Const),
        // enzyme_dup_return on a returned pointer (split mode): its shadow
        // is made and returned by the augmented function.
        ret_shadowed: cs.ret.activity == Some(ReturnActivity::Dup)
            && cs.function.function_type().return_type().kind() == TyKind::Pointer,
        mode,
    }
}

/// The derivative's primal and shadow arguments, in the order of `sig`
/// (its return adjoint and tape, which come last, are the caller's to
/// insert): each value passed converted to the parameter's type.
fn call_args<'m>(b: &Builder<'m>, cs: &CallSite<'m>, sig: &Signature<'m>) -> Vec<Value<'m>> {
    let mut args = Vec::new();
    for (param, ty) in sig.params() {
        let v = match *param {
            Param::Primal(k) => cs.args[k].value,
            Param::Shadow { of, lane } => cs.args[of].shadows[lane as usize],
            Param::ReturnAdjoint | Param::Tape => continue,
        };
        args.push(abi::convert_arg(b, v, *ty).unwrap_or(v));
    }
    args
}

/// The fields of a call's returned struct that `wanted` selects, in order.
fn fields<'m>(
    b: &Builder<'m>,
    call: Value<'m>,
    sig: &Signature<'m>,
    wanted: impl Fn(Field) -> bool,
) -> Vec<Value<'m>> {
    let mut out = Vec::new();
    for (k, (field, _)) in sig.fields().iter().enumerate() {
        if wanted(*field) {
            out.push(b.extract_value(call, k as u32));
        }
    }
    out
}

/// Packs `outs` into the call's declared return, replaces and erases it.
/// A call site reached through `invoke` continues to its normal
/// destination, and `calls` (of the derivatives, which may throw) become
/// invokes of its landing pad. A declared return type that
/// cannot hold what the entry point returns is a diagnostic.
fn finish_call<'m>(
    b: &Builder<'m>,
    cs: &CallSite<'m>,
    outs: &[Value<'m>],
    calls: &[Inst<'m>],
) -> Result<(), Vec<Diagnostic>> {
    let caller = cs.call.parent_block().parent();
    let declared = cs.call.call_function_type().return_type();
    if cs.entry != EntryPoint::AugmentFwd && cs.sret.is_none() {
        let tys: Vec<Ty> = outs.iter().map(|v| v.ty()).collect();
        if let Err(why) = abi::check_return(caller.global_parent(), &tys, declared) {
            return Err(vec![Diagnostic::new(format!(
                "this call to `{}` {why}",
                cs.entry.name()
            ))
            .in_function(caller.name())
            .at(cs.call)
            .help("declare the entry point with the type of what it returns, e.g. `double __enzyme_autodiff(void *, ...)`")]);
        }
    }
    let entry = Builder::new(caller.context());
    entry.position_before(caller.entry_block().first_instruction().expect("entry"));
    if let Some(v) = abi::pack_return(b, &entry, outs, declared, cs.sret) {
        cs.call.replace_all_uses_with(v);
    }
    if !cs.call.is_invoke() {
        cs.call.erase();
        return Ok(());
    }
    let (normal, unwind) = (cs.call.normal_dest(), cs.call.unwind_dest());
    let from = cs.call.parent_block();
    b.br(normal);
    cs.call.erase();
    // The derivative runs the function, which may throw: each call of it
    // unwinds where the entry point's invoke did.
    for c in calls {
        let now_in = c.parent_block();
        c.call_into_invoke(unwind);
        if now_in != from {
            unwind.copy_phi_incoming(from, now_in);
        }
    }
    Ok(())
}
