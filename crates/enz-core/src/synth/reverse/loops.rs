//! Loops in reverse mode: canonical induction variables, loop-indexed
//! caches and the reverse iteration.
//!
//! For every loop `L` the forward sweep gets
//!
//! ```text
//!   preheader:  base_L = count_L              (iterations of L so far)
//!   header:     iv_L   = phi [0, preheader], [iv_L + 1, latch]
//!               pos_L  = base_L + iv_L ;  count_L = pos_L + 1
//!   exit E:     last_L = phi [iv_L, exiting block] ...
//! ```
//!
//! A value defined in `L` that the reverse sweep needs is stored at
//! `buffer[pos_L]` of a per-value buffer that grows by doubling (so loops
//! whose trip count is unknown, nested loops whose inner count varies, and
//! early exits all work with one allocation scheme), and read back at
//! `buffer[base_L + rev_iv_L]`, where `base_L` is itself a value of the
//! enclosing context, cached like any other. When every trip count of the
//! loop nest is bounded before the outermost loop starts
//! (`LoopNest::trip_bound`), the buffers are allocated once there instead
//! (in the thread's fixed cache array on GPUs, which have no realloc:
//! `thread_cache.rs`). The reverse
//! sweep enters `L`
//! from an exit with `rev_iv_L = last_L`, counts down at the reverse of the
//! header, and leaves to the preheader when it reaches 0. Buffers are freed
//! at the end of the reverse sweep.

use super::{Mode, Reverse};
use crate::analysis::loops::LoopId;
use crate::analysis::trips::{AffineExit, ExactExit, Spread, TripBound};
use crate::diag::Diagnostic;
use crate::ir::LLVMIntPredicate;
use crate::ir::{add_internal_function, named_function, Block, Builder, Function, Ty, Value};
use crate::names::REALLOC;
use crate::synth::runtime;
use crate::synth::tape::{heap_alignment, Slot};
use crate::transform::loop_exit::exit_iteration;
use std::collections::HashMap;

/// Where forward values wait for the reverse sweep, and each loop's
/// counters.
#[derive(Default)]
pub(super) struct Caches<'m> {
    /// Tape slots of forward values read by the reverse sweep.
    pub(super) slots: HashMap<Value<'m>, Slot<'m>>,
    pub(super) loops: HashMap<LoopId, LoopState<'m>>,
    /// Loop buffers of forward values.
    pub(super) buffer_of: HashMap<Value<'m>, Buffer<'m>>,
    pub(super) buffers: Vec<Buffer<'m>>,
    /// Under an explicit `--cache-budget` that some loop of the function
    /// could not be checkpointed under: the budget in bytes and the line
    /// the gradient writes to stderr when one call's caches pass it.
    pub(super) budget_report: Option<(u64, String)>,
    /// With `budget_report`: the cache-bytes counter when the gradient
    /// started, the flag saying the line was written, and the line.
    pub(super) budget_start: Option<(Value<'m>, Value<'m>, (Value<'m>, usize))>,
}

/// The forward and reverse bookkeeping of one loop.
pub(super) struct LoopState<'m> {
    /// Iterations of the loop before this instance (forward, preheader).
    base: Value<'m>,
    /// `base + iv` (forward, header).
    pub(super) pos: Value<'m>,
    /// The counter phi `iv` (forward, header).
    pub(super) iv: Value<'m>,
    /// The reverse iteration counter (a stack slot of the reverse function).
    rev_iv: Value<'m>,
    /// `last_L` phis per exit block (forward, in the exit block).
    last: HashMap<Block<'m>, Value<'m>>,
    /// When every iteration count of the loop and its parents is bounded
    /// before the outermost one starts: that bound on the positions, and
    /// the (forward) block ending in which the buffers are allocated once.
    pub(super) prealloc: Option<(Value<'m>, Block<'m>)>,
    /// In a bounded nest, positions are laid out as a rectangle: `pos =
    /// pos_parent · trips + iv` (`base = 0` in the outermost loop), with
    /// `trips` this loop's bound (computed, in the forward sweep, in the
    /// preheader of the outermost loop, primal block `outer_preheader`),
    /// so that the reverse sweep recomputes `base` instead of caching it
    /// per iteration of the parent.
    rect: Option<Rect<'m>>,
}

