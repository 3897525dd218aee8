//! Reverse mode: gradient functions, and augmented-primal/reverse pairs for
//! callees.
//!
//! ```text
//!   entry ─ forward sweep (primal + shadows) ─┬─ exit₁ ─► invert_exit₁ ─┐
//!                                             └─ exit₂ ─► invert_exit₂ ─┤
//!      reverse blocks walk the reversed CFG, choosing the predecessor    │
//!      from a "came from" phi recorded in the forward sweep  ◄───────────┘
//!                                 ... ─► invert_entry ─► invert_return
//! ```
//!
//! In [`Mode::Combined`] both sweeps live in one function (`diffe_f`, what
//! `__enzyme_autodiff` calls). In [`Mode::Split`] the forward sweep is the
//! augmented primal `augmented_f`, which returns a heap tape holding every
//! value the reverse sweep needs, and the reverse sweep is `reverse_f`,
//! which takes the tape (used for calls, recursion included).
//!
//! Adjoints of SSA values live in zero-initialised stack slots (post-opt
//! turns them into registers); reading one resets it to zero.

mod calls;
mod explain;
mod lanes;
mod loops;
mod masked;
mod math_calls;
mod math_rules;
mod memory;
pub(crate) mod plan;
pub(crate) use plan::combined_plan;
use plan::{deferrable_frees, loop_nest};
mod release;
mod replay;
mod thread_cache;
mod values;

use super::adjoint;
use super::emit::{emit, Operands};
use super::registry::Registry;
use super::rules::{lookup, OpKey, PrimalUses, Rule};
use super::shadow::ShadowMap;
use super::tape::{Slot, Tape};
use crate::analysis::activity::{Activity, ActivityInputs, ArgFact};
use crate::analysis::calls::{CallKinds, Direction};
use crate::analysis::cfg::Cfg;
use crate::analysis::gpu::GpuAccesses;
use crate::analysis::loops::{LoopId, LoopNest};
use crate::analysis::types::TypeAnalysis;
use crate::analysis::writes::Rereadable;
use crate::diag::Diagnostic;
use crate::ir::LLVMOpcode;
use crate::ir::{
    add_internal_function, clone_body, Block, Builder, Function, Inst, Ty, Value, ValueMap,
};
use crate::preprocess::copy_derivative_attributes;
use crate::signature::{ArgActivity, Kind, Param, Signature};
pub(super) use explain::loop_location;
pub(crate) use loops::exit_iteration;
use loops::{Buffer, LoopState};
use std::collections::{HashMap, HashSet};

/// Whether both sweeps share one function.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Mode {
    /// `diffe_f(args, shadows) -> {adjoints}`, return seeded with 1.0.
    Combined,
    /// `augmented_f(args, shadows) -> {tape, ret?, shadow ret?}` and
    /// `reverse_f(args, shadows, dret?, tape) -> {adjoints}`.
    Split,
}

/// What to differentiate and how.
pub(crate) struct GradientRequest<'m, 'a> {
    /// The preprocessed function.
    pub(crate) prep: Function<'m>,
    /// The user's name for it (for names and diagnostics).
    pub(crate) name: &'a str,
    /// Activity of each parameter.
    pub(crate) args: &'a [ArgActivity],
    /// Whether the floating return is active.
    pub(crate) ret_active: bool,
    /// Whether a returned pointer needs a shadow.
    pub(crate) ret_shadowed: bool,
    pub(crate) mode: Mode,
    /// Reverse sweeps, each with its own shadows (vector reverse mode,
    /// combined mode only); 1 otherwise.
    pub(crate) width: u32,
    /// Split mode: also build this release function (see `release.rs`).
    pub(crate) release: Option<Function<'m>>,
}

/// The functions a request produces.
#[derive(Copy, Clone, Debug)]
pub struct Derivative<'m> {
    /// The function holding the forward sweep (`diffe_f` or `augmented_f`).
    pub forward: Function<'m>,
    /// The function holding the reverse sweep (the same in combined mode).
    pub reverse: Function<'m>,
}

/// The parameters of `f`, a derivative of `prep` with signature `sig`:
/// `prep`'s parameters to their primal copies, and to their shadows (named
/// after them), one map per lane.
fn bind_params<'m>(
    sig: &Signature<'m>,
    prep: Function<'m>,
    f: Function<'m>,
) -> (
    HashMap<Value<'m>, Value<'m>>,
    Vec<HashMap<Value<'m>, Value<'m>>>,
) {
    let primal = prep.params();
    let mut copies = HashMap::new();
    let mut shadows = vec![HashMap::new()];
    for ((param, _), v) in sig.params().iter().zip(f.params()) {
        match *param {
            Param::Primal(k) => {
                v.set_name(&primal[k].name());
                copies.insert(primal[k], v);
            }
            Param::Shadow { of, lane } => {
                let lane = lane as usize;
                if lane == 0 {
                    v.set_name(&format!("d_{}", primal[of].name()));
                } else {
                    v.set_name(&format!("d{lane}_{}", primal[of].name()));
                }
                if shadows.len() <= lane {
                    shadows.resize_with(lane + 1, HashMap::new);
                }
                shadows[lane].insert(primal[of], v);
            }
            _ => {}
        }
    }
    (copies, shadows)
}

