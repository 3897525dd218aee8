//! User-supplied derivatives (`__enzyme_register_gradient_NAME = {f,
//! aug_f, rev_f}`, `__enzyme_register_derivative_NAME = {f, fwd_f}`):
//! adapters that give the user's functions the signatures enz-rs's own
//! derivatives have, so calls to `f` — defined or merely declared — use
//! them in every mode.
//!
//! Conventions (documented in `enzyme.h`):
//! - `fwd_f(params, each float/pointer param followed by its tangent)`
//!   returns the tangent of the result;
//! - `aug_f(params, each pointer param followed by its shadow)` returns the
//!   tape (`void*`); the primal result comes from calling `f`;
//! - `rev_f(params with shadows, [dret if f returns a float], tape)`
//!   (no tape when `aug_f` returns void) returns the adjoints of all floating-point parameters, in order (a
//!   scalar, a struct of them, or void) and accumulates into shadows.

use super::reverse::{new_function, Derivative};
use crate::diag::Diagnostic;
use crate::ir::{Builder, Function, TyKind, Value};
use crate::signature::{ArgActivity, Field, Kind, Param, Request, Signature};

fn entry<'m>(f: Function<'m>) -> Builder<'m> {
    let b = Builder::new(f.context());
    let blk = f.append_block("entry");
    b.position_at_end(blk);
    b
}

fn mismatch<'m>(user: Function<'m>, f: Function<'m>, what: &str) -> Diagnostic {
    Diagnostic::new(format!(
        "the registered derivative `{}` of `{}` does not have the expected signature: {what}",
        user.name(),
        f.name()
    ))
    .help("see runtime/include/enzyme.h for the signatures of custom derivatives")
}

/// The forward derivative of `key.function` built on the user's `user`.
/// On a mismatch nothing it began is left in the module.
pub(crate) fn forward_adapter<'m>(
    key: &crate::signature::Request<'m>,
    user: Function<'m>,
) -> Result<Function<'m>, Diagnostic> {
    let mut made = Vec::new();
    let result = build_forward_adapter(key, user, &mut made);
    if result.is_err() {
        discard(made);
    }
    result
}

/// Deletes functions an adapter began (a half-built one would be left
/// without a terminator for the passes after enz-rs, through the plugin).
fn discard(made: Vec<Function<'_>>) {
    for f in made {
        f.delete_function();
    }
}

fn build_forward_adapter<'m>(
    key: &crate::signature::Request<'m>,
    user: Function<'m>,
    made: &mut Vec<Function<'m>>,
) -> Result<Function<'m>, Diagnostic> {
    let f = key.function;
    if key.mode != (crate::signature::Mode::Forward { width: 1 }) {
        return Err(mismatch(
            user,
            f,
            "custom forward derivatives support enzyme_width 1 only",
        ));
    }
    let sig = key.signature(Kind::Forward { width: 1 });
    let fty = sig.function_type();
    let name = format!("fwddiffe_{}", f.name());
    let a = new_function(f, &name, fty);
    made.push(a);
    let b = entry(a);
    let ps = a.params();
    let (primal, user_args) = user_arguments(&b, f, key, &sig, &ps, |t| {
        t.carries_float() || t.kind() == TyKind::Pointer
    });
    let uty = user.function_type();
    if uty.params_len() != user_args.len() {
        return Err(mismatch(
            user,
            f,
            &format!(
                "expected {} parameters (each float or pointer parameter followed by its tangent)",
                user_args.len()
            ),
        ));
    }
    let r = b.call(f.function_type(), f, &primal);
    let t = b.call(uty, user, &user_args);
    let rty = fty.return_type();
    if rty.is_void() {
        b.ret(None);
        return Ok(a);
    }
    let ret = f.function_type().return_type();
    if uty.return_type() != ret {
        return Err(mismatch(
            user,
            f,
            "it must return the tangent, of the function's return type",
        ));
    }
    let mut agg = b.poison(rty);
    for (k, (field, _)) in sig.fields().iter().enumerate() {
        let v = if *field == Field::Return { r } else { t };
        agg = b.insert_value(agg, v.as_value(), k as u32);
    }
    b.ret(Some(agg));
    Ok(a)
}

/// The augmented primal and reverse function of `key.function` built on
/// the user's `aug` and `rev`.
pub(crate) fn gradient_adapters<'m>(
    key: &crate::signature::Request<'m>,
    aug: Function<'m>,
    rev: Function<'m>,
) -> Result<Derivative<'m>, Diagnostic> {
    let mut made = Vec::new();
    let result = build_gradient_adapters(key, aug, rev, &mut made);
    if result.is_err() {
        discard(made);
    }
    result
}