/// See [`LoopState::rect`].
#[derive(Copy, Clone)]
struct Rect<'m> {
    parent: Option<LoopId>,
    trips: Value<'m>,
    outer_preheader: Block<'m>,
}

/// A growable cache buffer: `{ ptr data, i64 capacity }` on the tape.
#[derive(Copy, Clone)]
pub(super) struct Buffer<'m> {
    holder: Slot<'m>,
    elem: Ty<'m>,
    /// On the stack (GPU, combined mode): nothing to free.
    on_stack: bool,
    /// Allocated once per call (a bounded loop nest on the host): the
    /// thread-local spare block the buffer is taken from and given back to.
    spare: Option<Value<'m>>,
}

impl Buffer<'_> {
    /// The holder's byte offset on a heap tape (split mode).
    pub(super) fn holder_offset(&self) -> Option<u64> {
        match self.holder {
            Slot::Heap(off, _) => Some(off),
            Slot::Stack(..) => None,
        }
    }
}

impl<'m, 'a> Reverse<'m, 'a> {
    /// Adds the canonical induction variables and counters to the forward
    /// sweep.
    pub(super) fn setup_loops(&mut self) {
        let ctx = self.req.prep.context();
        let i64t = Ty::int(ctx, 64);
        let fb = Builder::new(ctx);
        // Parents first: a child's base is its parent's position.
        let mut ids: Vec<LoopId> = self.facts.loops.ids().collect();
        ids.sort_by_key(|l| {
            self.facts
                .loops
                .chain(self.facts.loops.get(*l).header)
                .len()
        });
        for l in ids {
            let (header, latch, preheader, parent) = {
                let lp = self.facts.loops.get(l);
                (lp.header, lp.latch, lp.preheader, lp.parent)
            };
            let count = self.forward_counter();
            let bound = self.position_bound(l);
            let gpre = self.map.block(preheader);
            fb.position_before(gpre.terminator().expect("preheader terminator"));
            let (prealloc, rect) = match bound {
                Some((total, block, trips, outer_preheader)) => (
                    Some((total, block)),
                    Some(Rect {
                        parent,
                        trips,
                        outer_preheader,
                    }),
                ),
                None => (None, None),
            };
            let base = match rect {
                Some(Rect {
                    parent: Some(p),
                    trips,
                    ..
                }) => fb.mul(self.caches.loops[&p].pos, trips),
                Some(Rect { parent: None, .. }) => fb.const_int(i64t, 0),
                None => fb.load(i64t, count),
            };
            base.set_name(&format!("base.{l}"));
            let gh = self.map.block(header);
            crate::synth::shadow::position_at_top(&fb, gh);
            let iv = fb.phi(i64t, &format!("iv.{l}"));
            let glatch = self.map.block(latch);
            let lb = Builder::new(ctx);
            lb.position_before(glatch.terminator().expect("latch terminator"));
            let next = lb.add(iv.into(), lb.const_int(i64t, 1));
            iv.add_incoming(fb.const_int(i64t, 0), gpre);
            iv.add_incoming(next, glatch);
            fb.position_before(gh.first_non_phi().expect("header terminator"));
            let pos = fb.add(base, iv.into());
            pos.set_name(&format!("pos.{l}"));
            let counted = fb.store(fb.add(pos, fb.const_int(i64t, 1)), count);
            self.thread_cache_store(counted);
            let rev_iv = self.sweep.top.alloca(i64t, &format!("rev_iv.{l}"));
            self.sweep
                .top
                .store(self.sweep.top.const_int(i64t, 0), rev_iv);
            let last = self.exit_phis(l, iv.into());
            let state = LoopState {
                base,
                pos,
                iv: iv.as_value(),
                rev_iv,
                last,
                prealloc,
                rect,
            };
            self.caches.loops.insert(l, state);
        }
    }

    /// Fresh reverse iteration counters, in the entry of the reverse
    /// function being built (a release function has its own).
    pub(super) fn new_reverse_counters(&mut self) {
        let i64t = Ty::int(self.req.prep.context(), 64);
        let ids: Vec<LoopId> = self.caches.loops.keys().copied().collect();
        for l in ids {
            let rev_iv = self.sweep.top.alloca(i64t, &format!("rev_iv.{l}"));
            self.sweep
                .top
                .store(self.sweep.top.const_int(i64t, 0), rev_iv);
            if let Some(st) = self.caches.loops.get_mut(&l) {
                st.rev_iv = rev_iv;
            }
        }
    }