/// Creates a new internal function `name` of type `fty` in `like`'s module.
pub(crate) fn new_function<'m>(like: Function<'m>, name: &str, fty: Ty<'m>) -> Function<'m> {
    let f = add_internal_function(like.global_parent(), name, fty);
    copy_derivative_attributes(like, f);
    f
}

/// Fills in the body of a derivative whose functions already exist (so
/// that recursive calls can refer to them). Returns the size in bytes of
/// the heap tape (0 in combined mode).
pub(crate) fn synthesize<'m>(
    req: &GradientRequest<'m, '_>,
    fns: Derivative<'m>,
    registry: &mut Registry<'m>,
) -> Result<u64, Vec<Diagnostic>> {
    let start = std::time::Instant::now();
    let cfg = Cfg::new(req.prep);
    let loops = loop_nest(&cfg, req.name)?;
    let facts: Vec<ArgFact> = req
        .args
        .iter()
        .map(|a| match a {
            ArgActivity::Out => ArgFact::Active,
            ArgActivity::Dup | ArgActivity::DupNoNeed => ArgFact::Shadowed,
            ArgActivity::Const => ArgFact::Const,
        })
        .collect();
    let activity = Activity::analyse(
        req.prep,
        &ActivityInputs {
            args: &facts,
            ret_active: req.ret_active,
            ret_shadowed: req.ret_shadowed,
            calls: registry.call_facts(),
            shadowed_globals: registry.user_shadowed_globals(),
            inactive_globals: registry.user_inactive_globals(),
        },
    );
    let types = TypeAnalysis::analyse(req.prep);
    let deferred_frees = deferrable_frees(req.prep, req.mode, &cfg, &loops, registry.call_facts());
    let rereadable = Rereadable::analyse(req.prep, &deferred_frees, registry.call_facts());
    let call_kinds = CallKinds::of(req.prep, registry.call_facts(), Direction::Reverse);
    let gpu_accesses = super::gpu::is_gpu_module(req.prep)
        .then(|| GpuAccesses::of(req.prep, |c| call_kinds.get(c).is_inactive()));
    if gpu_accesses.is_some() && req.width > 1 {
        return Err(vec![Diagnostic::new(
            "enzyme_width in reverse mode is not supported in GPU kernels",
        )
        .in_function(req.name)]);
    }
    let plan = plan::Plan::new(req.prep, req.mode, &cfg, &loops, &rereadable);
    let facts = Facts {
        math_calls: math_calls::PrimalMathCalls::new(req.prep, &call_kinds),
        cfg,
        act: activity,
        types,
        loops,
        call_kinds,
        gpu_accesses,
        plan,
        rereadable,
        deferrable_frees: deferred_frees,
        allocators: registry.allocators(),
    };
    registry.timings.analyses += start.elapsed();
    let mut r = Reverse::new(req, fns, facts);
    r.describe_caches = registry.explain;
    r.thread_caches.budget = registry.gpu_thread_cache;
    r.build(registry);
    if r.diags.is_empty() && r.req.mode == Mode::Combined && r.req.width == 1 && !r.gpu {
        r.tag_disjoint_memory();
    }
    if r.diags.is_empty() {
        let mut e = r.explanation();
        e.notes = registry
            .plan_notes
            .get(&req.prep)
            .cloned()
            .unwrap_or_default();
        e.notes.append(&mut r.thread_caches.notes);
        registry.warnings.append(&mut r.thread_caches.warnings);
        registry.explanations.push(e);
        Ok(r.tape.size())
    } else {
        Err(r.diags)
    }
}

/// What the analyses and the plan say about the primal function of one
/// derivative: computed before emission, read only during it.
pub(super) struct Facts<'m> {
    cfg: Cfg<'m>,
    act: Activity<'m>,
    /// What values and memory hold, for memory intrinsics.
    types: TypeAnalysis<'m>,
    loops: LoopNest<'m>,
    /// The kind of every call of the primal.
    call_kinds: CallKinds<'m>,
    /// GPU: the accesses of every object, for choosing how adjoints are
    /// accumulated (None on the CPU).
    gpu_accesses: Option<GpuAccesses<'m>>,
    /// How each primal value reaches the reverse sweep.
    plan: plan::Plan<'m>,
    /// The primal's math calls, for reuse in adjoints.
    math_calls: math_calls::PrimalMathCalls<'m>,
    /// The loads whose memory nothing after them may write (what a GPU
    /// loop replayed in the reverse sweep may read: `replay.rs`).
    rereadable: Rereadable<'m>,
    /// The `free` calls that may wait for the end of the reverse sweep
    /// (see `deferrable_frees`).
    deferrable_frees: HashSet<Value<'m>>,
    /// The user's allocators (`__enzyme_allocation_like`), whose shadows
    /// are freed with their deallocators.
    allocators: HashMap<Function<'m>, crate::analysis::calls::AllocationLike<'m>>,
}

