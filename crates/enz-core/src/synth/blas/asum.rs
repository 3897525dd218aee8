//! `?asum`'s rules, the one BLAS derivative that is not a BLAS call:
//! `d sum |x_i| = sum sign(x_i) dx_i`. Helpers emitted into the module
//! once per precision and direction loop over the elements:
//! `__enz_blas_dasum_adjoint(n, x, inc, dx, dr)` adds `dr sign(x_i)` to
//! each `dx_i`, `__enz_blas_dasum_tangent(n, x, inc, dx, 0)` returns
//! `sum sign(x_i) dx_i` (the order of the elements does not matter, so a
//! negative increment is taken as its absolute value).

use crate::ir::{add_internal_function, named_function, Builder, Function, Ty, Value};
use crate::ir::{LLVMIntPredicate, LLVMRealPredicate};
use crate::names::{BlasPrecision, BLAS_HELPER_PREFIX};

/// Calls the helper: the adjoint (`dr` given, returns 0) or the tangent.
pub(crate) fn call<'m>(
    b: &Builder<'m>,
    prec: BlasPrecision,
    adjoint: bool,
    args: [Value<'m>; 5],
) -> Value<'m> {
    let f = helper(b, prec, adjoint);
    let t = super::float_ty(b, prec);
    let ctx = b.ctx();
    let (i32t, ptr) = (Ty::int(ctx, 32), Ty::ptr(ctx));
    let fty = Ty::function(t, &[i32t, ptr, i32t, ptr, t], false);
    b.call(fty, f.as_value(), &args).as_value()
}

fn helper<'m>(b: &Builder<'m>, prec: BlasPrecision, adjoint: bool) -> Function<'m> {
    let p = match prec {
        BlasPrecision::Single => 's',
        BlasPrecision::Double => 'd',
    };
    let what = if adjoint { "adjoint" } else { "tangent" };
    let name = format!("{BLAS_HELPER_PREFIX}{p}asum_{what}");
    let module = b.insert_block().parent().global_parent();
    if let Some(f) = named_function(module, &name) {
        return f;
    }
    let ctx = b.ctx();
    let t = super::float_ty(b, prec);
    let (i32t, i64t, ptr) = (Ty::int(ctx, 32), Ty::int(ctx, 64), Ty::ptr(ctx));
    let fty = Ty::function(t, &[i32t, ptr, i32t, ptr, t], false);
    let f = add_internal_function(module, &name, fty);
    let ps = f.params();
    let (n, x, inc, dx, dr) = (ps[0], ps[1], ps[2], ps[3], ps[4]);
    let h = Builder::new(ctx);
    let entry = f.append_block("entry");
    let head = f.append_block("head");
    let body = f.append_block("body");
    let done = f.append_block("done");
    h.position_at_end(entry);
    let n64 = h.sext(n, i64t);
    let inc64 = h.sext(inc, i64t);
    let zero64 = h.const_int(i64t, 0);
    let neg = h.icmp(LLVMIntPredicate::LLVMIntSLT, inc64, zero64);
    let step = h.select(neg, h.sub(zero64, inc64), inc64);
    h.br(head);
    h.position_at_end(head);
    let k = h.phi(i64t, "k");
    let acc = h.phi(t, "acc");
    let more = h.icmp(LLVMIntPredicate::LLVMIntSLT, k.into(), n64);
    h.cond_br(more, body, done);
    h.position_at_end(body);
    let off = h.mul(k.into(), step);
    let xv = h.load(t, h.gep(t, x, &[off]));
    let (zero, one) = (h.const_float(t, 0.0), h.const_float(t, 1.0));
    let pos = h.fcmp(LLVMRealPredicate::LLVMRealOGT, xv, zero);
    let negx = h.fcmp(LLVMRealPredicate::LLVMRealOLT, xv, zero);
    let sign = h.select(pos, one, h.select(negx, h.const_float(t, -1.0), zero));
    let pd = h.gep(t, dx, &[off]);
    let dv = h.load(t, pd);
    let next_acc = if adjoint {
        h.store(h.fadd(dv, h.fmul(dr, sign)), pd);
        acc.into()
    } else {
        h.fadd(acc.into(), h.fmul(sign, dv))
    };
    let next = h.add(k.into(), h.const_int(i64t, 1));
    h.br(head);
    k.add_incoming(zero64, entry);
    k.add_incoming(next, body);
    acc.add_incoming(zero, entry);
    acc.add_incoming(next_acc, body);
    h.position_at_end(done);
    h.ret(Some(acc.into()));
    f
}
