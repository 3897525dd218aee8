//! Small helper functions that derivatives call, emitted into the module
//! (internal, once per module and type) so that the output links with
//! nothing but libc and libm.

use crate::ir::{
    add_internal_function, add_internal_global, named_function, Builder, Function, Global, Ty,
    TyKind, Value,
};
use crate::ir::{LLVMIntPredicate, LLVMRealPredicate};
use crate::names::CACHE_BYTES;
use crate::names::{
    ALL_ZERO, CACHE_GIVE, CACHE_TAKE, DIGAMMA, MALLOC_USABLE_SIZE, THREAD_CACHE_CHECK,
};

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

/// Calls `__enz_all_zero(c, p, lo, hi)`: `c` and the bytes `[p + lo, p +
/// hi)` all zero (8 bytes at a time while that many are left, then one at
/// a time; a negative zero is not zero). Not inlined: preprocessing finds
/// these calls in a derivative differentiated again and makes them false
/// (`preprocess::drop_zero_tangent_checks`), which the optimiser could not
/// do once their body were folded into the caller.
pub(crate) fn all_zero<'m>(
    b: &Builder<'m>,
    c: Value<'m>,
    p: Value<'m>,
    lo: Value<'m>,
    hi: Value<'m>,
) -> Value<'m> {
    let ctx = b.ctx();
    let module = b.insert_block().parent().global_parent();
    let ptr = Ty::ptr(ctx);
    let i64t = Ty::int(ctx, 64);
    let i1 = Ty::int(ctx, 1);
    let fty = Ty::function(i1, &[i1, ptr, i64t, i64t], false);
    let f = match named_function(module, ALL_ZERO) {
        Some(f) => f,
        None => {
            use LLVMIntPredicate::*;
            let f = add_internal_function(module, ALL_ZERO, fty);
            f.add_function_attribute("noinline");
            let ps = f.params();
            let (c, base, lo, hi) = (ps[0], ps[1], ps[2], ps[3]);
            let entry = f.append_block("entry");
            let start_block = f.append_block("start");
            let words = f.append_block("words");
            let word = f.append_block("word");
            let bytes = f.append_block("bytes");
            let byte = f.append_block("byte");
            let yes = f.append_block("yes");
            let no = f.append_block("no");
            let fb = Builder::new(ctx);
            fb.position_at_end(entry);
            fb.cond_br(c, start_block, no);
            fb.position_at_end(start_block);
            let i8t = Ty::int(ctx, 8);
            let start = fb.gep(i8t, base, &[lo]);
            let n = fb.sub(hi, lo);
            let zero = fb.const_int(i64t, 0);
            fb.br(words);
            // words: k, while k + 8 <= n
            fb.position_at_end(words);
            let k = fb.phi(i64t, "k");
            let k8 = fb.add(k.as_value(), fb.const_int(i64t, 8));
            let fits = fb.icmp(LLVMIntSLE, k8, n);
            fb.cond_br(fits, word, bytes);
            fb.position_at_end(word);
            let w = fb.load(i64t, fb.gep(i8t, start, &[k.as_value()]));
            w.set_alignment(1);
            let nz = fb.icmp(LLVMIntNE, w, zero);
            fb.cond_br(nz, no, words);
            k.add_incoming(zero, start_block);
            k.add_incoming(k8, word);
            // bytes: j from k, while j < n
            fb.position_at_end(bytes);
            let j = fb.phi(i64t, "j");
            let more = fb.icmp(LLVMIntSLT, j.as_value(), n);
            fb.cond_br(more, byte, yes);
            fb.position_at_end(byte);
            let byte_value = fb.load(i8t, fb.gep(i8t, start, &[j.as_value()]));
            let j1 = fb.add(j.as_value(), fb.const_int(i64t, 1));
            let nz = fb.icmp(LLVMIntNE, byte_value, fb.const_int(i8t, 0));
            fb.cond_br(nz, no, bytes);
            j.add_incoming(k.as_value(), words);
            j.add_incoming(j1, byte);
            fb.position_at_end(yes);
            fb.ret(Some(fb.const_int(i1, 1)));
            fb.position_at_end(no);
            fb.ret(Some(fb.const_int(i1, 0)));
            f
        }
    };
    b.call(fty, f.as_value(), &[c, p, lo, hi]).as_value()
}