/// The state of one synthesis: the derivative's functions, the maps from
/// primal values to what emission made of them, and the tape.
pub(super) struct Reverse<'m, 'a> {
    req: &'a GradientRequest<'m, 'a>,
    /// What the analyses and the plan say about the primal (read only).
    facts: Facts<'m>,
    fns: Derivative<'m>,
    /// Primal (preprocessed) values to their forward-sweep clones.
    map: ValueMap<'m>,
    /// Primal parameters to the reverse function's parameters.
    rev_params: HashMap<Value<'m>, Value<'m>>,
    /// Shadows of `dup` parameters in the reverse function.
    rev_shadow_params: HashMap<Value<'m>, Value<'m>>,
    /// The signature of the function holding the reverse sweep.
    rev_sig: Signature<'m>,
    /// The current lane's shadows (see `lanes.rs`).
    shadows: ShadowMap<'m>,
    /// Vector reverse mode: the lane being built, and the other lanes'
    /// shadows and shadow parameters, parked while it is.
    lane: usize,
    parked: Vec<Option<lanes::LaneShadows<'m>>>,
    /// Vector reverse mode: the adjoints each finished lane returns.
    lane_outs: Vec<Vec<Value<'m>>>,
    /// The exits the reverse sweep starts from, and (vector reverse mode
    /// with several) a slot saying which one the forward sweep took.
    live_exits: Vec<Block<'m>>,
    exit_taken: Option<Value<'m>>,
    /// Split mode with several exits: the tape slot saying which one.
    split_exit_slot: Option<Slot<'m>>,
    /// Building a release function (see `release.rs`): frees only.
    releasing: bool,
    tape: Tape<'m>,
    /// Builds in the reverse sweep.
    b: Builder<'m>,
    /// Positioned at the top of the reverse function's entry, for slots.
    top: Builder<'m>,
    adjoints: HashMap<Value<'m>, Value<'m>>,
    rev: HashMap<Block<'m>, Block<'m>>,
    came_from: HashMap<Block<'m>, Value<'m>>,
    /// Split mode: the tape pointer in the reverse function.
    rev_tape: Option<Value<'m>>,
    /// Forward-sweep calls to augmented primals: primal call -> (tape in
    /// the forward sweep, signature, reverse function).
    aug_calls: HashMap<Value<'m>, calls::AugmentedCall<'m>>,
    /// Vector reverse mode: calls of functions that write no memory, left
    /// as they are in the forward sweep and differentiated lane by lane in
    /// the reverse sweeps (`calls.rs`).
    lane_calls: HashMap<Value<'m>, calls::LaneCall<'m>>,
    /// Tape slots of forward values read by the reverse sweep.
    cache_slots: HashMap<Value<'m>, Slot<'m>>,
    loop_states: HashMap<LoopId, LoopState<'m>>,
    /// Loop buffers of forward values.
    loop_buffers: HashMap<Value<'m>, Buffer<'m>>,
    buffers: Vec<Buffer<'m>>,
    /// For `--explain`: the values cached, with the loop whose buffer
    /// holds each (None: a tape slot), described when cached (a forward
    /// value may be replaced later); forward values back to the primal
    /// instructions they clone (made at the first cache); and the primal
    /// values the reverse sweep asked for.
    explained_caches: Vec<(Option<LoopId>, crate::explain::CachedValue)>,
    /// Whether `explained_caches` describe each value by its text.
    describe_caches: bool,
    primal_of: Option<HashMap<Value<'m>, Value<'m>>>,
    explained_uses: HashSet<Value<'m>>,
    /// The reverse function's name (`fns.reverse` is the release
    /// function while that is built).
    reverse_name: String,
    /// Whether this is GPU (NVPTX) code: many threads run the sweep.
    gpu: bool,
    /// GPU: loops reported for caching with no trip bound (once each).
    unbounded_gpu_loops: HashSet<LoopId>,
    /// GPU, combined mode: the per-thread cache array (`thread_cache.rs`).
    thread_caches: thread_cache::ThreadCaches<'m>,
    /// GPU: per-thread sums of adjoints for addresses every thread shares
    /// (primal pointer, stack slot), reduced over the block at the end.
    block_sums: Vec<(Value<'m>, Value<'m>)>,
    /// Combined mode: the primal's `free`/`delete` calls, made at the end
    /// of the reverse sweep instead (which may still read that memory).
    deferred_frees: Vec<Inst<'m>>,
    /// The forward sweep's calls that were invokes in the primal, with the
    /// primal's invoke block and the landing pad (in the forward sweep):
    /// built as calls, made invokes again at the end.
    detached: Vec<(Inst<'m>, Block<'m>, Block<'m>)>,
    diags: Vec<Diagnostic>,
}

impl<'m, 'a> Reverse<'m, 'a> {
    fn new(
        req: &'a GradientRequest<'m, 'a>,
        fns: Derivative<'m>,
        facts: Facts<'m>,
    ) -> Reverse<'m, 'a> {
        let p = req.prep;
        let ctx = p.context();
        let g = fns.forward;
        let (fwd_kind, rev_kind) = match req.mode {
            Mode::Combined if req.width > 1 => {
                let k = Kind::VectorGradient { width: req.width };
                (k, k)
            }
            Mode::Combined => (Kind::Gradient, Kind::Gradient),
            Mode::Split => (Kind::Augmented, Kind::Reverse),
        };
        let fty = p.function_type();
        let fwd_sig = Signature::new(fwd_kind, fty, req.args, req.ret_active);
        let rev_sig = Signature::new(rev_kind, fty, req.args, req.ret_active);
        let (fwd_params, mut fwd_shadow_params) = bind_params(&fwd_sig, p, g);
        let mut map = ValueMap::default();
        for (a, v) in &fwd_params {
            map.insert(*a, *v);
        }
        let (rev_params, mut rev_shadow_params) = match req.mode {
            Mode::Combined => (fwd_params, fwd_shadow_params.clone()),
            Mode::Split => bind_params(&rev_sig, p, fns.reverse),
        };
        let width = req.width.max(1) as usize;
        fwd_shadow_params.resize_with(width, HashMap::new);
        rev_shadow_params.resize_with(width, HashMap::new);
        let parked: Vec<Option<lanes::LaneShadows>> = fwd_shadow_params
            .drain(1..)
            .zip(rev_shadow_params.drain(1..))
            .map(|(fwd, rev)| {
                Some(lanes::LaneShadows {
                    shadows: ShadowMap::new(fwd),
                    rev_params: rev,
                })
            })
            .collect();
        let parked = std::iter::once(None).chain(parked).collect();
        let fwd_shadow_params = fwd_shadow_params.pop().expect("lane 0");
        let rev_shadow_params = rev_shadow_params.pop().expect("lane 0");
        clone_body(p, g, &mut map, false);
        let detached = super::unwind::detach_invokes(p, &mut map);
        // A block of its own for stack slots, ahead of the cloned entry, so
        // that no instruction the synthesis later replaces is an insertion
        // point.
        let old_entry = g.entry_block();
        let slots = old_entry.insert_block_before("slots");
        let sb = Builder::new(ctx);
        sb.position_at_end(slots);
        sb.br(old_entry);
        let tape = match req.mode {
            Mode::Combined => Tape::stack(g),
            Mode::Split => Tape::heap(g),
        };
        let top = Builder::new(ctx);
        if req.mode == Mode::Split {
            let entry = fns.reverse.append_block("entry");
            top.position_at_end(entry);
        } else {
            top.position_before(slots.terminator().expect("just built"));
        }
        Reverse {
            gpu: facts.gpu_accesses.is_some(),
            unbounded_gpu_loops: HashSet::new(),
            thread_caches: thread_cache::ThreadCaches::new(0),
            facts,
            req,
            fns,
            map,
            rev_params,
            rev_shadow_params,
            rev_sig,
            shadows: ShadowMap::new(fwd_shadow_params),
            lane: 0,
            parked,
            lane_outs: Vec::new(),
            live_exits: Vec::new(),
            exit_taken: None,
            split_exit_slot: None,
            releasing: false,
            tape,
            b: Builder::new(ctx),
            top,
            adjoints: HashMap::new(),
            rev: HashMap::new(),
            came_from: HashMap::new(),
            rev_tape: None,
            aug_calls: HashMap::new(),
            lane_calls: HashMap::new(),
            cache_slots: HashMap::new(),
            loop_states: HashMap::new(),
            loop_buffers: HashMap::new(),
            buffers: Vec::new(),
            explained_caches: Vec::new(),
            describe_caches: false,
            primal_of: None,
            explained_uses: HashSet::new(),
            reverse_name: fns.reverse.name(),
            block_sums: Vec::new(),
            deferred_frees: Vec::new(),
            detached,
            diags: Vec::new(),
        }
    }

