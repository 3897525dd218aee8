//! Recomputing a GPU loop whose per-thread caches do not fit
//! (`thread_cache.rs`): whether the loop can run again, and the functions
//! that do it.
//!
//! ```text
//!   replay(env, in, end, out)   the forward sweep's loop, cloned: from the
//!                               header-phi state `in` until the iteration
//!                               `end` starts (its state to `out`) or the
//!                               loop exits; stores the iterations that
//!                               fall in the window
//!   sched(env, j)               reverse iteration j is below the window:
//!                               bisect from the top saved state until the
//!                               iterations up to the window's old start fit
//!                               in it, saving each midpoint's state; record
//!   ensure(env, j)              j < lo ? sched(env, j) : nothing  (inlined
//!                               where each reverse iteration starts)
//! ```
//!
//! `env` is a struct on the gradient's stack: the window's slots, then
//! every value the loop uses from before it, stored where it is defined.

use super::thread_cache::{Arena, Window, NO_WINDOW, STACK_DEPTH};
use super::Reverse;
use crate::analysis::gpu::root_object;
use crate::analysis::loops::LoopId;
use crate::analysis::outlining::is_pure_call;
use crate::analysis::writes::{written_by, Written};
use crate::ir::LLVMIntPredicate;
use crate::ir::{add_internal_function, Block, Builder, Function, Inst, LLVMOpcode, Ty, Value};
use crate::synth::runtime::trap_unless;
use crate::transform::loop_clone::clone_blocks;
use std::collections::{HashMap, HashSet};

impl<'m, 'a> Reverse<'m, 'a> {
    /// Why loop `l`, whose forward sweep's copy is `fl`,
    /// cannot simply run again in the reverse sweep, if it cannot: it
    /// writes memory or calls what is not pure (`analysis::writes`,
    /// `analysis::outlining`), or reads memory that may be written after
    /// the read (not re-readable: a second run could read other values).
    pub(super) fn replay_blocker(&self, l: LoopId, fl: &ForwardLoop<'m>) -> Option<String> {
        let lp = self.facts.loops.get(l);
        let kinds = &self.facts.call_kinds;
        // The forward clones of the primal's loads and calls that may run
        // again.
        let mut again = HashSet::new();
        for b in &lp.ordered {
            for i in b.instructions() {
                let v = i.as_value();
                if !matches!(written_by(i, || kinds.get(v)), Written::Nothing)
                    || i.opcode() == Some(LLVMOpcode::LLVMFence)
                {
                    return Some("it writes memory".into());
                }
                match i.opcode() {
                    Some(LLVMOpcode::LLVMAlloca) => {
                        return Some("it allocates stack memory".into())
                    }
                    Some(LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke)
                        if !is_pure_call(i, kinds.get(v)) =>
                    {
                        let name = i
                            .called_function()
                            .map(|f| f.name())
                            .unwrap_or_else(|| "a function pointer".into());
                        return Some(format!("it calls `{name}`"));
                    }
                    Some(LLVMOpcode::LLVMLoad) if !self.facts.rereadable.contains(v) => {
                        return Some("it reads memory the function may write after it".into())
                    }
                    Some(LLVMOpcode::LLVMLoad | LLVMOpcode::LLVMCall) => {
                        again.insert(self.map.get(v));
                    }
                    _ => {}
                }
            }
        }
        // What the forward sweep added to the loop: only the window's
        // stores, the counter's, and reads of the derivative's own slots.
        for b in &fl.blocks {
            for i in b.instructions() {
                let v = i.as_value();
                match i.opcode() {
                    Some(LLVMOpcode::LLVMStore)
                        if !self.gpu.thread_caches.allowed_stores.contains(&v) =>
                    {
                        return Some("its forward sweep writes memory".into())
                    }
                    Some(LLVMOpcode::LLVMLoad)
                        if !again.contains(&v)
                            && root_object(i.operand(0)).opcode()
                                != Some(LLVMOpcode::LLVMAlloca) =>
                    {
                        return Some("its forward sweep reads shadow memory".into())
                    }
                    Some(LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke) if !again.contains(&v) => {
                        return Some("its forward sweep calls what may have effects".into())
                    }
                    Some(
                        LLVMOpcode::LLVMAtomicRMW
                        | LLVMOpcode::LLVMAtomicCmpXchg
                        | LLVMOpcode::LLVMFence
                        | LLVMOpcode::LLVMAlloca,
                    ) => return Some("its forward sweep writes memory".into()),
                    _ => {}
                }
            }
        }
        None
    }