    /// A bound on every position of loop `l`'s buffers, computed in the
    /// preheader of its outermost enclosing loop: the product of the trip
    /// bounds of the loops around it, if each is known there. Also `l`'s
    /// own trip bound and that preheader (primal).
    #[allow(clippy::type_complexity)]
    fn position_bound(
        &mut self,
        l: LoopId,
    ) -> Option<(Value<'m>, Block<'m>, Value<'m>, Block<'m>)> {
        let chain = self.facts.loops.chain(self.facts.loops.get(l).header);
        let outer = chain[0];
        let bounds: Vec<_> = chain
            .iter()
            .map(|m| self.facts.loops.trip_bound(&self.facts.cfg, *m, outer))
            .collect::<Option<Vec<_>>>()?;
        let gpre = self.map.block(self.facts.loops.get(outer).preheader);
        let ctx = gpre.parent().context();
        let i64t = Ty::int(ctx, 64);
        let fb = Builder::new(ctx);
        fb.position_before(gpre.terminator()?);
        let mut total = fb.const_int(i64t, 1);
        // Each loop's bound, for the loops inside it whose start or limit
        // follows its IV.
        let mut trips_of: HashMap<LoopId, Value<'m>> = HashMap::new();
        for (m, tb) in chain.iter().zip(bounds) {
            let trips = match tb {
                TripBound::Constant(n) => fb.const_int(i64t, n as i64),
                TripBound::Affine(exits) => {
                    let mut least: Option<Value<'m>> = None;
                    for e in exits {
                        // The largest distance over the alternatives.
                        let mut dist: Option<Value<'m>> = None;
                        for s in &e.starts {
                            for lim in &e.limits {
                                let d = self.exit_distance(&fb, &e, s, lim, &trips_of)?;
                                dist = Some(match dist {
                                    None => d,
                                    Some(m) => {
                                        let gt = fb.icmp(LLVMIntPredicate::LLVMIntUGT, d, m);
                                        fb.select(gt, d, m)
                                    }
                                });
                            }
                        }
                        let dist = dist?;
                        let steps = match e.stride {
                            // A step known at run time (at least 1): the
                            // distance over it, rounded up.
                            Some(s) => {
                                let one = fb.const_int(i64t, 1);
                                let s = fb.sext(self.map.get(s), i64t);
                                let s = fb.select(
                                    fb.icmp(LLVMIntPredicate::LLVMIntSLT, s, one),
                                    one,
                                    s,
                                );
                                fb.udiv(fb.add(dist, fb.sub(s, one)), s)
                            }
                            None => fb.udiv(dist, fb.const_int(i64t, e.step.unsigned_abs() as i64)),
                        };
                        least = Some(match least {
                            None => steps,
                            Some(m) => {
                                let lt = fb.icmp(LLVMIntPredicate::LLVMIntULT, steps, m);
                                fb.select(lt, steps, m)
                            }
                        });
                    }
                    let least = least?;
                    fb.add(least, fb.const_int(i64t, 3))
                }
            };
            trips_of.insert(*m, trips);
            total = fb.mul(total, trips);
        }
        total.set_name(&format!("bound.{l}"));
        let own = *trips_of.get(&l)?;
        Some((total, gpre, own, self.facts.loops.get(outer).preheader))
    }

