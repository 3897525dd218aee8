//! GPU (NVPTX, combined mode) per-thread loop caches: one fixed-size
//! stack array per gradient (`--gpu-thread-cache BYTES`), never a dynamic
//! `alloca` (NVIDIA's JIT miscompiled those at its default level, and
//! CUDA's default 1 KiB stack did not hold them).
//!
//! Each loop buffer whose trip count is bounded before its loop nest gets
//! a region of the arena, bump-allocated when the nest starts. A loop with
//! no loop around it or inside it gets a *window*: its buffers hold the
//! iterations `lo .. lo + wlen` of the loop, the forward sweep stores an
//! iteration's values only when it falls in the window, and the reverse
//! sweep reads them at `pos - lo`. When the whole loop fits, the window
//! is the loop (`lo = 0`). When it does not and the loop can run again
//! (it writes no memory, and nothing writes what it reads: see
//! [`Reverse::replay_blocker`]), the loop is *recomputed*: at the start of
//! each reverse iteration below `lo`, `sched` runs copies of the forward
//! loop (`replay`: the loop's blocks cloned into a function, from a saved
//! state of its header phis to a given iteration) by bisection, keeping a
//! stack of at most [`STACK_DEPTH`] states in the arena, then records the
//! window below the last one (O(T log T) iterations, bounded memory).
//! Otherwise a loop whose caches do not fit traps (`llvm.trap`), and
//! `--explain` says from which trip count it would.

use super::Reverse;
use crate::analysis::loops::LoopId;
use crate::ir::LLVMIntPredicate;
use crate::ir::{Block, Builder, Inst, Ty, Value};
use crate::synth::runtime::trap_unless;
use crate::synth::tape::Slot;
use std::collections::{BTreeMap, HashSet};

/// States a recomputed loop keeps at most (bisection depth, less when the
/// array is small): enough for `wlen · 2^(STACK_DEPTH - 1)` iterations.
pub(super) const STACK_DEPTH: u64 = 40;

/// `lo` of a window that holds no iteration.
pub(super) const NO_WINDOW: i64 = i64::MAX;

/// The per-thread cache state of one gradient.
pub(super) struct ThreadCaches<'m> {
    /// `--gpu-thread-cache`.
    pub(super) budget: u64,
    windows: BTreeMap<LoopId, Window<'m>>,
    direct: Vec<Region<'m>>,
    /// The forward stores a recomputed loop may make: into its windows,
    /// and of its loop counter.
    pub(super) allowed_stores: HashSet<Value<'m>>,
    /// Reverse-iteration markers of loops whose window may not exist yet.
    pending: Vec<(LoopId, Inst<'m>, Value<'m>)>,
    /// For `--explain`: what each gradient's threads keep.
    pub(super) notes: Vec<String>,
    /// Loops that trap when they do not fit and are not known to fit.
    pub(super) warnings: Vec<String>,
}

/// One buffer's place in the arena.
#[derive(Copy, Clone)]
pub(super) struct Region<'m> {
    pub(super) holder: Slot<'m>,
    pub(super) elem: Ty<'m>,
    /// The number of elements (forward value) and the block before whose
    /// terminator the region is allocated.
    pub(super) bound: Value<'m>,
    pub(super) block: Block<'m>,
}

/// A loop's buffers as a window of its iterations.
pub(super) struct Window<'m> {
    pub(super) lo: Value<'m>,
    pub(super) wlen: Value<'m>,
    /// The bisection stack's depth and base (recomputed loops).
    pub(super) sp: Value<'m>,
    pub(super) stack: Value<'m>,
    pub(super) buffers: Vec<Region<'m>>,
    /// Loads of `lo` (forward and reverse): 0 unless recomputed.
    lo_loads: Vec<Value<'m>>,
    /// Forward: `(select in-window address or sink, in-window address)`.
    guarded: Vec<(Value<'m>, Value<'m>)>,
    /// Reverse: where each reverse iteration `j` starts (`llvm.donothing`
    /// markers, replaced by a call of the window's `ensure`).
    pub(super) hooks: Vec<(Inst<'m>, Value<'m>)>,
}