    /// Lays out window `w` of loop `l` so that it recomputes: the whole
    /// loop when it fits (`lo = 0`); else the bisection stack (its first
    /// state: the header phis' values on entry) and a window of what is
    /// left, `lo` = [`NO_WINDOW`] until the reverse sweep asks.
    pub(super) fn recomputed_window(
        &mut self,
        arena: &Arena<'m>,
        l: LoopId,
        fl: &ForwardLoop<'m>,
        mut w: Window<'m>,
    ) {
        let ctx = self.req.prep.context();
        let module = self.req.prep.global_parent();
        let (i8t, i64t) = (Ty::int(ctx, 8), Ty::int(ctx, 64));
        let header = fl.header();
        let phis: Vec<Inst<'m>> = header
            .instructions()
            .into_iter()
            .take_while(|i| i.opcode() == Some(LLVMOpcode::LLVMPHI))
            .collect();
        let iv = self.caches.loops[&l].iv;
        let iv_field = phis
            .iter()
            .position(|p| p.as_value() == iv)
            .expect("the loop's counter is a header phi") as u32;
        let state_ty = Ty::literal_struct(ctx, &phis.iter().map(|p| p.ty()).collect::<Vec<_>>());
        let state_bytes = state_ty.alloc_size(module).div_ceil(16) * 16;
        // Half the array at most for the stack (a small array recomputes
        // more), enough for `wlen · 2^(depth - 1)` iterations.
        let depth = (arena.budget / 2 / state_bytes).clamp(2, STACK_DEPTH);
        let stack_bytes = depth * state_bytes;
        let per_iteration = w.sort_regions(module);
        let block = w.buffers[0].block;
        let bound = w.buffers[0].bound;

        let b = Builder::new(ctx);
        b.position_before(block.terminator().expect("terminator"));
        let k = |v: u64| b.const_int(i64t, v as i64);
        let need = b.mul(bound, k(per_iteration));
        let (u, rem) = arena.free(&b);
        let fits = b.icmp(LLVMIntPredicate::LLVMIntULE, need, rem);
        // Recomputed: what is left after the stack.
        let avail = b.sub(rem, k(stack_bytes));
        let neg = b.icmp(LLVMIntPredicate::LLVMIntSLT, avail, k(0));
        let avail = b.select(neg, k(0), avail);
        let lrec = b.udiv(avail, k(per_iteration.max(1)));
        let some = b.icmp(LLVMIntPredicate::LLVMIntUGE, lrec, k(1));
        let ok = b.select(fits, fits, some);
        trap_unless(&b, ok);
        let wlen = b.select(fits, bound, lrec);
        let base = b.gep(i8t, arena.base, &[u]);
        let win = b.select(fits, base, b.gep(i8t, base, &[k(stack_bytes)]));
        self.lay_out_regions(&b, win, wlen, &w.buffers);
        b.store(b.select(fits, b.add(u, need), k(arena.budget)), arena.used);
        b.store(wlen, w.wlen);
        b.store(b.select(fits, k(0), b.const_int(i64t, NO_WINDOW)), w.lo);
        b.store(b.select(fits, k(0), k(1)), w.sp);
        b.store(base, w.stack);
        // The first state (into a sink when the loop fits).
        let sink = self.sweep.top.alloca(state_ty, "state_sink");
        let first = b.select(fits, sink, base);
        for (f, phi) in phis.iter().enumerate() {
            let entry = phi
                .incoming()
                .into_iter()
                .find(|(_, from)| !fl.contains(*from))
                .map(|(v, _)| v)
                .expect("a header phi has a value on entry");
            b.store(entry, field(&b, state_ty, first, f as u32));
        }

        let env = self.replay_env(l, &w, fl);
        let replay = build_replay(self.sweep.fns.forward, l, &env, fl, &phis, iv_field);
        let sched = build_sched(
            self.sweep.fns.forward,
            l,
            &env,
            replay,
            state_ty,
            iv_field,
            depth,
        );
        let ensure = build_ensure(self.sweep.fns.forward, l, env.ty, sched);
        let fty = Ty::function(Ty::void(ctx), &[Ty::ptr(ctx), i64t], false);
        for (marker, j) in w.hooks {
            let hb = Builder::new(ctx);
            hb.position_before(marker);
            hb.call(fty, ensure.as_value(), &[env.slot, j]);
            marker.erase();
        }
    }