    /// The distance an exit's IV travels from start `s` to limit `lim`
    /// (one alternative of each), computed in the outermost preheader with
    /// `fb`: |limit - start| plus what the ends' spreads allow (ordered
    /// tests), or the wrapping distance in the step's direction (`!=`,
    /// exact ends only).
    fn exit_distance(
        &self,
        fb: &Builder<'m>,
        e: &AffineExit<'m>,
        s: &Spread<'m>,
        lim: &Spread<'m>,
        trips_of: &HashMap<LoopId, Value<'m>>,
    ) -> Option<Value<'m>> {
        let i64t = Ty::int(fb.ctx(), 64);
        let value = |sp: &Spread<'m>| {
            let mut v = fb.const_int(i64t, sp.offset);
            for (neg, t) in &sp.terms {
                let t = fb.sext(self.map.get(*t), i64t);
                v = if *neg { fb.sub(v, t) } else { fb.add(v, t) };
            }
            v
        };
        let mut start = value(s);
        if e.wraps && e.on_next {
            start = fb.add(start, fb.const_int(i64t, e.step));
        }
        let limit = value(lim);
        let diff = fb.sub(limit, start);
        let neg = fb.sub(fb.const_int(i64t, 0), diff);
        if e.wraps {
            // Counting towards the limit, wrapping at the IV's width.
            let d = if e.step > 0 { diff } else { neg };
            if e.width < 64 {
                let mask = fb.const_int(i64t, ((1u64 << e.width) - 1) as i64);
                return Some(fb.and(d, mask));
            }
            return Some(d);
        }
        let zero = fb.const_int(i64t, 0);
        let is_neg = fb.icmp(LLVMIntPredicate::LLVMIntSLT, diff, zero);
        let mut dist = if e.unsigned_test {
            fb.select(is_neg, neg, diff)
        } else {
            // Towards the limit in the step's direction; 0 when the start
            // is already past it.
            let toward = if e.step > 0 { diff } else { neg };
            let past = fb.icmp(LLVMIntPredicate::LLVMIntSLT, toward, zero);
            fb.select(past, zero, toward)
        };
        // Ends known up to rounding, or moving with enclosing IVs (by at
        // most |step| per iteration of those loops).
        let slack = s.slack.checked_add(lim.slack)?;
        if slack > 0 {
            dist = fb.add(dist, fb.const_int(i64t, i64::try_from(slack).ok()?));
        }
        for (outer_loop, step) in s.loops.iter().chain(&lim.loops) {
            let t = *trips_of.get(outer_loop)?;
            dist = fb.add(dist, fb.mul(t, fb.const_int(i64t, *step as i64)));
        }
        Some(dist)
    }

    /// An i64 counter in the forward function, zeroed at its entry.
    fn forward_counter(&self) -> Value<'m> {
        let f = self.sweep.fns.forward;
        let b = Builder::new(f.context());
        let entry = f.entry_block();
        match entry.first_instruction() {
            Some(i) => b.position_before(i),
            None => b.position_at_end(entry),
        }
        let i64t = Ty::int(f.context(), 64);
        let c = b.alloca(i64t, "count");
        b.store(b.const_int(i64t, 0), c);
        c
    }

    /// In every exit block of `l`, a phi of the iteration it exited in.
    fn exit_phis(&mut self, l: LoopId, iv: Value<'m>) -> HashMap<Block<'m>, Value<'m>> {
        let mut out = HashMap::new();
        let blocks: Vec<Block> = self.facts.loops.get(l).ordered.clone();
        let mut exits: Vec<Block> = Vec::new();
        for b in &blocks {
            for s in b.successors() {
                if !self.facts.loops.contains(l, s) && !exits.contains(&s) {
                    exits.push(s);
                }
            }
        }
        let fb = Builder::new(iv.context());
        for e in exits {
            let ge = self.map.block(e);
            crate::synth::shadow::position_at_top(&fb, ge);
            let phi = fb.phi(iv.ty(), &format!("last.{l}"));
            for p in self.facts.cfg.preds(e) {
                let v = if self.facts.loops.contains(l, *p) {
                    iv
                } else {
                    fb.poison(iv.ty())
                };
                phi.add_incoming(v, self.map.block(*p));
            }
            out.insert(e, phi.as_value());
        }
        out
    }

    /// Sets the reverse counters of the loops entered on the reverse edge
    /// from `from` (outside them) to `to` (inside).
    pub(super) fn enter_loops(&mut self, from: Block<'m>, to: Block<'m>) {
        for l in self.facts.loops.chain(to) {
            if self.facts.loops.contains(l, from) {
                continue;
            }
            let Some(last) = self.caches.loops[&l].last.get(&from).copied() else {
                continue;
            };
            let v = match self.facts.plan.exact_exit(l) {
                Some(x) => self.exit_iteration(x),
                None => self.cached_forward(last, from),
            };
            let slot = self.caches.loops[&l].rev_iv;
            self.b.store(v, slot);
            self.thread_cache_hook(l, v);
        }
    }

    /// The iteration (from 0) in which a loop with an exact exit left,
    /// computed at the reverse builder's position (an exit of the loop)
    /// from the IV's start and limit.
    fn exit_iteration(&mut self, x: ExactExit<'m>) -> Value<'m> {
        let start = self.primal(x.start);
        let limit = self.primal(x.limit);
        exit_iteration(&self.b, &x, start, limit)
    }

    /// The reverse of a loop header: continue with the previous iteration
    /// (through the latch) or leave to the preheader. Returns the two edge
    /// blocks, already holding the counter update, for the phi adjoints.
    pub(super) fn header_branch(
        &mut self,
        l: LoopId,
    ) -> ((Block<'m>, Block<'m>), (Block<'m>, Block<'m>)) {
        let ctx = self.req.prep.context();
        let i64t = Ty::int(ctx, 64);
        let (latch, preheader) = {
            let lp = self.facts.loops.get(l);
            (lp.latch, lp.preheader)
        };
        let slot = self.caches.loops[&l].rev_iv;
        let iv = self.b.load(i64t, slot);
        let first = self
            .b
            .icmp(LLVMIntPredicate::LLVMIntEQ, iv, self.b.const_int(i64t, 0));
        let reverse = self.sweep.fns.reverse;
        let mk = |n: &str| reverse.append_block(n);
        let to_pre = mk(&format!("invert_{l}_done"));
        let to_latch = mk(&format!("invert_{l}_again"));
        self.b.cond_br(first, to_pre, to_latch);
        self.b.position_at_end(to_latch);
        let prev = self.b.add(iv, self.b.const_int(i64t, -1));
        self.b.store(prev, slot);
        self.thread_cache_hook(l, prev);
        ((to_pre, preheader), (to_latch, latch))
    }

    /// The reverse iteration's position in loop `l`'s buffers.
    fn rev_pos(&mut self, l: LoopId) -> Value<'m> {
        if let Some(r) = self.caches.loops[&l].rect {
            let iv = self.rev_iv(l);
            let Some(p) = r.parent else {
                return iv;
            };
            let outer = self.rev_pos(p);
            let trips = if r.trips.is_instruction() {
                self.cached_forward(r.trips, r.outer_preheader)
            } else {
                r.trips
            };
            return self.b.add(self.b.mul(outer, trips), iv);
        }
        let st = &self.caches.loops[&l];
        let (base, rev_iv) = (st.base, st.rev_iv);
        let pre = self.facts.loops.get(l).preheader;
        let base = self.cached_forward(base, pre);
        let iv = self.b.load(Ty::int(base.context(), 64), rev_iv);
        self.b.add(base, iv)
    }

    /// The current reverse iteration of loop `l` (for affine IVs).
    pub(super) fn rev_iv(&mut self, l: LoopId) -> Value<'m> {
        let slot = self.caches.loops[&l].rev_iv;
        self.b.load(Ty::int(slot.context(), 64), slot)
    }

    /// Caches forward value `gv`, defined in loop `l`, in a buffer indexed
    /// by the loop position; returns the value read back at the reverse
    /// builder's position.
    pub(super) fn cache_in_loop(&mut self, gv: Value<'m>, l: LoopId) -> Value<'m> {
        let buf = match self.caches.buffer_of.get(&gv) {
            Some(b) => *b,
            None => {
                let ctx = gv.context();
                let holder_ty = Ty::literal_struct(ctx, &[Ty::ptr(ctx), Ty::int(ctx, 64)]);
                let holder = self.sweep.tape.reserve_zeroed(holder_ty);
                let on_stack = self.gpu.on
                    && self.req.mode == Mode::Combined
                    && self.caches.loops[&l].prealloc.is_some();
                let mut buf = Buffer {
                    holder,
                    elem: gv.ty(),
                    on_stack,
                    spare: None,
                };
                let pos = self.caches.loops[&l].pos;
                let fb = Builder::new(ctx);
                let gi = gv
                    .as_inst()
                    .expect("a value cached in a loop is an instruction");
                let pos_inst = pos.as_inst().expect("a loop position is an instruction");
                if gi.opcode() == Some(crate::ir::LLVMOpcode::LLVMPHI)
                    && gi.parent_block() == pos_inst.parent_block()
                {
                    // The header's phis: after `pos`, which follows them.
                    fb.position_after(pos_inst);
                } else {
                    fb.position_after(gi);
                }
                let hp = self.sweep.tape.address(&fb, holder);
                let size = fb.const_int(Ty::int(ctx, 64), gv.ty().alloc_size(gv.module()) as i64);
                let ptr = Ty::ptr(ctx);
                let addr = match self.caches.loops[&l].prealloc {
                    // Thread-private: in the per-thread array, laid out
                    // when the sweep is complete.
                    Some((bound, block)) if on_stack => {
                        self.thread_cache_address(&fb, l, gv, holder, bound, block, pos)
                    }
                    Some((bound, block)) => {
                        // Allocated once, before the outermost loop starts.
                        let ab = Builder::new(ctx);
                        ab.position_before(block.terminator().expect("terminator"));
                        let holder_addr = self.sweep.tape.address(&ab, holder);
                        if self.gpu.on {
                            let data = ab.malloc(ab.mul(bound, size));
                            ab.store(data.as_value(), holder_addr);
                        } else {
                            let name = format!("{}.cache_spare", self.sweep.fns.forward.name());
                            let spare = runtime::spare_block(&ab, &name).as_value();
                            let bytes = ab.mul(bound, size);
                            let data = runtime::cache_take(&ab, spare, bytes);
                            ab.store(data, holder_addr);
                            // The capacity field (unused by a buffer that
                            // never grows) holds the size, for the release.
                            ab.store(bytes, ab.byte_gep(holder_addr, 8));
                            buf.spare = Some(spare);
                        }
                        let data = fb.load(ptr, hp);
                        fb.gep(gv.ty(), data, &[pos])
                    }
                    None if self.gpu.on => {
                        if self.gpu.unbounded_loops.insert(l) {
                            self.diags.push(
                                Diagnostic::new(
                                    "on a GPU, the values this loop caches need its trip count bounded before the loop (there is no realloc on the device), and it is not",
                                )
                                .in_function(self.req.name)
                                .at(gv)
                                .help("give the loop a constant step (a grid-stride loop's step, gridDim.x * blockDim.x, is not one): e.g. have each thread update a contiguous chunk of `per` elements, `for (k = 0; k < per; k++)`"),
                            );
                        }
                        fb.zero(ptr)
                    }
                    None => {
                        let slot_fn = cache_slot_fn(&fb);
                        let fty =
                            Ty::function(ptr, &[ptr, Ty::int(ctx, 64), Ty::int(ctx, 64)], false);
                        (fb.call(fty, slot_fn, &[hp, pos, size])).as_value()
                    }
                };
                let st = fb.store(gv, addr);
                st.set_alignment(heap_alignment(gv.ty(), gv.module()));
                if on_stack {
                    self.thread_cache_store(st);
                }
                self.caches.buffer_of.insert(gv, buf);
                self.caches.buffers.push(buf);
                self.explain_cache(Some(l), gv);
                buf
            }
        };
        let pos = self.rev_pos(l);
        let pos = if buf.on_stack {
            self.thread_cache_position(l, pos)
        } else {
            pos
        };
        let tape = self.sweep.rev_tape.unwrap_or(gv);
        let hp = self.sweep.tape.address_rev(&self.b, tape, buf.holder);
        let data = self.b.load(Ty::ptr(gv.context()), hp);
        let addr = self.b.gep(buf.elem, data, &[pos]);
        let v = self.b.load(buf.elem, addr);
        v.set_alignment(heap_alignment(buf.elem, gv.module()));
        v
    }

    /// Under a budget report (`Caches::budget_report`): reads the
    /// cache-bytes counter where the gradient starts, and makes the flag
    /// saying the line was written.
    pub(super) fn start_budget_report(&mut self) {
        let Some((_, msg)) = &self.caches.budget_report else {
            return;
        };
        // At the top of the forward function (a split pair's augmented
        // forward one: the reverse function's `top` is not there).
        let ctx = self.req.prep.context();
        let top = Builder::new(ctx);
        let entry = self.sweep.fns.forward.entry_block();
        match entry.terminator() {
            Some(t) => top.position_before(t),
            None => top.position_at_end(entry),
        }
        let i8t = Ty::int(ctx, 8);
        let start = top.load(Ty::int(ctx, 64), runtime::cache_bytes(&top));
        let name = format!("{}.budget_reported", self.sweep.fns.forward.name());
        let module = self.sweep.fns.forward.global_parent();
        let flag = crate::ir::add_internal_global(module, &name, i8t, 0, top.zero(i8t), 1);
        let text = runtime::budget_message(&top, msg);
        self.caches.budget_start = Some((start, flag.as_value(), text));
    }

    /// Under a budget report, at an exit of the forward sweep (built with
    /// `fb`): writes the line when this call's caches passed the budget.
    pub(super) fn check_budget(&self, fb: &Builder<'m>) {
        let (Some((bytes, _)), Some((start, flag, text))) =
            (&self.caches.budget_report, self.caches.budget_start)
        else {
            return;
        };
        let i64t = Ty::int(self.req.prep.context(), 64);
        let now = fb.load(i64t, runtime::cache_bytes(fb));
        let over = fb.icmp(
            LLVMIntPredicate::LLVMIntUGT,
            fb.sub(now, start),
            fb.const_int(i64t, *bytes as i64),
        );
        runtime::report_budget_exceeded(fb, over, text, flag);
    }

    /// Frees every loop buffer (at the end of the reverse sweep).
    pub(super) fn free_buffers(&mut self) {
        for buf in self.caches.buffers.clone() {
            if buf.on_stack {
                continue;
            }
            let tape = self
                .sweep
                .rev_tape
                .unwrap_or(self.sweep.fns.reverse.as_value());
            let hp = self.sweep.tape.address_rev(&self.b, tape, buf.holder);
            match buf.spare {
                Some(spare) => {
                    let ctx = self.sweep.fns.reverse.context();
                    let data = self.b.load(Ty::ptr(ctx), hp);
                    let bytes = self.b.load(Ty::int(ctx, 64), self.b.byte_gep(hp, 8));
                    runtime::cache_give(&self.b, spare, data, bytes);
                }
                None => {
                    let data = self.b.load(Ty::ptr(self.sweep.fns.reverse.context()), hp);
                    self.b.free(data);
                }
            }
        }
    }
}