impl<'m> ThreadCaches<'m> {
    pub(super) fn new(budget: u64) -> ThreadCaches<'m> {
        ThreadCaches {
            budget,
            windows: BTreeMap::new(),
            direct: Vec::new(),
            allowed_stores: HashSet::new(),
            pending: Vec::new(),
            notes: Vec::new(),
            warnings: Vec::new(),
        }
    }
}

impl<'m, 'a> Reverse<'m, 'a> {
    /// Whether loop `l`'s buffers are a window: a GPU loop in combined
    /// mode with no loop around or inside it.
    fn windowed(&self, l: LoopId) -> bool {
        let loops = &self.facts.loops;
        loops.get(l).parent.is_none() && !loops.ids().any(|m| loops.get(m).parent == Some(l))
    }

    /// The forward address at which `gv` (defined in loop `l`, at forward
    /// position `pos`) is stored in its arena buffer `holder`, built with
    /// `fb`; `bound` elements allocated before the terminator of `block`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn thread_cache_address(
        &mut self,
        fb: &Builder<'m>,
        l: LoopId,
        gv: Value<'m>,
        holder: Slot<'m>,
        bound: Value<'m>,
        block: Block<'m>,
        pos: Value<'m>,
    ) -> Value<'m> {
        let ctx = gv.context();
        let (i64t, ptr) = (Ty::int(ctx, 64), Ty::ptr(ctx));
        let region = Region {
            holder,
            elem: gv.ty(),
            bound,
            block,
        };
        let hp = self.sweep.tape.address(fb, holder);
        let data = fb.load(ptr, hp);
        if !self.windowed(l) {
            self.gpu.thread_caches.direct.push(region);
            return fb.gep(gv.ty(), data, &[pos]);
        }
        if !self.gpu.thread_caches.windows.contains_key(&l) {
            let slot = |name: &str| {
                let s = self.sweep.top.alloca(i64t, &format!("{name}.{l}"));
                self.sweep.top.store(self.sweep.top.const_int(i64t, 0), s);
                s
            };
            let (lo, wlen, sp) = (slot("lo"), slot("wlen"), slot("sp"));
            let stack = self.sweep.top.alloca(ptr, &format!("stack.{l}"));
            self.sweep.top.store(self.sweep.top.zero(ptr), stack);
            self.gpu.thread_caches.windows.insert(
                l,
                Window {
                    lo,
                    wlen,
                    sp,
                    stack,
                    buffers: Vec::new(),
                    lo_loads: Vec::new(),
                    guarded: Vec::new(),
                    hooks: Vec::new(),
                },
            );
        }
        let sink = self.sweep.top.alloca(gv.ty(), "cache_sink");
        let w = self
            .gpu
            .thread_caches
            .windows
            .get_mut(&l)
            .expect("just made");
        w.buffers.push(region);
        let lo = fb.load(i64t, w.lo);
        w.lo_loads.push(lo);
        let idx = fb.sub(pos, lo);
        let addr = fb.gep(gv.ty(), data, &[idx]);
        let wlen = fb.load(i64t, w.wlen);
        let inside = fb.icmp(LLVMIntPredicate::LLVMIntULT, idx, wlen);
        let guarded = fb.select(inside, addr, sink);
        w.guarded.push((guarded, addr));
        guarded
    }

    /// Records a forward store a recomputed loop may make (see
    /// `allowed_stores`).
    pub(super) fn thread_cache_store(&mut self, st: Value<'m>) {
        self.gpu.thread_caches.allowed_stores.insert(st);
    }

    /// The reverse position in loop `l`'s buffers: `pos - lo` for a window.
    pub(super) fn thread_cache_position(&mut self, l: LoopId, pos: Value<'m>) -> Value<'m> {
        let Some(w) = self.gpu.thread_caches.windows.get_mut(&l) else {
            return pos;
        };
        let lo = self.b.load(Ty::int(pos.context(), 64), w.lo);
        w.lo_loads.push(lo);
        self.b.sub(pos, lo)
    }

    /// Marks, at the reverse builder's position, the start of reverse
    /// iteration `j` of loop `l` (before any of its caches is read).
    pub(super) fn thread_cache_hook(&mut self, l: LoopId, j: Value<'m>) {
        if !self.gpu.on || self.req.mode != super::Mode::Combined || !self.windowed(l) {
            return;
        }
        let marker = self.b.call_intrinsic("llvm.donothing", &[], &[]);
        self.gpu.thread_caches.pending.push((l, marker, j));
    }

    /// Lays the arena out once the reverse sweep is complete: allocation
    /// code for every region, and for each window either a fixed layout or
    /// the recomputation machinery.
    pub(super) fn finish_thread_caches(&mut self) {
        let tc = &mut self.gpu.thread_caches;
        let pending = std::mem::take(&mut tc.pending);
        for (l, marker, j) in pending {
            match tc.windows.get_mut(&l) {
                Some(w) => w.hooks.push((marker, j)),
                None => marker.erase(),
            }
        }
        if self.gpu.thread_caches.windows.is_empty() && self.gpu.thread_caches.direct.is_empty() {
            return;
        }
        let ctx = self.req.prep.context();
        let (i8t, i64t) = (Ty::int(ctx, 8), Ty::int(ctx, 64));
        // When every region's size is a constant, the array holds just
        // them (each rounded up to 16 for its alignment), if less.
        let module = self.req.prep.global_parent();
        let constant_need = self
            .gpu
            .thread_caches
            .windows
            .values()
            .flat_map(|w| w.buffers.iter())
            .chain(self.gpu.thread_caches.direct.iter())
            .map(|r| {
                let n = u64::try_from(r.bound.const_int_sext()?).ok()?;
                n.checked_mul(r.elem.alloc_size(module))?
                    .checked_add(31)
                    .map(|b| b / 16 * 16)
            })
            .try_fold(0u64, |sum, b| sum.checked_add(b?));
        let budget = match constant_need {
            Some(need) => need.min(self.gpu.thread_caches.budget),
            None => self.gpu.thread_caches.budget,
        }
        .max(16);
        let arena = self
            .sweep
            .top
            .array_alloca(i8t, self.sweep.top.const_int(i64t, budget as i64));
        arena.set_name("thread_cache");
        arena.set_alignment(16);
        let used = self.sweep.top.alloca(i64t, "thread_cache.used");
        self.sweep
            .top
            .store(self.sweep.top.const_int(i64t, 0), used);
        let arena = Arena {
            base: arena,
            used,
            budget,
        };
        let windows = std::mem::take(&mut self.gpu.thread_caches.windows);
        let mut notes = vec![format!(
            "GPU: each thread keeps its loop caches in a {budget}-byte stack array (--gpu-thread-cache), no dynamic allocation"
        )];
        for (l, w) in windows {
            let per_iteration: u64 = w.buffers.iter().map(|r| r.elem.alloc_size(module)).sum();
            let at = super::loop_location(self.facts.loops.get(l))
                .map(|s| format!(" at {s}"))
                .unwrap_or_default();
            let fl = super::replay::ForwardLoop::at(self.map.block(self.facts.loops.get(l).header));
            match self.replay_blocker(l, &fl) {
                None => {
                    notes.push(format!(
                        "GPU: loop {l}{at} caches {per_iteration} bytes per iteration per thread; beyond what fits, its iterations are recomputed from saved states (at most {STACK_DEPTH} kept)"
                    ));
                    self.recomputed_window(&arena, l, &fl, w);
                }
                Some(why) => {
                    let known_to_fit = w.buffers[0]
                        .bound
                        .const_int_sext()
                        .and_then(|n| u64::try_from(n).ok())
                        .is_some_and(|n| n.saturating_mul(per_iteration) <= budget);
                    if !known_to_fit {
                        let fits = budget / per_iteration.max(1);
                        self.gpu.thread_caches.warnings.push(format!(
                            "`{}` (GPU): the loop{at} caches {per_iteration} bytes per iteration in each thread and cannot be recomputed ({why}): a thread that runs it more than {fits} times traps (the per-thread cache is {budget} bytes; raise it with --gpu-thread-cache BYTES, or ENZ_RS_GPU_THREAD_CACHE for the plugin)",
                            self.req.name
                        ));
                    }
                    notes.push(format!(
                        "GPU: loop {l}{at} caches {per_iteration} bytes per iteration per thread and cannot be recomputed ({why}): the gradient traps when a thread's trip count needs more than the per-thread cache holds (about {} iterations); raise --gpu-thread-cache",
                        budget / per_iteration.max(1)
                    ));
                    self.fixed_window(&arena, l, w);
                }
            }
        }
        let sized_at_run_time = self
            .gpu
            .thread_caches
            .direct
            .iter()
            .any(|r| r.bound.const_int_sext().is_none());
        if sized_at_run_time {
            self.gpu.thread_caches.warnings.push(format!(
                "`{}` (GPU): the caches of its nested loops are sized at run time, and it traps when they exceed the per-thread cache of {budget} bytes (--gpu-thread-cache)",
                self.req.name
            ));
        }
        if !self.gpu.thread_caches.direct.is_empty() {
            notes.push("GPU: the caches of nested loops are allocated in the per-thread array when their nest starts; the gradient traps when they do not fit".to_string());
        }
        self.gpu.thread_caches.notes = notes;
        for r in std::mem::take(&mut self.gpu.thread_caches.direct) {
            let b = Builder::new(ctx);
            b.position_before(r.block.terminator().expect("terminator"));
            let size = r.elem.alloc_size(module);
            let bytes = b.mul(r.bound, b.const_int(i64t, size as i64));
            let data = arena.take(&b, bytes, region_alignment(r.elem, module));
            b.store(data, self.sweep.tape.address(&b, r.holder));
        }
    }

    /// A window from iteration 0 (a loop that cannot be recomputed): `lo =
    /// 0`, the guards dropped, as many iterations as fit (at most the
    /// loop's bound), and a trap in the forward sweep at the first
    /// iteration beyond them (the bound may exceed the trip count).
    fn fixed_window(&mut self, arena: &Arena<'m>, l: LoopId, mut w: Window<'m>) {
        let ctx = self.req.prep.context();
        let i64t = Ty::int(ctx, 64);
        let zero = Builder::new(ctx).const_int(i64t, 0);
        for lo in w.lo_loads.drain(..) {
            lo.replace_all_uses_with(zero);
            erase(lo);
        }
        for (guarded, addr) in w.guarded.drain(..) {
            let inside = guarded.operand(0);
            guarded.replace_all_uses_with(addr);
            erase(guarded);
            let wlen = inside.operand(1);
            erase(inside);
            erase(wlen);
        }
        for (marker, _) in w.hooks.drain(..) {
            marker.erase();
        }
        let per_iteration = w.sort_regions(self.req.prep.global_parent());
        let (block, bound) = (w.buffers[0].block, w.buffers[0].bound);
        let b = Builder::new(ctx);
        b.position_before(block.terminator().expect("terminator"));
        let k = |v: u64| b.const_int(i64t, v as i64);
        let (u, rem) = arena.free(&b);
        let room = b.udiv(rem, k(per_iteration.max(1)));
        let short = b.icmp(LLVMIntPredicate::LLVMIntULT, room, bound);
        let wlen = b.select(short, room, bound);
        let at = b.gep(Ty::int(ctx, 8), arena.base, &[u]);
        self.lay_out_regions(&b, at, wlen, &w.buffers);
        b.store(b.add(u, b.mul(wlen, k(per_iteration))), arena.used);
        // Each iteration checks that it fits, after its position is known.
        let pos = self.caches.loops[&l].pos;
        let cb = Builder::new(ctx);
        cb.position_after(pos.as_inst().expect("a loop position is an instruction"));
        trap_unless(&cb, cb.icmp(LLVMIntPredicate::LLVMIntULT, pos, wlen));
    }
}