    fn build(&mut self, registry: &mut Registry<'m>) {
        let live = self.facts.cfg.live_blocks();
        self.augment_forward(registry);
        self.zero_shared_shadows();
        let mut ret_block = self.reverse_blocks(&live);
        self.setup_loops();
        self.record_came_from(&live);
        self.finish_exits();
        for blk in &live {
            self.reverse_block(*blk, ret_block);
        }
        // Vector reverse mode: the next lane's sweep starts where this
        // one returned.
        for lane in 1..self.req.width.max(1) as usize {
            self.b.position_at_end(ret_block);
            let outs = self.adjoint_outs();
            self.lane_outs.push(outs);
            self.switch_lane(lane);
            self.adjoints = HashMap::new();
            let next_ret = self.reverse_blocks(&live);
            let start = self.lane_start();
            self.b.position_at_end(ret_block);
            self.b.br(start);
            ret_block = next_ret;
            for blk in &live {
                self.reverse_block(*blk, ret_block);
            }
        }
        self.build_return(ret_block);
        if let Some(rf) = self.req.release {
            self.build_release(rf, &live);
        }
        self.finish_thread_caches();
        self.tape.finish(&self.top, self.rev_tape);
        let _ = super::unwind::reattach_invokes(std::mem::take(&mut self.detached));
    }

