//! OpenMP parallel regions in derivatives. Clang's `-fopenmp` makes a
//! `#pragma omp parallel` a call `__kmpc_fork_call(loc, argc, microtask,
//! args...)`: the runtime runs `microtask(&gtid, &btid, args...)` on every
//! thread of a new team. The derivative of a region is a region again:
//!
//! - Forward mode: the microtask's forward derivative is itself a
//!   microtask (`&gtid, &btid`, then the arguments, each shadowed one
//!   followed by its shadows), forked with the same location.
//! - Reverse mode: the forward sweep forks a wrapper of the microtask's
//!   augmented primal, which stores each thread's tape in a table at its
//!   number in the team (slot 0: the team's size); the reverse sweep forks,
//!   asking for a team of that size, a wrapper of the reverse function,
//!   which runs the reverse of each tape whose number it takes (thread `t`
//!   of `n` takes `t, t + n, ...`: its own when the runtime gives the team
//!   the size asked for), then frees the table. Adjoints the threads add
//!   to shadow memory they may share are added atomically
//!   (`reverse/memory.rs`, [`runs_in_team`]).
//!
//! The fork passes its arguments as pointer-sized values; a microtask
//! derivative with another parameter type (a float passed by value) is
//! refused.

use crate::analysis::calls::team_microtask;
use crate::ir::{
    add_internal_function, named_function, Builder, Function, Inst, LLVMIntPredicate, Ty, TyKind,
    Value,
};
use crate::names::{
    team_wrapper_name, GLOBAL_THREAD_NUM, MAX_THREADS, NUM_THREADS, PUSH_NUM_THREADS, THREAD_NUM,
};

/// Whether `f` is the microtask of an OpenMP fork somewhere in its module:
/// its derivative runs on every thread of a team.
pub(crate) fn runs_in_team(f: Function<'_>) -> bool {
    f.users().into_iter().any(|u| team_microtask(u) == Some(f))
}

/// The activities of the microtask that fork call `i` runs, for its
/// derivative: its two thread-id pointers constant, then per forked value
/// `Dup` for a pointer with a shadow, `Const` otherwise; `None` when
/// nothing is forked that carries derivatives (the fork needs none); an
/// error when an active float is forked by value (clang forks shared
/// variables by pointer; enz-rs forks only pointers' shadows).
pub(crate) fn team_activities(
    i: Inst<'_>,
    act: &crate::analysis::activity::Activity<'_>,
) -> Result<Option<Vec<crate::signature::ArgActivity>>, &'static str> {
    use crate::signature::ArgActivity;
    let mut acts = vec![ArgActivity::Const, ArgActivity::Const];
    for k in 3..i.call_num_args() {
        let a = i.operand(k);
        if a.ty().kind() == TyKind::Pointer && act.is_shadowed(a) {
            acts.push(ArgActivity::Dup);
        } else if a.ty().carries_float() && act.is_active(a) {
            return Err("this parallel region receives an active floating-point value by value; enz-rs forks pointers only: make the variable shared");
        } else {
            acts.push(ArgActivity::Const);
        }
    }
    Ok(acts
        .iter()
        .any(|a| *a != ArgActivity::Const)
        .then_some(acts))
}

/// Whether type `t` may pass through the fork's variable arguments
/// (pointer-sized: a pointer or a 64-bit integer).
fn pointer_sized(t: Ty<'_>) -> bool {
    t.kind() == TyKind::Pointer || t.int_width() == Some(64)
}