impl<'m> Window<'m> {
    /// Orders the window's regions most aligned first (then each starts
    /// aligned, an element's size being a multiple of its alignment);
    /// the bytes one iteration caches.
    pub(super) fn sort_regions(&mut self, module: crate::ir::Module<'m>) -> u64 {
        self.buffers
            .sort_by_key(|r| std::cmp::Reverse(region_alignment(r.elem, module)));
        self.buffers.iter().map(|r| r.elem.alloc_size(module)).sum()
    }
}

impl<'m, 'a> Reverse<'m, 'a> {
    /// Gives each of `regions` (sorted: `Window::sort_regions`) `wlen`
    /// elements, one after another from `at`, built with `b`.
    pub(super) fn lay_out_regions(
        &self,
        b: &Builder<'m>,
        mut at: Value<'m>,
        wlen: Value<'m>,
        regions: &[Region<'m>],
    ) {
        let module = self.req.prep.global_parent();
        let (i8t, i64t) = (Ty::int(b.ctx(), 8), Ty::int(b.ctx(), 64));
        for r in regions {
            b.store(at, self.sweep.tape.address(b, r.holder));
            let size = b.const_int(i64t, r.elem.alloc_size(module) as i64);
            at = b.gep(i8t, at, &[b.mul(wlen, size)]);
        }
    }
}

/// The arena: its base, the slot counting the bytes taken, its size.
pub(super) struct Arena<'m> {
    pub(super) base: Value<'m>,
    pub(super) used: Value<'m>,
    pub(super) budget: u64,
}