    /// The forward call `old` of a primal invoke was replaced by `new`.
    fn replaced_call(&mut self, old: Inst<'m>, new: Inst<'m>) {
        super::unwind::replaced_call(&mut self.detached, old, new);
    }

    /// The forward sweep's additions to the cloned primal: shadows of
    /// pointers, shadow stores of pointers, and calls to augmented primals.
    /// Lane by lane in vector reverse mode, lane 0 (which also does what
    /// is not per lane: calls of augmented primals, deferred frees) last.
    fn augment_forward(&mut self, registry: &mut Registry<'m>) {
        for lane in (0..self.req.width.max(1) as usize).rev() {
            self.switch_lane(lane);
            for blk in self.facts.cfg.rpo() {
                for i in blk.instructions() {
                    self.augment_instruction(i, registry);
                }
            }
            self.shadows.finish_phis(&self.map);
        }
    }

    /// GPU shared-memory shadows start zeroed: cleared by the block's
    /// threads together at the start of the gradient, then a barrier.
    fn zero_shared_shadows(&mut self) {
        use crate::synth::registry::SHARED_ADDRESS_SPACE;
        if !self.gpu || self.req.mode != Mode::Combined {
            return;
        }
        let shared: Vec<Value> = self
            .shadows
            .globals()
            .into_iter()
            .filter(|(g, _)| g.ty().address_space() == SHARED_ADDRESS_SPACE)
            .map(|(_, s)| s)
            .collect();
        if shared.is_empty() {
            return;
        }
        let ctx = self.req.prep.context();
        let g = self.fns.forward;
        let slots = g.entry_block();
        let first = self.map.block(self.req.prep.entry_block());
        let init = first.insert_block_before("zero_shared");
        let br = slots.terminator().expect("slots block");
        br.set_operand(0, init.as_value());
        let b = Builder::new(ctx);
        b.position_at_end(init);
        for s in shared {
            let bytes = s.global_value_type().alloc_size(s.module());
            let generic = b.addrspace_cast(s, Ty::ptr(ctx));
            super::gpu::zero_shared(&b, generic, bytes);
        }
        b.br(first);
    }