    /// The environment of loop `l`'s replay: a struct on the stack with
    /// the window's slots, then each value the loop uses from outside it,
    /// stored right after its definition.
    fn replay_env(&mut self, l: LoopId, w: &Window<'m>, fl: &ForwardLoop<'m>) -> Env<'m> {
        let ctx = self.req.prep.context();
        let mut outside: Vec<Value<'m>> = vec![w.lo, w.wlen, w.sp, w.stack];
        let mut seen: HashSet<Value<'m>> = outside.iter().copied().collect();
        for blk in &fl.blocks {
            for i in blk.instructions() {
                if *blk == fl.header() && i.opcode() == Some(LLVMOpcode::LLVMPHI) {
                    continue;
                }
                for op in i.operands() {
                    let from_outside = match op.as_inst() {
                        Some(d) => !fl.contains(d.parent_block()),
                        None => op.is_argument(),
                    };
                    if from_outside && seen.insert(op) {
                        outside.push(op);
                    }
                }
            }
        }
        let ty = Ty::literal_struct(ctx, &outside.iter().map(|v| v.ty()).collect::<Vec<_>>());
        let slot = self.sweep.top.alloca(ty, &format!("replay_env.{l}"));
        for (f, v) in outside.iter().enumerate() {
            let sb = Builder::new(ctx);
            match v.as_inst() {
                Some(d) if d.opcode() == Some(LLVMOpcode::LLVMPHI) => sb.position_before(
                    d.parent_block()
                        .first_non_phi()
                        .expect("a block has a terminator"),
                ),
                Some(d) if d.opcode() != Some(LLVMOpcode::LLVMAlloca) => sb.position_after(d),
                // Arguments and stack slots: with the slots.
                _ => {
                    self.sweep
                        .top
                        .store(*v, field(&self.sweep.top, ty, slot, f as u32));
                    continue;
                }
            }
            sb.store(*v, field(&sb, ty, slot, f as u32));
        }
        Env { slot, ty, outside }
    }
}

/// A replay's environment (see `replay_env`).
struct Env<'m> {
    slot: Value<'m>,
    ty: Ty<'m>,
    /// Field k holds `outside[k]`; fields 0..4 are the window's `lo`,
    /// `wlen`, `sp` and `stack` slots.
    outside: Vec<Value<'m>>,
}

/// `replay(env, in, end, out)`: see the module documentation.
fn build_replay<'m>(
    grad: Function<'m>,
    l: LoopId,
    env: &Env<'m>,
    fl: &ForwardLoop<'m>,
    phis: &[Inst<'m>],
    iv_field: u32,
) -> Function<'m> {
    let header = fl.header();
    let ctx = grad.context();
    let (ptr, i64t) = (Ty::ptr(ctx), Ty::int(ctx, 64));
    let module = grad.global_parent();
    let fty = Ty::function(Ty::void(ctx), &[ptr, ptr, i64t, ptr], false);
    let f = add_internal_function(module, &format!("{}.replay.{l}", grad.name()), fty);
    let ps = f.params();
    let (envp, input, end, output) = (ps[0], ps[1], ps[2], ps[3]);
    let entry = f.append_block("entry");
    let hdr = f.append_block("iteration");
    let stop = f.append_block("stop");
    let done = f.append_block("done");
    let b = Builder::new(ctx);
    b.position_at_end(entry);
    let mut map: HashMap<Value<'m>, Value<'m>> = HashMap::new();
    for (k, v) in env.outside.iter().enumerate() {
        map.insert(*v, b.load(v.ty(), field(&b, env.ty, envp, k as u32)));
    }
    let state_ty = Ty::literal_struct(ctx, &phis.iter().map(|p| p.ty()).collect::<Vec<_>>());
    let starts: Vec<Value<'m>> = phis
        .iter()
        .enumerate()
        .map(|(k, p)| b.load(p.ty(), field(&b, state_ty, input, k as u32)))
        .collect();
    b.br(hdr);
    b.position_at_end(hdr);
    let new_phis: Vec<Inst<'m>> = phis.iter().map(|p| b.phi(p.ty(), &p.name())).collect();
    for (p, n) in phis.iter().zip(&new_phis) {
        map.insert(p.as_value(), n.as_value());
    }
    let header_phis: HashSet<Inst<'m>> = phis.iter().copied().collect();
    let cloned = clone_blocks(&fl.blocks, f, &mut map, |i| header_phis.contains(&i));
    let at_end = b.icmp(
        LLVMIntPredicate::LLVMIntEQ,
        new_phis[iv_field as usize].as_value(),
        end,
    );
    b.cond_br(at_end, stop, cloned.blocks[&header]);
    b.position_at_end(stop);
    for (k, n) in new_phis.iter().enumerate() {
        b.store(n.as_value(), field(&b, state_ty, output, k as u32));
    }
    b.ret(None);
    b.position_at_end(done);
    b.ret(None);
    cloned.patch(&map, |_, target| {
        if target == header {
            Some(hdr)
        } else if !fl.contains(target) {
            Some(done)
        } else {
            None
        }
    });
    for ((p, n), s) in phis.iter().zip(&new_phis).zip(starts) {
        n.add_incoming(s, entry);
        for (v, from) in p.incoming() {
            if fl.contains(from) {
                let v = map.get(&v).copied().unwrap_or(v);
                n.add_incoming(v, cloned.blocks[&from]);
            }
        }
    }
    f
}

