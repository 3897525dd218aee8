//! Turns rule formulas ([`Expr`]) into IR at the builder's position.
//!
//! This is the only place that gives the rule table's vocabulary a meaning
//! in instructions; the table itself stays pure data.

use super::rules::{Cond, Expr};
use crate::ir::{Builder, Ty, TyKind, Value};
use crate::names::MathFn;

mod lanes;

/// The values a formula refers to.
pub(crate) struct Operands<'m, 'a> {
    /// Primal operands, as available where the formula is emitted.
    pub(crate) args: &'a [Value<'m>],
    /// The primal result, if the formula needs it (`None` if unavailable).
    pub(crate) ret: Option<Value<'m>>,
    /// The result's adjoint (reverse) or the operand's tangent (forward).
    pub(crate) dret: Value<'m>,
    /// Components of the primal result (`Expr::RetAt`), where needed.
    pub(crate) rets: &'a [Value<'m>],
    /// Adjoints of the result's components (`Expr::DRetAt`).
    pub(crate) drets: &'a [Value<'m>],
    /// Tangents of operands (forward mode only).
    pub(crate) dargs: &'a [Option<Value<'m>>],
    /// The rule's floating type (the result type): constants take it.
    pub(crate) ty: Ty<'m>,
    /// Values for [`Expr::Given`].
    pub(crate) given: &'a [Value<'m>],
}

/// Emits `e` and returns its value.
pub(crate) fn emit<'m>(b: &Builder<'m>, e: &Expr, o: &Operands<'m, '_>) -> Value<'m> {
    match e {
        Expr::DRet => o.dret,
        Expr::DArg(i) => o.dargs[*i].unwrap_or_else(|| b.zero(o.args[*i].ty())),
        Expr::Arg(i) => o.args[*i],
        Expr::Ret => o.ret.expect("rule needs the primal result"),
        Expr::RetAt(j) => o.rets[*j],
        Expr::DRetAt(j) => o.drets[*j],
        Expr::Const(v) => b.const_float(o.ty, *v),
        // Derivative arithmetic may be reassociated (as Enzyme's is
        // fast-math): a tangent or adjoint summed over terms vectorises.
        Expr::Add(l, r) => b.fadd(emit(b, l, o), emit(b, r, o)).allow_reassoc(),
        Expr::Sub(l, r) => b.fsub(emit(b, l, o), emit(b, r, o)).allow_reassoc(),
        Expr::Mul(l, r) => b.fmul(emit(b, l, o), emit(b, r, o)).allow_reassoc(),
        Expr::Div(l, r) => b.fdiv(emit(b, l, o), emit(b, r, o)),
        Expr::Neg(a) => b.fneg(emit(b, a, o)),
        Expr::Math(f, args) => {
            let vals: Vec<Value> = args.iter().map(|a| emit(b, a, o)).collect();
            call_math(b, *f, &vals)
        }
        Expr::Select(c, t, f) => {
            let cond = match &**c {
                Cond::Arg(i) => o.args[*i],
                Cond::Cmp(p, l, r) => b.fcmp(*p, emit(b, l, o), emit(b, r, o)),
            };
            b.select(cond, emit(b, t, o), emit(b, f, o))
        }
        Expr::ToArgType(i, a) => b.fp_cast(emit(b, a, o), o.args[*i].ty()),
        Expr::ToRetType(a) => b.fp_cast(emit(b, a, o), o.ty),
        Expr::IntToFp(a) => b.si_to_fp(emit(b, a, o), o.ty),
        Expr::Given(i) => o.given[*i],
        Expr::IntAdd(a, k) => {
            let v = emit(b, a, o);
            b.add(v, b.const_int(v.ty(), *k))
        }
        Expr::Splat(i, a) => lanes::splat(b, emit(b, a, o), o.args[*i].ty()),
        Expr::ProdOthers(a) => lanes::prod_others(b, emit(b, a, o)),
        Expr::FirstLaneEq { vec, key, val } => {
            let (vec, key, val) = (emit(b, vec, o), emit(b, key, o), emit(b, val, o));
            lanes::first_lane_eq(b, vec, key, val)
        }
    }
}

/// Calls math function `f` on `args` (the first argument's type decides the
/// overload): the LLVM intrinsic where there is one, else libm.
pub(crate) fn call_math<'m>(b: &Builder<'m>, f: MathFn, args: &[Value<'m>]) -> Value<'m> {
    let ty = args[0].ty();
    if f == MathFn::Digamma {
        return super::runtime::digamma(b, args[0]);
    }
    if let Some(name) = f.intrinsic() {
        let overload: Vec<Ty> = match f {
            MathFn::Powi | MathFn::Ldexp => vec![ty, args[1].ty()],
            // Overloaded on the vector, which follows the start value.
            MathFn::ReduceFAdd | MathFn::ReduceFMul => vec![args[1].ty()],
            _ => vec![ty],
        };
        return (b.call_intrinsic(&name, &overload, args)).as_value();
    }
    let bits = match ty.kind() {
        TyKind::Float => 32,
        _ => 64,
    };
    let name = f.libm_name(bits).expect("math function without libm name");
    let params: Vec<Ty> = args.iter().map(|a| a.ty()).collect();
    let fn_ty = Ty::function(ty, &params, false);
    (b.call_named(name, fn_ty, args)).as_value()
}