    /// For blocks with several predecessors, a phi in the forward sweep
    /// saying which one control came from.
    fn record_came_from(&mut self, live: &[Block<'m>]) {
        let i32t = Ty::int(self.req.prep.context(), 32);
        for blk in live {
            let preds = self.facts.cfg.unique_preds(*blk);
            // Loop headers are left by counting, not by recording.
            if preds.len() < 2 || self.facts.loops.header_of(*blk).is_some() {
                continue;
            }
            let gb = self.map.block(*blk);
            let fb = Builder::new(self.req.prep.context());
            match gb.first_instruction() {
                Some(i) => fb.position_before(i),
                None => fb.position_at_end(gb),
            }
            let phi = fb.phi(i32t, "came_from");
            for p in self.facts.cfg.preds(*blk) {
                let idx = preds.iter().position(|q| q == p).unwrap_or(0);
                phi.add_incoming(fb.i32(idx as i64), self.map.block(*p));
            }
            self.came_from.insert(*blk, phi.into());
        }
    }

    /// Replaces each `ret` of the forward sweep: in combined mode by a
    /// branch into the reverse sweep; in split mode by recording the exit
    /// in the tape and returning `{tape, ret, shadow ret}`.
    fn finish_exits(&mut self) {
        let exits: Vec<Block> = self
            .facts
            .cfg
            .blocks
            .iter()
            .filter(|b| b.terminator().and_then(|t| t.opcode()) == Some(LLVMOpcode::LLVMRet))
            .copied()
            .collect();
        let live_exits: Vec<Block> = exits
            .iter()
            .filter(|e| self.rev.contains_key(e))
            .copied()
            .collect();
        let fb = Builder::new(self.req.prep.context());
        let exit_slot = (self.req.mode == Mode::Split && live_exits.len() > 1)
            .then(|| self.tape.reserve(Ty::int(self.req.prep.context(), 32)));
        self.live_exits = live_exits.clone();
        if self.req.width > 1 && live_exits.len() > 1 {
            let i32t = Ty::int(self.req.prep.context(), 32);
            self.exit_taken = Some(self.top.alloca(i32t, "exit_taken"));
        }
        for blk in exits {
            let t = blk.terminator().expect("exit");
            let gt = self.map.inst(t);
            fb.position_before(gt);
            match (self.req.mode, self.rev.get(&blk)) {
                (_, None) => {
                    fb.unreachable();
                }
                (Mode::Combined, Some(rb)) => {
                    if let Some(slot) = self.exit_taken {
                        let k = live_exits.iter().position(|e| *e == blk).unwrap_or(0);
                        fb.store(fb.i32(k as i64), slot);
                    }
                    fb.br(*rb);
                }
                (Mode::Split, Some(_)) => {
                    if let Some(slot) = exit_slot {
                        let k = live_exits.iter().position(|e| *e == blk).unwrap_or(0);
                        self.tape.store(&fb, slot, fb.i32(k as i64));
                    }
                    let sty = self.fns.forward.function_type().return_type();
                    let mut agg = fb.poison(sty);
                    agg = fb.insert_value(agg, self.tape.pointer(), 0);
                    let mut field = 1;
                    if t.num_operands() == 1 {
                        let r = t.operand(0);
                        agg = fb.insert_value(agg, self.map.get(r), field);
                        field += 1;
                        if r.ty().kind() == crate::ir::TyKind::Pointer {
                            let s = self.shadows.forward(r).unwrap_or_else(|| fb.zero(r.ty()));
                            agg = fb.insert_value(agg, s, field);
                        }
                    }
                    fb.ret(Some(agg));
                }
            }
            gt.erase();
        }
        if self.req.mode == Mode::Split {
            self.split_exit_slot = exit_slot;
            self.enter_split_reverse();
        }
    }

    /// The entry of a split reverse function (`self.fns.reverse`, whose
    /// entry block `self.top` builds in): read the tape and branch to the
    /// reverse block of the exit the augmented function left by.
    fn enter_split_reverse(&mut self) {
        let tape_param = self.rev_param(Param::Tape);
        tape_param.set_name("tape");
        self.rev_tape = Some(tape_param);
        let targets: Vec<Block> = self.live_exits.iter().map(|e| self.rev[e]).collect();
        let entry = self.top.insert_block();
        let eb = Builder::new(self.req.prep.context());
        eb.position_at_end(entry);
        match self.split_exit_slot {
            Some(slot) if targets.len() > 1 => {
                let k = self.tape.load(&eb, tape_param, slot);
                let cases: Vec<(Value, Block)> = targets
                    .iter()
                    .enumerate()
                    .skip(1)
                    .map(|(i, b)| (eb.i32(i as i64), *b))
                    .collect();
                eb.switch(k, targets[0], &cases);
            }
            _ => match targets.first() {
                Some(t) => {
                    eb.br(*t);
                }
                None => {
                    eb.unreachable();
                }
            },
        }
        let first = entry.terminator().expect("just built");
        self.top.position_before(first);
    }

    fn reverse_block(&mut self, blk: Block<'m>, ret_block: Block<'m>) {
        let rb = self.rev[&blk];
        self.b.position_at_end(rb);
        if self.releasing {
            return self.release_block(blk, ret_block);
        }
        if let Some(t) = blk.terminator() {
            if t.opcode() == Some(LLVMOpcode::LLVMRet)
                && t.num_operands() == 1
                && self.req.ret_active
            {
                let r = t.operand(0);
                let seed = match self.req.mode {
                    Mode::Combined => self.b.const_float(r.ty(), 1.0),
                    Mode::Split => self.dret_param(),
                };
                self.accumulate(r, seed);
            }
        }
        let insts = blk.instructions();
        for i in insts.iter().rev() {
            if i.opcode() == Some(LLVMOpcode::LLVMPHI) || Some(*i) == blk.terminator() {
                continue;
            }
            // The adjoint code of an instruction is at its source line.
            self.b.set_location_of(Some(*i));
            self.reverse_instruction(*i);
            self.b.set_location_of(None);
        }
        // An invoke completed along this edge: its reverse sweep runs here,
        // not on the way back from its landing pad (a call that threw).
        if let Some(inv) = super::unwind::invoke_completed_into(&self.facts.cfg, blk) {
            self.reverse_call(inv);
        }
        self.reverse_phis_and_branch(blk, ret_block);
    }

    /// The `dret` parameter of a split reverse function.
    fn dret_param(&self) -> Value<'m> {
        self.rev_param(Param::ReturnAdjoint)
    }

    /// The reverse function's parameter carrying `p`.
    fn rev_param(&self, p: Param) -> Value<'m> {
        let k = self.rev_sig.param_index(p);
        self.fns.reverse.params()[k.expect("the reverse function's signature has it")]
    }