/// `sched(env, j)`: see the module documentation.
fn build_sched<'m>(
    grad: Function<'m>,
    l: LoopId,
    env: &Env<'m>,
    replay: Function<'m>,
    state_ty: Ty<'m>,
    iv_field: u32,
    depth: u64,
) -> Function<'m> {
    let ctx = grad.context();
    let (ptr, i64t) = (Ty::ptr(ctx), Ty::int(ctx, 64));
    let module = grad.global_parent();
    let fty = Ty::function(Ty::void(ctx), &[ptr, i64t], false);
    let f = add_internal_function(module, &format!("{}.sched.{l}", grad.name()), fty);
    f.add_function_attribute("noinline");
    let ps = f.params();
    let (envp, j) = (ps[0], ps[1]);
    let mk = |n: &str| f.append_block(n);
    let (entry, next, pop, decide, record, advance, push, far) = (
        mk("entry"),
        mk("next"),
        mk("pop"),
        mk("decide"),
        mk("record"),
        mk("advance"),
        mk("push"),
        mk("far"),
    );
    let b = Builder::new(ctx);
    b.position_at_end(entry);
    let k = |v: i64| b.const_int(i64t, v);
    let slot = |i: u32| b.load(ptr, field(&b, env.ty, envp, i));
    let (lo_slot, wlen_slot, sp_slot, stack_slot) = (slot(0), slot(1), slot(2), slot(3));
    let scratch = b.alloca(state_ty, "scratch");
    let lo = b.load(i64t, lo_slot);
    let none = b.icmp(LLVMIntPredicate::LLVMIntEQ, lo, k(NO_WINDOW));
    let hi = b.select(none, b.add(j, k(1)), lo);
    let stack = b.load(ptr, stack_slot);
    b.br(next);
    b.position_at_end(next);
    let sp = b.load(i64t, sp_slot);
    let top = b.gep(state_ty, stack, &[b.sub(sp, k(1))]);
    let a = b.load(i64t, field(&b, state_ty, top, iv_field));
    let passed = b.icmp(LLVMIntPredicate::LLVMIntSGE, a, hi);
    b.cond_br(passed, pop, decide);
    b.position_at_end(pop);
    b.store(b.sub(sp, k(1)), sp_slot);
    b.br(next);
    b.position_at_end(decide);
    let wlen = b.load(i64t, wlen_slot);
    let len = b.sub(hi, a);
    let small = b.icmp(LLVMIntPredicate::LLVMIntSLE, len, wlen);
    b.cond_br(small, record, advance);
    let rfty = Ty::function(Ty::void(ctx), &[ptr, ptr, i64t, ptr], false);
    b.position_at_end(record);
    b.store(a, lo_slot);
    b.call(rfty, replay.as_value(), &[envp, top, hi, scratch]);
    b.ret(None);
    b.position_at_end(advance);
    b.store(k(NO_WINDOW), lo_slot);
    let room = b.icmp(LLVMIntPredicate::LLVMIntULT, sp, k(depth as i64));
    b.cond_br(room, push, far);
    // Bisect: save the midpoint's state.
    b.position_at_end(push);
    let mid = b.add(a, b.udiv(len, k(2)));
    let out = b.gep(state_ty, stack, &[sp]);
    b.call(rfty, replay.as_value(), &[envp, top, mid, out]);
    b.store(b.add(sp, k(1)), sp_slot);
    b.br(next);
    // The stack is full: run from the top state to the window's start,
    // then record the window (quadratic in what is left, never wrong).
    b.position_at_end(far);
    let start = b.sub(hi, wlen);
    b.call(rfty, replay.as_value(), &[envp, top, start, scratch]);
    b.store(start, lo_slot);
    b.call(rfty, replay.as_value(), &[envp, scratch, hi, scratch]);
    b.ret(None);
    f
}