/// Checks that derivative `f` can be forked (directly, or by a wrapper
/// when `wrapped`, which may take a returned tape): it takes `&gtid,
/// &btid` and then pointer-sized values only, and returns nothing. The
/// error says what cannot.
pub(crate) fn check_microtask_derivative(f: Function<'_>, wrapped: bool) -> Result<(), String> {
    let fty = f.function_type();
    if !wrapped && !fty.return_type().is_void() {
        return Err(format!(
            "its derivative `{}` returns a value, which a parallel region cannot",
            f.name()
        ));
    }
    for (k, p) in f.params().iter().enumerate() {
        if !pointer_sized(p.ty()) {
            return Err(format!(
                "argument {k} of its derivative `{}` is not pointer-sized (a float passed by value: firstprivate or a copied scalar); enz-rs forks pointers and 64-bit integers only: share the variable, or copy it inside the region",
                f.name()
            ));
        }
    }
    Ok(())
}

/// Forks `microtask` (a derivative taking `&gtid, &btid` first) at `b`
/// with the location of `fork` (the primal's fork call) and `args` (the
/// microtask's arguments after the first two).
pub(crate) fn fork<'m>(
    b: &Builder<'m>,
    fork: Inst<'m>,
    loc: Value<'m>,
    microtask: Function<'m>,
    args: &[Value<'m>],
) -> Inst<'m> {
    let callee = fork.called_value().expect("a fork call");
    let mut all = vec![loc, b.i32(args.len() as i64), microtask.as_value()];
    all.extend_from_slice(args);
    b.call(fork.call_function_type(), callee, &all)
}

fn i32_call<'m>(b: &Builder<'m>, name: &str, args: &[Value<'m>]) -> Value<'m> {
    let ctx = b.ctx();
    let params: Vec<Ty> = args.iter().map(|a| a.ty()).collect();
    let fty = Ty::function(Ty::int(ctx, 32), &params, false);
    b.call_named(name, fty, args).as_value()
}

/// The forward sweep's fork of the augmented microtask `aug` (signature
/// type `aug_ty`, its tape in field `tape_field` of what it returns, or
/// its whole result when that is not a struct): allocates the table of
/// tapes (one slot per thread the next team may have, after the size) and
/// forks the wrapper. Returns the table.
pub(crate) fn fork_augmented<'m>(
    b: &Builder<'m>,
    primal_fork: Inst<'m>,
    loc: Value<'m>,
    aug: Function<'m>,
    tape_field: u32,
    args: &[Value<'m>],
) -> Value<'m> {
    let ctx = b.ctx();
    let i64t = Ty::int(ctx, 64);
    let wrapper = augmented_wrapper(b, aug, tape_field);
    let most = i32_call(b, MAX_THREADS, &[]);
    let most = match pushed_team_size(primal_fork) {
        // `num_threads(n)`: the team may be larger than the default.
        Some(n) => {
            let larger = b.icmp(LLVMIntPredicate::LLVMIntSGT, n, most);
            b.select(larger, n, most)
        }
        None => most,
    };
    let slots = b.add(b.int_cast(most, i64t), b.const_int(i64t, 1));
    let table = b.malloc(b.mul(slots, b.const_int(i64t, 8))).as_value();
    let mut all = args.to_vec();
    all.push(table);
    fork(b, primal_fork, loc, wrapper, &all);
    table
}

/// The team size a `__kmpc_push_num_threads(loc, gtid, n)` just before
/// `fork` (in its block) asks for.
fn pushed_team_size<'m>(fork: Inst<'m>) -> Option<Value<'m>> {
    let insts = fork.parent_block().instructions();
    let at = insts.iter().position(|i| *i == fork)?;
    for i in insts[..at].iter().rev() {
        if let Some(f) = i.called_function() {
            if f.name() == PUSH_NUM_THREADS && i.call_num_args() == 3 {
                return Some(i.operand(2));
            }
            if !f.name().starts_with("llvm.") {
                return None;
            }
        }
    }
    None
}