    fn reverse_instruction(&mut self, i: Inst<'m>) {
        use LLVMOpcode::*;
        let op = i.opcode().expect("instruction");
        match op {
            LLVMStore => return self.reverse_store(i),
            LLVMAtomicRMW => return self.reverse_atomic_add(i),
            LLVMCall => return self.reverse_call(i),
            LLVMAlloca => return self.reverse_alloca(i),
            _ => {}
        }
        if !self.facts.act.is_active(i.as_value()) {
            return;
        }
        match op {
            LLVMLoad => self.reverse_load(i),
            LLVMExtractValue => {
                let d = self.take_adjoint(i.as_value());
                let path = i.indices();
                let agg = i.operand(0);
                let c = adjoint::zero_with(&self.b, agg.ty(), d, &path);
                self.accumulate(agg, c);
            }
            LLVMInsertValue => {
                let d = self.take_adjoint(i.as_value());
                let path = i.indices();
                let (agg, val) = (i.operand(0), i.operand(1));
                let dv = adjoint::extract_path(&self.b, d, &path);
                self.accumulate(val, dv);
                let rest = adjoint::replace_path(&self.b, d, self.b.zero(val.ty()), &path);
                self.accumulate(agg, rest);
            }
            LLVMExtractElement => {
                let d = self.take_adjoint(i.as_value());
                let vec = i.operand(0);
                let idx = self.primal(i.operand(1));
                let c = self.b.insert_element(self.b.zero(vec.ty()), d, idx);
                self.accumulate(vec, c);
            }
            LLVMInsertElement => {
                let d = self.take_adjoint(i.as_value());
                let (vec, val) = (i.operand(0), i.operand(1));
                let idx = self.primal(i.operand(2));
                let dv = self.b.extract_element(d, idx);
                self.accumulate(val, dv);
                let rest = self.b.insert_element(d, self.b.zero(val.ty()), idx);
                self.accumulate(vec, rest);
            }
            LLVMShuffleVector => self.reverse_shuffle(i),
            _ => match lookup(OpKey::Inst(op)) {
                Some(rule) => self.apply_rule(i, rule, i.num_operands()),
                None => {
                    let msg = format!(
                        "cannot differentiate the `{}` instruction",
                        opcode_name(i.as_value())
                    );
                    self.unsupported(i, &msg)
                }
            },
        }
    }

    pub(super) fn apply_rule(&mut self, i: Inst<'m>, rule: &Rule, nops: u32) {
        let d = self.take_adjoint(i.as_value());
        let ops: Vec<Value> = (0..nops).map(|k| i.operand(k)).collect();
        let needed: Vec<usize> = (0..ops.len())
            .filter(|k| {
                rule.adjoints.get(*k).is_some_and(Option::is_some)
                    && self.facts.act.is_active(ops[*k])
            })
            .collect();
        if needed.is_empty() {
            return;
        }
        // Only the primal values the chosen formulas mention are fetched.
        let mut uses = PrimalUses::default();
        for k in &needed {
            uses.collect(rule.adjoints[*k].as_ref().expect("checked"));
        }
        let args: Vec<Value> = ops
            .iter()
            .enumerate()
            .map(|(k, o)| {
                if uses.args.contains(&k) {
                    self.primal(*o)
                } else {
                    *o
                }
            })
            .collect();
        let ret = uses.ret.then(|| self.primal(i.as_value()));
        for k in needed {
            let mut given = Vec::new();
            let expr = self.reuse_primal_math(
                i,
                &ops,
                rule.adjoints[k].as_ref().expect("checked"),
                &mut given,
            );
            let expr = &expr;
            let o = Operands {
                args: &args,
                ret,
                rets: &[],
                dret: d,
                drets: &[d],
                dargs: &[],
                ty: i.ty(),
                given: &given,
            };
            let c = emit(&self.b, expr, &o);
            self.accumulate(ops[k], c);
        }
    }

    fn reverse_shuffle(&mut self, i: Inst<'m>) {
        let d = self.take_adjoint(i.as_value());
        let (a, bv) = (i.operand(0), i.operand(1));
        let n0 = a.ty().len() as u32;
        let mut acc = [self.b.zero(a.ty()), self.b.zero(bv.ty())];
        for (j, m) in i.shuffle_mask().into_iter().enumerate() {
            let Some(m) = m else { continue };
            let (which, lane) = if m < n0 { (0, m) } else { (1, m - n0) };
            let dj = self.b.extract_element(d, self.b.i32(j as i64));
            let lane_v = self.b.i32(i64::from(lane));
            let old = self.b.extract_element(acc[which], lane_v);
            acc[which] = self
                .b
                .insert_element(acc[which], self.b.fadd(old, dj), lane_v);
        }
        self.accumulate(a, acc[0]);
        self.accumulate(bv, acc[1]);
    }

    /// Tags the finished gradient's primal and shadow memory accesses as
    /// disjoint (`synth/disjoint.rs`).
    fn tag_disjoint_memory(&self) {
        let primal = crate::synth::disjoint::primal_pointers(self.req.prep, &self.map);
        let shadow: HashSet<Value<'m>> = self.shadows.values().collect();
        crate::synth::disjoint::tag(self.fns.forward, &primal, &shadow);
    }