/// `ensure(env, j)`: `j < lo ? sched(env, j)`, always inlined.
fn build_ensure<'m>(
    grad: Function<'m>,
    l: LoopId,
    env_ty: Ty<'m>,
    sched: Function<'m>,
) -> Function<'m> {
    let ctx = grad.context();
    let (ptr, i64t) = (Ty::ptr(ctx), Ty::int(ctx, 64));
    let fty = Ty::function(Ty::void(ctx), &[ptr, i64t], false);
    let f = add_internal_function(
        grad.global_parent(),
        &format!("{}.ensure.{l}", grad.name()),
        fty,
    );
    f.add_function_attribute("alwaysinline");
    let ps = f.params();
    let (envp, j) = (ps[0], ps[1]);
    let entry = f.append_block("entry");
    let slow = f.append_block("sched");
    let done = f.append_block("done");
    let b = Builder::new(ctx);
    b.position_at_end(entry);
    let lo_slot = b.load(ptr, field(&b, env_ty, envp, 0));
    let lo = b.load(i64t, lo_slot);
    let below = b.icmp(LLVMIntPredicate::LLVMIntSLT, j, lo);
    b.cond_br(below, slow, done);
    b.position_at_end(slow);
    b.call(fty, sched.as_value(), &[envp, j]);
    b.br(done);
    b.position_at_end(done);
    b.ret(None);
    f
}

/// The address of field `k` of the struct of type `ty` at `p`.
fn field<'m>(b: &Builder<'m>, ty: Ty<'m>, p: Value<'m>, k: u32) -> Value<'m> {
    b.gep(ty, p, &[b.i32(0), b.i32(k as i64)])
}

/// The forward sweep's copy of a loop, found once its blocks are final:
/// the header, then the blocks reaching a back edge into it without
/// passing it (synthesis may have split the primal's blocks).
pub(super) struct ForwardLoop<'m> {
    /// The header first, then the others in function order.
    pub(super) blocks: Vec<Block<'m>>,
    set: HashSet<Block<'m>>,
}

impl<'m> ForwardLoop<'m> {
    pub(super) fn header(&self) -> Block<'m> {
        self.blocks[0]
    }

    pub(super) fn contains(&self, b: Block<'m>) -> bool {
        self.set.contains(&b)
    }

    /// The loop whose header is `header` (a block of the forward sweep).
    pub(super) fn at(header: Block<'m>) -> ForwardLoop<'m> {
        let blocks = forward_loop_blocks(header);
        let set = blocks.iter().copied().collect();
        ForwardLoop { blocks, set }
    }
}

fn forward_loop_blocks<'m>(header: Block<'m>) -> Vec<Block<'m>> {
    let f = header.parent();
    let mut preds: HashMap<Block<'m>, Vec<Block<'m>>> = HashMap::new();
    for b in f.blocks() {
        for s in b.successors() {
            preds.entry(s).or_default().push(b);
        }
    }
    let mut seen: HashSet<Block<'m>> = HashSet::from([header]);
    let mut work: Vec<Block<'m>> = Vec::new();
    // Back edges: predecessors of the header that it reaches.
    let reach = reachable_from(header);
    for p in preds.get(&header).cloned().unwrap_or_default() {
        if reach.contains(&p) && seen.insert(p) {
            work.push(p);
        }
    }
    while let Some(b) = work.pop() {
        for p in preds.get(&b).cloned().unwrap_or_default() {
            if seen.insert(p) {
                work.push(p);
            }
        }
    }
    // In function order (deterministic output), the header first.
    let mut out = vec![header];
    out.extend(
        f.blocks()
            .into_iter()
            .filter(|b| *b != header && seen.contains(b)),
    );
    out
}

fn reachable_from<'m>(start: Block<'m>) -> HashSet<Block<'m>> {
    let mut seen = HashSet::new();
    let mut work = vec![start];
    while let Some(b) = work.pop() {
        for s in b.successors() {
            if seen.insert(s) {
                work.push(s);
            }
        }
    }
    seen
}