/// Calls `__enz_add_and_zero_<ty>(d, s, nbytes)`: for every element of
/// type `ty` in the first `nbytes` bytes, `s[k] += d[k]; d[k] = 0`, as
/// the reverse of `memmove(d, s, nbytes)` needs it when the two overlap
/// too: nothing when `d == s` (a copy onto itself leaves its adjoint as
/// it is; element by element it was doubled, then zeroed), and from the
/// last element down when `d` is below `s`, so that each `d[k]` is read
/// before an earlier element's `s[j] +=` reaches it.
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
    let name = format!("{}{suffix}", crate::names::ADD_AND_ZERO_PREFIX);
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
    let distinct = add_block("distinct");
    let pick = add_block("pick");
    let body = add_block("body");
    let down = add_block("down");
    let done = add_block("done");
    let fb = Builder::new(ctx);
    fb.position_at_end(entry);
    let size = fb.const_int(i64t, ty.alloc_size(module) as i64);
    let n = fb.udiv(nbytes, size);
    let zero = fb.const_int(i64t, 0);
    let one = fb.const_int(i64t, 1);
    let empty = fb.icmp(LLVMIntPredicate::LLVMIntEQ, n, zero);
    fb.cond_br(empty, done, distinct);
    fb.position_at_end(distinct);
    let (di, si) = (fb.ptr_to_int(d, i64t), fb.ptr_to_int(s, i64t));
    let same = fb.icmp(LLVMIntPredicate::LLVMIntEQ, di, si);
    fb.cond_br(same, done, pick);
    fb.position_at_end(pick);
    let below = fb.icmp(LLVMIntPredicate::LLVMIntULT, di, si);
    fb.cond_br(below, down, body);
    // One element: s[k] += d[k]; d[k] = 0.
    let step = |k: Value<'m>| {
        let pd = fb.gep(ty, d, &[k]);
        let pss = fb.gep(ty, s, &[k]);
        let dv = fb.load(ty, pd);
        let sv = fb.load(ty, pss);
        fb.store(fb.fadd(sv, dv), pss);
        fb.store(fb.zero(ty), pd);
    };
    // Up from the first element (d above s, or apart).
    fb.position_at_end(body);
    let k = fb.phi(i64t, "k");
    step(k.into());
    let next = fb.add(k.into(), one);
    k.add_incoming(zero, pick);
    k.add_incoming(next, body);
    let more = fb.icmp(LLVMIntPredicate::LLVMIntULT, next, n);
    fb.cond_br(more, body, done);
    // Down from the last element (d below s).
    fb.position_at_end(down);
    let left = fb.phi(i64t, "left");
    let j = fb.sub(left.into(), one);
    step(j);
    left.add_incoming(n, pick);
    left.add_incoming(j, down);
    let more = fb.icmp(LLVMIntPredicate::LLVMIntNE, j, zero);
    fb.cond_br(more, down, done);
    fb.position_at_end(done);
    fb.ret(None);
    f
}

/// A new thread-local `{ptr, i64}` (zero): where one cache allocation site
/// keeps its block between calls of the derivative (`cache_take`,
/// `cache_give`), so that a gradient called again reuses the memory its
/// previous call cached in instead of getting fresh pages from the system
/// (for large caches, page faults on fresh memory were a quarter of the
/// gradient's time).
pub(crate) fn spare_block<'m>(b: &Builder<'m>, name: &str) -> Global<'m> {
    let ctx = b.ctx();
    let module = b.insert_block().parent().global_parent();
    let ty = Ty::literal_struct(ctx, &[Ty::ptr(ctx), Ty::int(ctx, 64)]);
    let g = add_internal_global(module, name, ty, 0, b.zero(ty), 8);
    g.set_thread_local();
    g
}