/// `__enz_cache_slot(holder, pos, size)`: the address of element `pos` of
/// the buffer `holder = {data, capacity}`, growing it (doubling) first if
/// needed. Emitted once per module, always inlined.
fn cache_slot_fn<'m>(b: &Builder<'m>) -> Function<'m> {
    let ctx = b.ctx();
    let module = b.insert_block().parent().global_parent();
    let name = crate::names::CACHE_SLOT;
    if let Some(existing) = named_function(module, name) {
        return existing;
    }
    let ptr = Ty::ptr(ctx);
    let i64t = Ty::int(ctx, 64);
    let fty = Ty::function(ptr, &[ptr, i64t, i64t], false);
    let f = add_internal_function(module, name, fty);
    f.add_function_attribute("alwaysinline");
    let ps = f.params();
    let (holder, pos, size) = (ps[0], ps[1], ps[2]);
    let mk = |n: &str| f.append_block(n);
    let entry = mk("entry");
    let grow = mk("grow");
    let done = mk("done");
    let fb = Builder::new(ctx);
    fb.position_at_end(entry);
    let cap_p = fb.byte_gep(holder, 8);
    let cap = fb.load(i64t, cap_p);
    let data = fb.load(ptr, holder);
    let full = fb.icmp(LLVMIntPredicate::LLVMIntUGE, pos, cap);
    fb.cond_br(full, grow, done);
    fb.position_at_end(grow);
    let twice = fb.mul(cap, fb.const_int(i64t, 2));
    let need = fb.add(pos, fb.const_int(i64t, 1));
    let lt = fb.icmp(LLVMIntPredicate::LLVMIntULT, twice, need);
    let ncap = fb.select(lt, need, twice);
    let small = fb.icmp(LLVMIntPredicate::LLVMIntULT, ncap, fb.const_int(i64t, 16));
    let ncap = fb.select(small, fb.const_int(i64t, 16), ncap);
    let bytes = fb.mul(ncap, size);
    runtime::count_cache_bytes(&fb, fb.mul(fb.sub(ncap, cap), size));
    let rfty = Ty::function(ptr, &[ptr, i64t], false);
    let ndata = fb.call_named(REALLOC, rfty, &[data, bytes]);
    fb.store(ndata.as_value(), holder);
    fb.store(ncap, cap_p);
    fb.br(done);
    fb.position_at_end(done);
    let d = fb.phi(ptr, "data");
    d.add_incoming(data, entry);
    d.add_incoming(ndata, grow);
    let off = fb.mul(pos, size);
    let i8t = Ty::int(ctx, 8);
    let addr = fb.gep(i8t, d.into(), &[off]);
    fb.ret(Some(addr));
    f
}