/// The reverse sweep's fork of reverse microtask `rev` (its tape last):
/// asks for a team of the forward team's size, forks the wrapper with
/// `args` (the reverse function's arguments after `&gtid, &btid` and
/// before the tape) and the table, then frees the table.
pub(crate) fn fork_reverse<'m>(
    b: &Builder<'m>,
    primal_fork: Inst<'m>,
    loc: Value<'m>,
    rev: Function<'m>,
    args: &[Value<'m>],
    table: Value<'m>,
) {
    let ctx = b.ctx();
    let wrapper = reverse_wrapper(b, rev);
    let size = b.load(Ty::int(ctx, 64), table);
    let size = b.int_cast(size, Ty::int(ctx, 32));
    let gtid = i32_call(b, GLOBAL_THREAD_NUM, &[loc]);
    let fty = Ty::function(
        Ty::void(ctx),
        &[Ty::ptr(ctx), Ty::int(ctx, 32), Ty::int(ctx, 32)],
        false,
    );
    b.call_named(PUSH_NUM_THREADS, fty, &[loc, gtid, size]);
    let mut all = args.to_vec();
    all.push(table);
    fork(b, primal_fork, loc, wrapper, &all);
    b.free(table);
}

/// `aug.omp_team(&gtid, &btid, args..., table)`: runs `aug` and stores its
/// tape at the thread's number + 1 in `table`; thread 0 stores the team's
/// size in slot 0.
fn augmented_wrapper<'m>(b: &Builder<'m>, aug: Function<'m>, tape_field: u32) -> Function<'m> {
    let ctx = b.ctx();
    let (ptr, i64t) = (Ty::ptr(ctx), Ty::int(ctx, 64));
    // aug's parameters, then the table.
    let f = match wrapper(b, aug, true) {
        Wrapper::Existing(f) => return f,
        Wrapper::New(f) => f,
    };
    let aug_ty = aug.function_type();
    let ps = f.params();
    let table = ps[ps.len() - 1];
    let fb = Builder::new(ctx);
    let entry = f.append_block("entry");
    let first = f.append_block("first");
    let done = f.append_block("done");
    fb.position_at_end(entry);
    let fwd_args: Vec<Value> = ps[..ps.len() - 1].to_vec();
    let res = fb.call(aug_ty, aug.as_value(), &fwd_args).as_value();
    let tape = if aug_ty.return_type().kind() == TyKind::Struct {
        fb.extract_value(res, tape_field)
    } else {
        res
    };
    let t = i32_call(&fb, THREAD_NUM, &[]);
    let slot = fb.add(fb.int_cast(t, i64t), fb.const_int(i64t, 1));
    fb.store(tape, fb.gep(ptr, table, &[slot]));
    let is_first = fb.icmp(LLVMIntPredicate::LLVMIntEQ, t, fb.i32(0));
    fb.cond_br(is_first, first, done);
    fb.position_at_end(first);
    let n = i32_call(&fb, NUM_THREADS, &[]);
    fb.store(fb.int_cast(n, i64t), table);
    fb.br(done);
    fb.position_at_end(done);
    fb.ret(None);
    f
}