/// `__enz_cache_bytes`, a thread-local count of the bytes the loop caches
/// of derivatives have asked for (added to by `__enz_cache_take` and by
/// the growth of a doubling buffer, never decreased): a checkpointed loop
/// measures an iteration's caches by its difference.
pub(crate) fn cache_bytes<'m>(b: &Builder<'m>) -> Value<'m> {
    let module = b.insert_block().parent().global_parent();
    if let Some(g) = crate::ir::named_global(module, CACHE_BYTES) {
        return g.as_value();
    }
    let i64t = Ty::int(b.ctx(), 64);
    let g = add_internal_global(module, CACHE_BYTES, i64t, 0, b.const_int(i64t, 0), 8);
    g.set_thread_local();
    g.as_value()
}

/// Adds `bytes` to [`cache_bytes`]'s counter.
pub(crate) fn count_cache_bytes<'m>(b: &Builder<'m>, bytes: Value<'m>) {
    let counter = cache_bytes(b);
    let i64t = Ty::int(b.ctx(), 64);
    let now = b.load(i64t, counter);
    b.store(b.add(now, bytes), counter);
}

/// Calls `__enz_cache_take(spare, bytes)`: a block of at least `bytes`
/// bytes: the spare block when it is large enough (the spare is then
/// empty), else a new one from `malloc`.
pub(crate) fn cache_take<'m>(b: &Builder<'m>, spare: Value<'m>, bytes: Value<'m>) -> Value<'m> {
    let ctx = b.ctx();
    let module = b.insert_block().parent().global_parent();
    let ptr = Ty::ptr(ctx);
    let i64t = Ty::int(ctx, 64);
    let fty = Ty::function(ptr, &[ptr, i64t], false);
    let f = match named_function(module, CACHE_TAKE) {
        Some(f) => f,
        None => {
            let f = add_internal_function(module, CACHE_TAKE, fty);
            // Like malloc's, the block is reachable from nowhere else (the
            // spare is emptied when taken): callers' alias analysis relies
            // on it, which an inlined body would hide.
            f.add_return_attribute("noalias");
            f.add_function_attribute("noinline");
            let ps = f.params();
            let (spare, bytes) = (ps[0], ps[1]);
            let entry = f.append_block("entry");
            let reuse = f.append_block("reuse");
            let fresh = f.append_block("fresh");
            let fb = Builder::new(ctx);
            fb.position_at_end(entry);
            count_cache_bytes(&fb, bytes);
            let kept = fb.load(ptr, spare);
            let kept_bytes = fb.load(i64t, fb.byte_gep(spare, 8));
            let some = fb.icmp(LLVMIntPredicate::LLVMIntNE, kept, fb.zero(ptr));
            let big = fb.icmp(LLVMIntPredicate::LLVMIntUGE, kept_bytes, bytes);
            let i1 = Ty::int(ctx, 1);
            let fits = fb.select(some, big, fb.const_int(i1, 0));
            fb.cond_br(fits, reuse, fresh);
            fb.position_at_end(reuse);
            fb.store(fb.zero(ptr), spare);
            fb.store(fb.const_int(i64t, 0), fb.byte_gep(spare, 8));
            fb.ret(Some(kept));
            // A failed allocation returns null, as malloc does: a nest a
            // guard skips may have a bound computed from a limit it never
            // reaches, and then nothing is stored.
            fb.position_at_end(fresh);
            let new = fb.malloc(bytes);
            fb.ret(Some(new.as_value()));
            f
        }
    };
    b.call(fty, f, &[spare, bytes]).as_value()
}