fn build_gradient_adapters<'m>(
    key: &crate::signature::Request<'m>,
    aug: Function<'m>,
    rev: Function<'m>,
    made: &mut Vec<Function<'m>>,
) -> Result<Derivative<'m>, Diagnostic> {
    let f = key.function;
    let ret = f.function_type().return_type();
    let is_pointer = |t: crate::ir::Ty| t.kind() == TyKind::Pointer;
    // Augmented primal: the user's tape, then f's own result.
    let asig = key.signature(Kind::Augmented);
    let aty = asig.function_type();
    let a = new_function(f, &format!("augmented_{}", f.name()), aty);
    made.push(a);
    let b = entry(a);
    let (primal, user_args) = user_arguments(&b, f, key, &asig, &a.params(), is_pointer);
    if aug.function_type().params_len() != user_args.len() {
        return Err(mismatch(aug, f, "the augmented forward takes the function's parameters, each pointer followed by its shadow"));
    }
    let tape = b.call(aug.function_type(), aug, &user_args);
    let tape = if tape.ty().kind() == TyKind::Pointer {
        tape.as_value()
    } else {
        b.zero(crate::ir::Ty::ptr(f.context()))
    };
    let r = (!ret.is_void()).then(|| b.call(f.function_type(), f, &primal));
    let mut agg = b.poison(aty.return_type());
    for (k, (field, ty)) in asig.fields().iter().enumerate() {
        let v = match field {
            Field::Tape => tape,
            Field::Return => (r.expect("a return field for a non-void function")).as_value(),
            _ => b.zero(*ty),
        };
        agg = b.insert_value(agg, v, k as u32);
    }
    b.ret(Some(agg));
    // Reverse: the user's reverse takes the return's adjoint whenever f
    // returns a float (zero when the return is not active), then the tape.
    let rsig = key.signature(Kind::Reverse);
    let out_ty = rsig.return_type();
    let r = new_function(f, &format!("reverse_{}", f.name()), rsig.function_type());
    made.push(r);
    let b = entry(r);
    let rps = r.params();
    let (_, mut user_args) = user_arguments(&b, f, key, &rsig, &rps, is_pointer);
    if ret.carries_float() {
        user_args.push(match rsig.param_index(Param::ReturnAdjoint) {
            Some(k) => rps[k],
            None => b.zero(ret),
        });
    }
    // An augmented forward returning nothing makes no tape, and its
    // reverse may take none (Enzyme's "tape, if provided").
    let no_tape = aug.function_type().return_type().is_void()
        && rev.function_type().params_len() == user_args.len();
    if !no_tape {
        user_args.push(rps[rsig.param_index(Param::Tape).expect("a tape parameter")]);
    }
    if rev.function_type().params_len() != user_args.len() {
        return Err(mismatch(rev, f, "the reverse takes the function's parameters (pointers followed by shadows), the return's adjoint if it returns a float, and the tape (none when the augmented forward returns void)"));
    }
    let res = b.call(rev.function_type(), rev, &user_args);
    // One adjoint per floating parameter, in order.
    let float_params: Vec<usize> = f
        .params()
        .iter()
        .enumerate()
        .filter(|(_, p)| p.ty().is_fp_scalar())
        .map(|(i, _)| i)
        .collect();
    let user_outs: Vec<Value> = match res.ty().kind() {
        TyKind::Void => Vec::new(),
        TyKind::Struct | TyKind::Array => (0..res.ty().len() as u32)
            .map(|i| b.extract_value(res.as_value(), i))
            .collect(),
        TyKind::Vector => (0..res.ty().len() as u32)
            .map(|i| b.extract_member(res.as_value(), i))
            .collect(),
        _ => vec![res.as_value()],
    };
    if out_ty.is_void() {
        b.ret(None);
        return Ok(Derivative {
            forward: a,
            reverse: r,
        });
    }
    let mut agg = b.poison(out_ty);
    for (j, (field, ty)) in rsig.fields().iter().enumerate() {
        let Field::Adjoint(i) = *field else {
            continue;
        };
        let j = j as u32;
        let pos = float_params.iter().position(|p| *p == i);
        let v = match pos.and_then(|p| user_outs.get(p)) {
            Some(v) => b.fp_cast(*v, *ty),
            None => {
                return Err(mismatch(
                    rev,
                    f,
                    "it must return one adjoint per floating-point parameter",
                ));
            }
        };
        agg = b.insert_value(agg, v, j);
    }
    b.ret(Some(agg));
    Ok(Derivative {
        forward: a,
        reverse: r,
    })
}

/// The primal arguments and the arguments of a user's function, read
/// from the parameters `ps` of a derivative with signature `sig`: each
/// primal parameter, followed for the user's function by its shadow when
/// `key` duplicates it, or by zero when it has none but `wants_shadow`
/// says the user's convention passes one.
fn user_arguments<'m>(
    b: &Builder<'m>,
    f: Function<'m>,
    key: &Request<'m>,
    sig: &Signature<'m>,
    ps: &[Value<'m>],
    wants_shadow: impl Fn(crate::ir::Ty) -> bool,
) -> (Vec<Value<'m>>, Vec<Value<'m>>) {
    let mut primal = Vec::new();
    let mut user = Vec::new();
    for (k, p) in f.params().iter().enumerate() {
        let at = sig
            .param_index(Param::Primal(k))
            .expect("every primal parameter");
        primal.push(ps[at]);
        user.push(ps[at]);
        let act: ArgActivity = key.args[k];
        if let Some(s) = sig.param_index(Param::Shadow { of: k, lane: 0 }) {
            user.push(ps[s]);
        } else if !act.has_shadow() && wants_shadow(p.ty()) {
            user.push(b.zero(p.ty()));
        }
    }
    (primal, user)
}