/// A microtask wrapping derivative `of` (its name [`team_wrapper_name`]):
/// the one the module has, or a new one without a body, taking `of`'s
/// parameters and, with `table_after`, a pointer after them.
enum Wrapper<'m> {
    Existing(Function<'m>),
    New(Function<'m>),
}

fn wrapper<'m>(b: &Builder<'m>, of: Function<'m>, table_after: bool) -> Wrapper<'m> {
    let module = b.insert_block().parent().global_parent();
    let name = team_wrapper_name(&of.name());
    if let Some(f) = named_function(module, &name) {
        return Wrapper::Existing(f);
    }
    let ctx = b.ctx();
    let mut params: Vec<Ty> = of.params().iter().map(|p| p.ty()).collect();
    if table_after {
        params.push(Ty::ptr(ctx));
    }
    Wrapper::New(add_internal_function(
        module,
        &name,
        Ty::function(Ty::void(ctx), &params, false),
    ))
}

/// `rev.omp_team(&gtid, &btid, args..., table)`: thread `t` of `n` runs
/// `rev(&gtid, &btid, args..., table[1 + k])` for `k = t, t + n, ...`
/// below the forward team's size.
fn reverse_wrapper<'m>(b: &Builder<'m>, rev: Function<'m>) -> Function<'m> {
    // rev's parameters, the table in place of its tape.
    let f = match wrapper(b, rev, false) {
        Wrapper::Existing(f) => return f,
        Wrapper::New(f) => f,
    };
    let ctx = b.ctx();
    let (ptr, i32t) = (Ty::ptr(ctx), Ty::int(ctx, 32));
    let rev_ty = rev.function_type();
    let ps = f.params();
    let table = ps[ps.len() - 1];
    let fb = Builder::new(ctx);
    let entry = f.append_block("entry");
    let check = f.append_block("check");
    let body = f.append_block("body");
    let done = f.append_block("done");
    fb.position_at_end(entry);
    let size = fb.int_cast(fb.load(Ty::int(ctx, 64), table), i32t);
    let n = i32_call(&fb, NUM_THREADS, &[]);
    let t0 = i32_call(&fb, THREAD_NUM, &[]);
    fb.br(check);
    fb.position_at_end(check);
    let t = fb.phi(i32t, "tape_number");
    let more = fb.icmp(LLVMIntPredicate::LLVMIntSLT, t.as_value(), size);
    fb.cond_br(more, body, done);
    fb.position_at_end(body);
    let slot = fb.add(t.as_value(), fb.i32(1));
    let tape = fb.load(ptr, fb.gep(ptr, table, &[slot]));
    let mut args: Vec<Value> = ps[..ps.len() - 1].to_vec();
    args.push(tape);
    fb.call(rev_ty, rev.as_value(), &args);
    let next = fb.add(t.as_value(), n);
    fb.br(check);
    t.add_incoming(t0, entry);
    t.add_incoming(next, body);
    fb.position_at_end(done);
    fb.ret(None);
    f
}

/// Entries of a thread's table of partial sums of a combined object's
/// adjoints (`reverse/team.rs`): direct-mapped by element index.
pub(crate) const COMBINE_SLOTS: u64 = 2048;

/// Calls `__enz_combine_add_<ty>(values, tags, i, shadow, v)` (emitted
/// once per type, always inlined): the table's slot `i mod SLOTS` sums
/// element `i`'s adjoints; a slot holding another element first adds its
/// sum to that element's shadow atomically. A tag is the element index
/// with its top bit flipped, so that 0 (the zeroed table) is empty.
pub(crate) fn combine_add<'m>(
    b: &Builder<'m>,
    values: Value<'m>,
    tags: Value<'m>,
    index: Value<'m>,
    shadow: Value<'m>,
    v: Value<'m>,
) {
    use crate::names::COMBINE_ADD_PREFIX;
    let ctx = b.ctx();
    let ty = v.ty();
    let (ptr, i64t) = (Ty::ptr(ctx), Ty::int(ctx, 64));
    let fty = Ty::function(Ty::void(ctx), &[ptr, ptr, i64t, ptr, ty], false);
    let module = b.insert_block().parent().global_parent();
    let name = format!("{COMBINE_ADD_PREFIX}{}", ty_suffix(ty));
    let f = match named_function(module, &name) {
        Some(f) => f,
        None => {
            use LLVMIntPredicate::*;
            let f = add_internal_function(module, &name, fty);
            f.add_function_attribute("alwaysinline");
            let ps = f.params();
            let (values, tags, i, shadow, v) = (ps[0], ps[1], ps[2], ps[3], ps[4]);
            let fb = Builder::new(ctx);
            let entry = f.append_block("entry");
            let hit = f.append_block("hit");
            let miss = f.append_block("miss");
            let evict = f.append_block("evict");
            let fill = f.append_block("fill");
            fb.position_at_end(entry);
            let slot = fb.and(i, fb.const_int(i64t, COMBINE_SLOTS as i64 - 1));
            let top = fb.const_int(i64t, i64::MIN);
            let tag = fb.xor(i, top);
            let tp = fb.gep(i64t, tags, &[slot]);
            let vp = fb.gep(ty, values, &[slot]);
            let old = fb.load(i64t, tp);
            let same = fb.icmp(LLVMIntEQ, old, tag);
            fb.cond_br(same, hit, miss);
            fb.position_at_end(hit);
            let sum = fb.fadd(fb.load(ty, vp), v);
            fb.store(sum, vp);
            fb.ret(None);
            fb.position_at_end(miss);
            let empty = fb.icmp(LLVMIntEQ, old, fb.const_int(i64t, 0));
            fb.cond_br(empty, fill, evict);
            fb.position_at_end(evict);
            let at = fb.gep(ty, shadow, &[fb.xor(old, top)]);
            fb.atomic_fadd(at, fb.load(ty, vp));
            fb.br(fill);
            fb.position_at_end(fill);
            fb.store(tag, tp);
            fb.store(v, vp);
            fb.ret(None);
            f
        }
    };
    b.call(fty, f.as_value(), &[values, tags, index, shadow, v]);
}