/// Calls `__enz_cache_give(data, bytes, spare)`: the block `data` (of at
/// least `bytes` bytes, or null) becomes the spare block when there is
/// none or it is larger than the one kept (which is freed); otherwise it
/// is freed. At most one block per allocation site and thread stays
/// allocated between calls.
///
/// A derivative differentiated again (a derivative of higher order) sees
/// these two as an allocation (`__enz_cache_take`, size argument 1) and a
/// `free` (`__enz_cache_give`, pointer first): `names::memory`.
pub(crate) fn cache_give<'m>(b: &Builder<'m>, spare: Value<'m>, data: Value<'m>, bytes: Value<'m>) {
    let ctx = b.ctx();
    let module = b.insert_block().parent().global_parent();
    let ptr = Ty::ptr(ctx);
    let i64t = Ty::int(ctx, 64);
    let fty = Ty::function(Ty::void(ctx), &[ptr, i64t, ptr], false);
    let f = match named_function(module, CACHE_GIVE) {
        Some(f) => f,
        None => {
            let f = add_internal_function(module, CACHE_GIVE, fty);
            let ps = f.params();
            let (data, bytes, spare) = (ps[0], ps[1], ps[2]);
            let entry = f.append_block("entry");
            let keep = f.append_block("keep");
            let drop = f.append_block("drop");
            let fb = Builder::new(ctx);
            fb.position_at_end(entry);
            let kept = fb.load(ptr, spare);
            let kept_bytes = fb.load(i64t, fb.byte_gep(spare, 8));
            let none = fb.icmp(LLVMIntPredicate::LLVMIntEQ, kept, fb.zero(ptr));
            let larger = fb.icmp(LLVMIntPredicate::LLVMIntUGT, bytes, kept_bytes);
            let i1 = Ty::int(ctx, 1);
            let take = fb.select(none, fb.const_int(i1, 1), larger);
            fb.cond_br(take, keep, drop);
            fb.position_at_end(keep);
            fb.free(kept);
            fb.store(data, spare);
            fb.store(bytes, fb.byte_gep(spare, 8));
            fb.ret(None);
            fb.position_at_end(drop);
            fb.free(data);
            fb.ret(None);
            f
        }
    };
    b.call(fty, f, &[data, bytes, spare]);
}

/// `ψ(x)`, the digamma function (the derivative of `lgamma`), computed
/// in double by `__enz_digamma(x)`: below 1/2 by reflection, `ψ(x) =
/// ψ(1 - x) - π / tan(π x)`; then `ψ(x) = ψ(x + 1) - 1/x` up to x ≥ 6,
/// where the asymptotic series `ln x - 1/(2x) - Σ B_2k / (2k x^2k)`
/// (through x^-12) is accurate to about 1e-13. A float `x` is widened and
/// the result narrowed.
pub(crate) fn digamma<'m>(b: &Builder<'m>, x: Value<'m>) -> Value<'m> {
    let ctx = b.ctx();
    let f64t = Ty::double(ctx);
    let f = digamma_fn(b);
    let wide = b.fp_cast(x, f64t);
    let fty = Ty::function(f64t, &[f64t], false);
    let r = b.call(fty, f, &[wide]).as_value();
    b.fp_cast(r, x.ty())
}

fn digamma_fn<'m>(b: &Builder<'m>) -> Function<'m> {
    let ctx = b.ctx();
    let module = b.insert_block().parent().global_parent();
    if let Some(existing) = named_function(module, DIGAMMA) {
        return existing;
    }
    let t = Ty::double(ctx);
    let f = add_internal_function(module, DIGAMMA, Ty::function(t, &[t], false));
    let x0 = f.params()[0];
    let entry = f.append_block("entry");
    let reflect = f.append_block("reflect");
    let shift = f.append_block("shift");
    let series = f.append_block("series");
    let fb = Builder::new(ctx);
    let c = |v: f64| fb.const_float(t, v);
    fb.position_at_end(entry);
    let small = fb.fcmp(LLVMRealPredicate::LLVMRealOLT, x0, c(0.5));
    fb.cond_br(small, reflect, shift);
    // x < 1/2: start from 1 - x with the reflection term.
    fb.position_at_end(reflect);
    let pi = std::f64::consts::PI;
    let tan = fb.call_intrinsic("llvm.tan", &[t], &[fb.fmul(c(pi), x0)]);
    let refl = fb.fsub(c(0.0), fb.fdiv(c(pi), tan.as_value()));
    let flipped = fb.fsub(c(1.0), x0);
    fb.br(shift);
    // Up to x >= 6, subtracting 1/x each step.
    fb.position_at_end(shift);
    let x = fb.phi(t, "x");
    let acc = fb.phi(t, "acc");
    x.add_incoming(x0, entry);
    x.add_incoming(flipped, reflect);
    acc.add_incoming(c(0.0), entry);
    acc.add_incoming(refl, reflect);
    let low = fb.fcmp(LLVMRealPredicate::LLVMRealOLT, x.as_value(), c(6.0));
    let stepped = fb.fsub(acc.as_value(), fb.fdiv(c(1.0), x.as_value()));
    let next = fb.fadd(x.as_value(), c(1.0));
    x.add_incoming(next, shift);
    acc.add_incoming(stepped, shift);
    fb.cond_br(low, shift, series);
    fb.position_at_end(series);
    let (xv, av) = (x.as_value(), acc.as_value());
    let inv2 = fb.fdiv(c(1.0), fb.fmul(xv, xv));
    // 1/12 - f (1/120 - f (1/252 - f (1/240 - f (1/132 - f 691/32760))))
    let mut poly = c(691.0 / 32760.0);
    for k in [
        1.0 / 132.0,
        1.0 / 240.0,
        1.0 / 252.0,
        1.0 / 120.0,
        1.0 / 12.0,
    ] {
        poly = fb.fsub(c(k), fb.fmul(inv2, poly));
    }
    let ln = fb.call_intrinsic("llvm.log", &[t], &[xv]).as_value();
    let half = fb.fdiv(c(0.5), xv);
    let asym = fb.fsub(fb.fsub(ln, half), fb.fmul(inv2, poly));
    fb.ret(Some(fb.fadd(av, asym)));
    f
}