impl<'m> Arena<'m> {
    /// At `b`'s position: the first 16-aligned byte not taken, and the
    /// bytes left from it (0 when none).
    pub(super) fn free(&self, b: &Builder<'m>) -> (Value<'m>, Value<'m>) {
        let i64t = Ty::int(b.ctx(), 64);
        let budget = b.const_int(i64t, self.budget as i64);
        let u = round_up(b, b.load(i64t, self.used), 16);
        let over = b.icmp(LLVMIntPredicate::LLVMIntUGT, u, budget);
        let rem = b.select(over, b.const_int(i64t, 0), b.sub(budget, u));
        (u, rem)
    }

    /// Takes `bytes` aligned to `align` at `b`'s position; traps when they
    /// do not fit.
    fn take(&self, b: &Builder<'m>, bytes: Value<'m>, align: u64) -> Value<'m> {
        let i64t = Ty::int(b.ctx(), 64);
        let u = round_up(b, b.load(i64t, self.used), align);
        let nu = b.add(u, bytes);
        let fits = b.icmp(
            LLVMIntPredicate::LLVMIntULE,
            nu,
            b.const_int(i64t, self.budget as i64),
        );
        trap_unless(b, fits);
        b.store(nu, self.used);
        b.gep(Ty::int(b.ctx(), 8), self.base, &[u])
    }
}

/// `x` rounded up to a multiple of `align` (a power of two).
pub(super) fn round_up<'m>(b: &Builder<'m>, x: Value<'m>, align: u64) -> Value<'m> {
    let i64t = Ty::int(b.ctx(), 64);
    let a = align.max(1) as i64;
    b.and(b.add(x, b.const_int(i64t, a - 1)), b.const_int(i64t, -a))
}

/// How a region of `elem`s is aligned: as the heap would align it.
pub(super) fn region_alignment<'m>(elem: Ty<'m>, module: crate::ir::Module<'m>) -> u64 {
    u64::from(crate::synth::tape::heap_alignment(elem, module))
}

/// Erases an instruction left without uses.
fn erase<'m>(v: Value<'m>) {
    if let Some(i) = v.as_inst() {
        if !v.has_uses() {
            i.erase();
        }
    }
}
