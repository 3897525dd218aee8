//! Small helper functions that derivatives call, emitted into the module
//! (internal, once per module and type) so that the output links with
//! nothing but libc and libm.

use crate::ir::LLVMIntPredicate;
use crate::ir::{add_internal_function, named_function, Builder, Function, Ty, TyKind, Value};
use crate::names::MALLOC_USABLE_SIZE;

/// `min(malloc_usable_size(p), bytes)`: how much of an old heap shadow a
/// reallocation may copy or accumulate into.
pub(crate) fn min_usable<'m>(b: &Builder<'m>, p: Value<'m>, bytes: Value<'m>) -> Value<'m> {
    let ctx = b.ctx();
    let i64t = Ty::int(ctx, 64);
    let fty = Ty::function(i64t, &[Ty::ptr(ctx)], false);
    let usable = b.call_named(MALLOC_USABLE_SIZE, fty, &[p]);
    let lt = b.icmp(LLVMIntPredicate::LLVMIntULT, usable.as_value(), bytes);
    b.select(lt, usable.as_value(), bytes)
}

/// Calls `__enz_add_and_zero_<ty>(d, s, nbytes)`: for every element of
/// type `ty` in the first `nbytes` bytes, `s[k] += d[k]; d[k] = 0`.
pub(crate) fn add_and_zero<'m>(
    b: &Builder<'m>,
    ty: Ty<'m>,
    d: Value<'m>,
    s: Value<'m>,
    nbytes: Value<'m>,
) {
    let f = add_and_zero_fn(b, ty);
    let ctx = b.ctx();
    let ptr = Ty::ptr(ctx);
    let fty = Ty::function(Ty::void(ctx), &[ptr, ptr, Ty::int(ctx, 64)], false);
    b.call(fty, f, &[d, s, nbytes]);
}

fn add_and_zero_fn<'m>(b: &Builder<'m>, ty: Ty<'m>) -> Function<'m> {
    let ctx = b.ctx();
    let module = b.insert_block().parent().global_parent();
    let suffix = match ty.kind() {
        TyKind::Float => "f32",
        TyKind::Double => "f64",
        TyKind::Half => "f16",
        _ => "fp",
    };
    let name = format!("__enz_add_and_zero_{suffix}");
    if let Some(existing) = named_function(module, &name) {
        return existing;
    }
    let ptr = Ty::ptr(ctx);
    let i64t = Ty::int(ctx, 64);
    let fty = Ty::function(Ty::void(ctx), &[ptr, ptr, i64t], false);
    let f = add_internal_function(module, &name, fty);
    let ps = f.params();
    let (d, s, nbytes) = (ps[0], ps[1], ps[2]);
    let add_block = |n: &str| f.append_block(n);
    let entry = add_block("entry");
    let body = add_block("body");
    let done = add_block("done");
    let fb = Builder::new(ctx);
    fb.position_at_end(entry);
    let size = fb.const_int(i64t, ty.alloc_size(module) as i64);
    let n = fb.udiv(nbytes, size);
    let zero = fb.const_int(i64t, 0);
    let empty = fb.icmp(LLVMIntPredicate::LLVMIntEQ, n, zero);
    fb.cond_br(empty, done, body);
    fb.position_at_end(body);
    let k = fb.phi(i64t, "k");
    let pd = fb.gep(ty, d, &[k.into()]);
    let pss = fb.gep(ty, s, &[k.into()]);
    let dv = fb.load(ty, pd);
    let sv = fb.load(ty, pss);
    fb.store(fb.fadd(sv, dv), pss);
    fb.store(fb.zero(ty), pd);
    let next = fb.add(k.into(), fb.const_int(i64t, 1));
    k.add_incoming(zero, entry);
    k.add_incoming(next, body);
    let more = fb.icmp(LLVMIntPredicate::LLVMIntULT, next, n);
    fb.cond_br(more, body, done);
    fb.position_at_end(done);
    fb.ret(None);
    f
}