/// Calls `__enz_thread_cache_check(ok)`, which traps (`llvm.trap`) unless
/// `ok`: a GPU loop whose per-thread caches do not fit and cannot be
/// recomputed (`reverse/thread_cache.rs`). Always inlined.
pub(crate) fn trap_unless<'m>(b: &Builder<'m>, ok: Value<'m>) {
    let ctx = b.ctx();
    let module = b.insert_block().parent().global_parent();
    let fty = Ty::function(Ty::void(ctx), &[Ty::int(ctx, 1)], false);
    let f = named_function(module, THREAD_CACHE_CHECK).unwrap_or_else(|| {
        let f = add_internal_function(module, THREAD_CACHE_CHECK, fty);
        f.add_function_attribute("alwaysinline");
        let entry = f.append_block("entry");
        let fail = f.append_block("fail");
        let done = f.append_block("done");
        let fb = Builder::new(ctx);
        fb.position_at_end(entry);
        fb.cond_br(f.params()[0], done, fail);
        fb.position_at_end(fail);
        fb.call_intrinsic("llvm.trap", &[], &[]);
        fb.unreachable();
        fb.position_at_end(done);
        fb.ret(None);
        f
    });
    b.call(fty, f.as_value(), &[ok]);
}

/// Calls `__enz_budget_exceeded(over, msg, len, flag)`: when `over`, writes
/// `msg` (one line of `len` bytes, made by [`budget_message`]) to stderr, once per process (the byte at `flag`), unless
/// `ENZ_RS_QUIET_BUDGET` is set in the environment. Emitted at the end of
/// the forward sweep of a gradient whose function has loops an explicit
/// `--cache-budget` could not bound, `over` saying that this call's caches
/// passed it.
pub(crate) fn report_budget_exceeded<'m>(
    b: &Builder<'m>,
    over: Value<'m>,
    (msg, len): (Value<'m>, usize),
    flag: Value<'m>,
) {
    use crate::names::{BUDGET_EXCEEDED, GETENV, QUIET_BUDGET_ENV, QUIET_BUDGET_ENV_GLOBAL, WRITE};
    let ctx = b.ctx();
    let module = b.insert_block().parent().global_parent();
    let (i1, i8t, i32t, i64t, ptr) = (
        Ty::int(ctx, 1),
        Ty::int(ctx, 8),
        Ty::int(ctx, 32),
        Ty::int(ctx, 64),
        Ty::ptr(ctx),
    );
    let fty = Ty::function(Ty::void(ctx), &[i1, ptr, i64t, ptr], false);
    let f = named_function(module, BUDGET_EXCEEDED).unwrap_or_else(|| {
        let f = add_internal_function(module, BUDGET_EXCEEDED, fty);
        f.add_function_attribute("noinline");
        let p = f.params();
        let entry = f.append_block("entry");
        let first = f.append_block("first");
        let write = f.append_block("write");
        let done = f.append_block("done");
        let fb = Builder::new(ctx);
        fb.position_at_end(entry);
        let unseen = fb.icmp(
            crate::ir::LLVMIntPredicate::LLVMIntEQ,
            fb.load(i8t, p[3]),
            fb.const_int(i8t, 0),
        );
        let go = fb.and(p[0], unseen);
        fb.cond_br(go, first, done);
        fb.position_at_end(first);
        fb.store(fb.const_int(i8t, 1), p[3]);
        let name = fb.global_string(QUIET_BUDGET_ENV, QUIET_BUDGET_ENV_GLOBAL);
        let env = fb.call_named(GETENV, Ty::function(ptr, &[ptr], false), &[name]);
        let quiet = fb.icmp(
            crate::ir::LLVMIntPredicate::LLVMIntNE,
            env.as_value(),
            fb.zero(ptr),
        );
        fb.cond_br(quiet, done, write);
        fb.position_at_end(write);
        let wty = Ty::function(i64t, &[i32t, ptr, i64t], false);
        fb.call_named(WRITE, wty, &[fb.const_int(i32t, 2), p[1], p[2]]);
        fb.br(done);
        fb.position_at_end(done);
        fb.ret(None);
        f
    });
    b.call(
        fty,
        f.as_value(),
        &[over, msg, b.const_int(i64t, len as i64), flag],
    );
}