    pub(super) fn unsupported(&mut self, i: impl Into<Value<'m>>, msg: &str) {
        self.diags
            .push(Diagnostic::new(msg).in_function(self.req.name).at(i));
    }

    /// Adjoints of the phis of `blk` go to the incoming values of the edge
    /// control came along; then branch to that predecessor's reverse block.
    fn reverse_phis_and_branch(&mut self, blk: Block<'m>, ret_block: Block<'m>) {
        let phis: Vec<Inst> = blk
            .instructions()
            .into_iter()
            .take_while(|i| i.opcode() == Some(LLVMOpcode::LLVMPHI))
            .filter(|p| self.facts.act.is_active(p.as_value()))
            .collect();
        let ds: Vec<Value> = phis
            .iter()
            .map(|p| self.take_adjoint(p.as_value()))
            .collect();
        let preds: Vec<Block> = self
            .facts
            .cfg
            .unique_preds(blk)
            .into_iter()
            .filter(|p| self.rev.contains_key(p))
            .collect();
        if preds.is_empty() {
            self.b.br(ret_block);
            return;
        }
        if let Some(l) = self.facts.loops.header_of(blk) {
            let ((pre_edge, pre), (latch_edge, latch)) = self.header_branch(l);
            for (eb, p) in [(pre_edge, pre), (latch_edge, latch)] {
                self.b.position_at_end(eb);
                for (phi, d) in phis.iter().zip(&ds) {
                    if let Some((v, _)) = phi.incoming().into_iter().find(|(_, b)| *b == p) {
                        self.accumulate(v, *d);
                    }
                }
                self.b.br(self.rev[&p]);
            }
            return;
        }
        let edge_blocks: Vec<Block> = if preds.len() == 1 {
            vec![self.b.insert_block()]
        } else {
            let all_preds = self.facts.cfg.unique_preds(blk);
            let came = match self.facts.plan.came_from(blk) {
                Some(d) => {
                    let index = |p: Block<'m>| all_preds.iter().position(|q| *q == p).unwrap_or(0);
                    let (t, f) = (index(d.pred_if_true), index(d.pred_if_false));
                    let c = self.primal(d.cond);
                    self.b.select(c, self.b.i32(t as i64), self.b.i32(f as i64))
                }
                None => self.cached_forward(self.came_from[&blk], blk),
            };
            let blocks: Vec<Block> = preds
                .iter()
                .map(|p| {
                    self.fns.reverse.append_block(&format!(
                        "invert_{}_from_{}",
                        blk.name(),
                        p.name()
                    ))
                })
                .collect();
            let cases: Vec<(Value, Block)> = preds
                .iter()
                .zip(&blocks)
                .skip(1)
                .map(|(p, eb)| {
                    let idx = all_preds.iter().position(|q| q == p).unwrap_or(0);
                    (self.b.i32(idx as i64), *eb)
                })
                .collect();
            self.b.switch(came, blocks[0], &cases);
            blocks
        };
        for (p, eb) in preds.iter().zip(edge_blocks) {
            self.b.position_at_end(eb);
            for (phi, d) in phis.iter().zip(&ds) {
                if let Some((v, _)) = phi.incoming().into_iter().find(|(_, b)| b == p) {
                    self.accumulate(v, *d);
                }
            }
            self.enter_loops(blk, *p);
            self.b.br(self.rev[p]);
        }
    }

    // ---- adjoint slots ----

    fn adjoint_slot(&mut self, v: Value<'m>) -> Value<'m> {
        if let Some(s) = self.adjoints.get(&v) {
            return *s;
        }
        let name = if v.name().is_empty() {
            "d".to_string()
        } else {
            format!("d_{}", v.name())
        };
        let slot = self.top.alloca(v.ty(), &name);
        self.top.store(adjoint::empty(&self.top, v.ty()), slot);
        self.adjoints.insert(v, slot);
        slot
    }

    /// Reads the adjoint of `v` and resets it to zero.
    fn take_adjoint(&mut self, v: Value<'m>) -> Value<'m> {
        let slot = self.adjoint_slot(v);
        let d = self.b.load(v.ty(), slot);
        self.b.store(adjoint::empty(&self.b, v.ty()), slot);
        d
    }

    /// Adds `c` to the adjoint of `v` (no-op for inactive values and constants).
    fn accumulate(&mut self, v: Value<'m>, c: Value<'m>) {
        if !(v.is_instruction() || v.is_argument()) || !self.facts.act.is_active(v) {
            return;
        }
        let slot = self.adjoint_slot(v);
        let old = self.b.load(v.ty(), slot);
        let new = adjoint::add(&self.b, old, c);
        self.b.store(new, slot);
    }
}

/// The instruction's opcode as LLVM spells it (`fmul`, `load`, ...).
fn opcode_name<'m>(i: Value<'m>) -> String {
    i.opcode()
        .map(|op| format!("{op:?}").trim_start_matches("LLVM").to_lowercase())
        .unwrap_or_default()
}