/// Calls `__enz_combine_flush_<ty>(values, tags, shadow)`: every entry of
/// the table added to its element's shadow, atomically.
pub(crate) fn combine_flush<'m>(
    b: &Builder<'m>,
    ty: Ty<'m>,
    values: Value<'m>,
    tags: Value<'m>,
    shadow: Value<'m>,
) {
    use crate::names::COMBINE_FLUSH_PREFIX;
    let ctx = b.ctx();
    let (ptr, i64t) = (Ty::ptr(ctx), Ty::int(ctx, 64));
    let fty = Ty::function(Ty::void(ctx), &[ptr, ptr, ptr], false);
    let module = b.insert_block().parent().global_parent();
    let name = format!("{COMBINE_FLUSH_PREFIX}{}", ty_suffix(ty));
    let f = match named_function(module, &name) {
        Some(f) => f,
        None => {
            use LLVMIntPredicate::*;
            let f = add_internal_function(module, &name, fty);
            let ps = f.params();
            let (values, tags, shadow) = (ps[0], ps[1], ps[2]);
            let fb = Builder::new(ctx);
            let entry = f.append_block("entry");
            let head = f.append_block("slot");
            let add = f.append_block("add");
            let next = f.append_block("next");
            let done = f.append_block("done");
            fb.position_at_end(entry);
            fb.br(head);
            fb.position_at_end(head);
            let k = fb.phi(i64t, "k");
            let tag = fb.load(i64t, fb.gep(i64t, tags, &[k.as_value()]));
            let full = fb.icmp(LLVMIntNE, tag, fb.const_int(i64t, 0));
            fb.cond_br(full, add, next);
            fb.position_at_end(add);
            let i = fb.xor(tag, fb.const_int(i64t, i64::MIN));
            let v = fb.load(ty, fb.gep(ty, values, &[k.as_value()]));
            fb.atomic_fadd(fb.gep(ty, shadow, &[i]), v);
            fb.br(next);
            fb.position_at_end(next);
            let k1 = fb.add(k.as_value(), fb.const_int(i64t, 1));
            let more = fb.icmp(LLVMIntULT, k1, fb.const_int(i64t, COMBINE_SLOTS as i64));
            fb.cond_br(more, head, done);
            k.add_incoming(fb.const_int(i64t, 0), entry);
            k.add_incoming(k1, next);
            fb.position_at_end(done);
            fb.ret(None);
            f
        }
    };
    b.call(fty, f.as_value(), &[values, tags, shadow]);
}

/// `f64`, `f32`...: a float type's name in a helper's.
fn ty_suffix(ty: Ty<'_>) -> String {
    match ty.kind() {
        TyKind::Double => "f64".to_string(),
        TyKind::Float => "f32".to_string(),
        TyKind::Half => "f16".to_string(),
        _ => format!("{ty}").replace(|c: char| !c.is_ascii_alphanumeric(), "_"),
    }
}
