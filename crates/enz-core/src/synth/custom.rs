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
//!   returns the adjoints of all floating-point parameters, in order (a
//!   scalar, a struct of them, or void) and accumulates into shadows.

use super::registry::{FwdKey, SplitKey};
use super::reverse::{adjoint_return_type, new_function, shadowed_params, Derivative};
use crate::callsite::ArgActivity;
use crate::diag::Diagnostic;
use crate::ir::{Builder, Ty, TyKind, Value};

fn entry(f: Value) -> Builder {
    let b = Builder::new(f.context());
    let blk = f.append_block("entry");
    b.position_at_end(blk);
    b
}

fn is_dup(a: ArgActivity) -> bool {
    matches!(a, ArgActivity::Dup | ArgActivity::DupNoNeed)
}

fn mismatch(user: Value, f: Value, what: &str) -> Diagnostic {
    Diagnostic::new(format!(
        "the registered derivative `{}` of `{}` does not have the expected signature: {what}",
        user.name(),
        f.name()
    ))
    .help("see runtime/include/enzyme.h for the signatures of custom derivatives")
}

/// The forward derivative of `key.function` built on the user's `user`.
pub(crate) fn forward_adapter(key: &FwdKey, user: Value) -> Result<Value, Diagnostic> {
    let f = key.function;
    if key.width != 1 {
        return Err(mismatch(
            user,
            f,
            "custom forward derivatives support enzyme_width 1 only",
        ));
    }
    let fty = super::forward::forward_type(f, &key.args, 1);
    let name = format!("fwddiffe_{}", f.name());
    let a = new_function(f, &name, fty);
    let b = entry(a);
    let ps = a.params();
    let mut primal = Vec::new();
    let mut user_args = Vec::new();
    let mut k = 0;
    for (p, act) in f.params().iter().zip(&key.args) {
        primal.push(ps[k]);
        user_args.push(ps[k]);
        k += 1;
        let has_tangent = p.ty().carries_float() || p.ty().kind() == TyKind::Pointer;
        if is_dup(*act) {
            user_args.push(ps[k]);
            k += 1;
        } else if has_tangent {
            user_args.push(b.zero(p.ty()));
        }
    }
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
    agg = b.insert_value(agg, r, 0);
    if rty.len() > 1 {
        agg = b.insert_value(agg, t, 1);
    }
    b.ret(Some(agg));
    Ok(a)
}

/// The augmented primal and reverse function of `key.function` built on
/// the user's `aug` and `rev`.
pub(crate) fn gradient_adapters(
    key: &SplitKey,
    aug: Value,
    rev: Value,
) -> Result<Derivative, Diagnostic> {
    let f = key.function;
    let ctx = f.context();
    let ret = f.function_type().return_type();
    let ptr = Ty::ptr(ctx);
    let params = shadowed_params(f, &key.args);
    // Augmented primal: {tape, ret?, shadow ret?}.
    let mut fields = vec![ptr];
    if !ret.is_void() {
        fields.push(ret);
        if ret.kind() == TyKind::Pointer {
            fields.push(ptr);
        }
    }
    let aty = Ty::function(Ty::literal_struct(ctx, &fields), &params, false);
    let a = new_function(f, &format!("augmented_{}", f.name()), aty);
    let b = entry(a);
    let (primal, user_args) = split_args(&b, f, &key.args, &a.params());
    if aug.function_type().params_len() != user_args.len() {
        return Err(mismatch(aug, f, "the augmented forward takes the function's parameters, each pointer followed by its shadow"));
    }
    let tape = b.call(aug.function_type(), aug, &user_args);
    let tape = if tape.ty().kind() == TyKind::Pointer {
        tape
    } else {
        b.zero(ptr)
    };
    let mut agg = b.poison(aty.return_type());
    agg = b.insert_value(agg, tape, 0);
    if !ret.is_void() {
        let r = b.call(f.function_type(), f, &primal);
        agg = b.insert_value(agg, r, 1);
        if ret.kind() == TyKind::Pointer {
            agg = b.insert_value(agg, b.zero(ptr), 2);
        }
    }
    b.ret(Some(agg));
    // Reverse: (params with shadows, dret?, tape) -> {adjoints of outs}.
    let mut rparams = params.clone();
    if key.ret_active {
        rparams.push(ret);
    }
    rparams.push(ptr);
    let out_ty = adjoint_return_type(f, &key.args);
    let rty = Ty::function(out_ty, &rparams, false);
    let r = new_function(f, &format!("reverse_{}", f.name()), rty);
    let b = entry(r);
    let rps = r.params();
    let (_, mut user_args) = split_args(&b, f, &key.args, &rps);
    if ret.carries_float() {
        user_args.push(if key.ret_active {
            rps[params.len()]
        } else {
            b.zero(ret)
        });
    }
    user_args.push(*rps.last().expect("tape"));
    if rev.function_type().params_len() != user_args.len() {
        return Err(mismatch(rev, f, "the reverse takes the function's parameters (pointers followed by shadows), the return's adjoint if it returns a float, and the tape"));
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
            .map(|i| b.extract_value(res, i))
            .collect(),
        TyKind::Vector => (0..res.ty().len() as u32)
            .map(|i| b.extract_member(res, i))
            .collect(),
        _ => vec![res],
    };
    if out_ty.is_void() {
        b.ret(None);
        return Ok(Derivative {
            forward: a,
            reverse: r,
        });
    }
    let mut agg = b.poison(out_ty);
    let mut j = 0;
    for (i, act) in key.args.iter().enumerate() {
        if *act != ArgActivity::Out {
            continue;
        }
        let pos = float_params.iter().position(|p| *p == i);
        let v = match pos.and_then(|p| user_outs.get(p)) {
            Some(v) => b.fp_cast(*v, out_ty.member(j)),
            None => {
                return Err(mismatch(
                    rev,
                    f,
                    "it must return one adjoint per floating-point parameter",
                ));
            }
        };
        agg = b.insert_value(agg, v, j);
        j += 1;
    }
    b.ret(Some(agg));
    Ok(Derivative {
        forward: a,
        reverse: r,
    })
}

/// Splits a derivative's parameters into the primal arguments and the
/// arguments of a user's function (each pointer followed by its shadow;
/// null for pointers without one).
fn split_args(
    b: &Builder,
    f: Value,
    acts: &[ArgActivity],
    ps: &[Value],
) -> (Vec<Value>, Vec<Value>) {
    let mut primal = Vec::new();
    let mut user = Vec::new();
    let mut k = 0;
    for (p, act) in f.params().iter().zip(acts) {
        primal.push(ps[k]);
        user.push(ps[k]);
        k += 1;
        if is_dup(*act) {
            user.push(ps[k]);
            k += 1;
        } else if p.ty().kind() == TyKind::Pointer {
            user.push(b.zero(p.ty()));
        }
    }
    (primal, user)
}