/// The line [`report_budget_exceeded`] writes, as a constant of the
/// module, and its length.
pub(crate) fn budget_message<'m>(b: &Builder<'m>, msg: &str) -> (Value<'m>, usize) {
    (
        b.global_string(msg, crate::names::BUDGET_MESSAGE_GLOBAL),
        msg.len(),
    )
}

/// Calls `__enz_null_global_shadow(primal, shadow, msg, len)` (see
/// [`crate::names::NULL_GLOBAL_SHADOW`]) for the pointer `primal` read from
/// global `global` and its shadow `shadow`.
pub(crate) fn check_global_shadow<'m>(
    b: &Builder<'m>,
    primal: Value<'m>,
    shadow: Value<'m>,
    global: &str,
) {
    use crate::ir::LLVMIntPredicate::{LLVMIntEQ, LLVMIntNE};
    use crate::names::{NULL_GLOBAL_SHADOW, NULL_SHADOW_MESSAGE_GLOBAL, WRITE};
    let ctx = b.ctx();
    let module = b.insert_block().parent().global_parent();
    let (i32t, i64t, ptr) = (Ty::int(ctx, 32), Ty::int(ctx, 64), Ty::ptr(ctx));
    let fty = Ty::function(Ty::void(ctx), &[ptr, ptr, ptr, i64t], false);
    let f = named_function(module, NULL_GLOBAL_SHADOW).unwrap_or_else(|| {
        let f = add_internal_function(module, NULL_GLOBAL_SHADOW, fty);
        let p = f.params();
        let entry = f.append_block("entry");
        let fail = f.append_block("fail");
        let done = f.append_block("done");
        let fb = Builder::new(ctx);
        fb.position_at_end(entry);
        let set = fb.icmp(LLVMIntNE, p[0], fb.zero(ptr));
        let missing = fb.icmp(LLVMIntEQ, p[1], fb.zero(ptr));
        fb.cond_br(fb.and(set, missing), fail, done);
        fb.position_at_end(fail);
        let wty = Ty::function(i64t, &[i32t, ptr, i64t], false);
        fb.call_named(WRITE, wty, &[fb.const_int(i32t, 2), p[2], p[3]]);
        fb.call_intrinsic("llvm.trap", &[], &[]);
        fb.unreachable();
        fb.position_at_end(done);
        fb.ret(None);
        f
    });
    let msg = format!(
        "enz-rs: a derivative reads through the pointer held in the global `{global}`, which points to memory with no shadow (set outside differentiated code); give that memory a shadow (pass it as an argument with enzyme_dup, or set the global's shadow in a context: __enzyme_shadow)\n"
    );
    let text = b.global_string(&msg, NULL_SHADOW_MESSAGE_GLOBAL);
    let len = b.const_int(i64t, msg.len() as i64);
    b.call(fty, f.as_value(), &[primal, shadow, text, len]);
}
