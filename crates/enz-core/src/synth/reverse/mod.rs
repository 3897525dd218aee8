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

mod blas;
mod calls;
mod control;
mod explain;
mod gpu_state;
mod lanes;
mod lazy_shadows;
mod log_grad;
mod loops;
mod masked;
mod math_calls;
mod math_rules;
mod memory;
mod mpi;
mod needed;
pub(crate) mod plan;
pub(crate) use plan::combined_plan;
use plan::loop_nest;
mod release;
mod replay;
mod sweep;
mod team;
mod thread_cache;
mod values;

use super::adjoint;
use super::emit::{emit, Operands};
use super::registry::Registry;
use super::rules::{lookup, OpKey, PrimalUses, Rule};
use super::shadow::ShadowMap;
use crate::analysis::activity::{Activity, ActivityInputs, ArgFact};
use crate::analysis::calls::{CallKinds, Direction};
use crate::analysis::cfg::Cfg;
use crate::analysis::gpu::GpuAccesses;
pub(super) use crate::analysis::loops::loop_location;
use crate::analysis::loops::LoopNest;
use crate::analysis::types::TypeAnalysis;
use crate::analysis::writes::Rereadable;
use crate::diag::Diagnostic;
use crate::ir::LLVMOpcode;
use crate::ir::{clone_body, Block, Builder, Function, Inst, Value, ValueMap};
use crate::signature::ArgActivity;
use std::collections::{HashMap, HashSet};
pub(crate) use sweep::new_function;

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
    /// The function is an OpenMP microtask, run by every thread of a team
    /// (`synth/openmp.rs`): adjoints added to shadow memory outside its
    /// own stack are added atomically.
    pub(crate) team: bool,
}

/// The functions a request produces.
#[derive(Copy, Clone, Debug)]
pub struct Derivative<'m> {
    /// The function holding the forward sweep (`diffe_f` or `augmented_f`).
    pub forward: Function<'m>,
    /// The function holding the reverse sweep (the same in combined mode).
    pub reverse: Function<'m>,
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
    registry.shadow_globals_reached_from(req.prep);
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
    let mut inputs = plan::Inputs::of(req.prep, req.mode, &cfg, &loops, registry.call_facts());
    let call_kinds = CallKinds::of(req.prep, registry.call_facts(), Direction::Reverse);
    inputs.needed = needed::rule_operands(req.prep, &activity, &call_kinds);
    let gpu_accesses = super::gpu::is_gpu_module(req.prep)
        .then(|| GpuAccesses::of(req.prep, |c| call_kinds.get(c).is_inactive()));
    if gpu_accesses.is_some() && req.width > 1 {
        return Err(vec![Diagnostic::new(
            "enzyme_width in reverse mode is not supported in GPU kernels",
        )
        .in_function(req.name)]);
    }
    let plan = plan::Plan::new(req.prep, req.mode, &cfg, &loops, &inputs);
    // Lazy shadows pay where a shadow would otherwise outlive its use: a
    // split pair's (held from its augmented call to its reverse, across
    // whatever the caller does between) and one per loop iteration. A
    // combined gradient's top-level block has its shadow through the
    // reverse sweep either way, and is left where it was allocated.
    let lazy_shadows = if gpu_accesses.is_none() && req.width == 1 && !req.team {
        let mut lazy =
            crate::analysis::lazy_shadows::lazy_shadow_allocations(req.prep, &cfg, &loops);
        if req.mode == Mode::Combined {
            lazy.retain(|a, _| a.block_of().is_some_and(|b| loops.innermost(b).is_some()));
        }
        lazy
    } else {
        HashMap::new()
    };
    let team_accesses = req
        .team
        .then(|| crate::analysis::team::TeamAccesses::of(req.prep));
    let facts = Facts {
        math_calls: math_calls::PrimalMathCalls::new(req.prep, &call_kinds),
        cfg,
        act: activity,
        types,
        loops,
        call_kinds,
        gpu_accesses,
        team_accesses,
        plan,
        rereadable: inputs.rereadable,
        deferrable_frees: inputs.frees,
        deferrable_stores: inputs.stores,
        allocators: registry.allocators(),
        lazy_shadows,
    };
    registry.out.timings.analyses += start.elapsed();
    let mut r = Reverse::new(req, fns, facts);
    r.explain.describe = registry.config.explain;
    r.caches.budget_report = budget_report(req, registry, r.gpu.on);
    r.gpu.thread_caches.budget = registry.config.gpu_thread_cache;
    r.build(registry);
    if r.diags.is_empty() && r.req.mode == Mode::Combined && r.req.width == 1 && !r.gpu.on {
        r.tag_disjoint_memory();
    }
    if r.diags.is_empty() && r.req.mode == Mode::Split && !r.gpu.on {
        r.tag_tape_memory();
    }
    if r.diags.is_empty() {
        let mut e = r.explanation();
        e.notes = registry
            .clones
            .plan_notes
            .get(&req.prep)
            .cloned()
            .unwrap_or_default();
        e.notes.extend(crate::transform::repeated::notes(req.prep));
        e.notes.append(&mut r.gpu.thread_caches.notes);
        registry
            .out
            .warnings
            .append(&mut r.gpu.thread_caches.warnings);
        registry.out.explanations.push(e);
        Ok(r.sweep.tape.size())
    } else {
        Err(r.diags)
    }
}

/// Under an explicit `--cache-budget`, for a combined gradient or a split
/// pair (CPU) of a function with loops checkpointing could not bound: the
/// budget, and the line to write when one call's caches (a split pair's:
/// its augmented forward call's) pass it (naming those loops and why;
/// enz-rs also warned of them when it compiled).
fn budget_report(
    req: &GradientRequest<'_, '_>,
    registry: &Registry<'_>,
    gpu: bool,
) -> Option<(u64, String)> {
    let crate::options::CacheBudget::Bytes(bytes) = registry.config.cache_budget else {
        return None;
    };
    if !matches!(req.mode, Mode::Combined | Mode::Split) || gpu {
        return None;
    }
    let loops = registry.clones.unbounded.get(&req.prep)?;
    Some((
        bytes,
        format!(
            "enz-rs: one call of the gradient of `{}` cached more than --cache-budget {} (MB): {} (set {} to silence this line)\n",
            req.name,
            bytes >> 20,
            loops.join("; "),
            crate::names::QUIET_BUDGET_ENV
        ),
    ))
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
    /// An OpenMP microtask: the accesses of every shared object, for
    /// choosing plain or atomic accumulation (None elsewhere).
    team_accesses: Option<crate::analysis::team::TeamAccesses<'m>>,
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
    /// The stores made at the end of the reverse sweep instead
    /// (`analysis::deferred_stores`).
    deferrable_stores: HashSet<Value<'m>>,
    /// The user's allocators (`__enzyme_allocation_like`), whose shadows
    /// are freed with their deallocators.
    allocators: HashMap<Function<'m>, crate::analysis::calls::AllocationLike<'m>>,
    /// Allocations whose shadows the reverse sweep allocates, with the
    /// `free` it allocates them at (`analysis::lazy_shadows`).
    lazy_shadows: HashMap<Value<'m>, Inst<'m>>,
}

/// The state of one synthesis: the maps from primal values to what
/// emission made of them (the core every file uses), and one sub-state per
/// concern, each owned by the file that keeps it.
pub(super) struct Reverse<'m, 'a> {
    req: &'a GradientRequest<'m, 'a>,
    /// What the analyses and the plan say about the primal (read only).
    facts: Facts<'m>,
    /// Primal (preprocessed) values to their forward-sweep clones.
    map: ValueMap<'m>,
    /// The current lane's shadows (see `lanes.rs`).
    shadows: ShadowMap<'m>,
    /// Primal values to the stack slots holding their adjoints.
    adjoints: HashMap<Value<'m>, Value<'m>>,
    /// Builds in the reverse sweep.
    b: Builder<'m>,
    /// The derivative's functions, the reverse function's parameters and
    /// the tape between the sweeps (`sweep.rs`).
    sweep: sweep::Sweeps<'m>,
    /// The reverse blocks and how the reverse sweep chooses among them
    /// (`control.rs`).
    cfg: control::ReverseCfg<'m>,
    /// Tape slots and loop buffers of forward values, and each loop's
    /// counters (`loops.rs`, `values.rs`).
    caches: loops::Caches<'m>,
    /// Vector reverse mode: the lane being built and the others (`lanes.rs`).
    lanes: lanes::Lanes<'m>,
    /// Calls differentiated as calls (`calls.rs`).
    calls: calls::CallBook<'m>,
    /// What `--explain` reports (`explain.rs`).
    explain: explain::ExplainState<'m>,
    /// GPU code: thread caches and block sums (`gpu_state.rs`).
    gpu: gpu_state::GpuState<'m>,
    /// OpenMP microtasks: tables of partial adjoint sums (`team.rs`).
    team: team::TeamState<'m>,
    /// Work left for the end of the sweep.
    deferred: Deferred<'m>,
    /// Shadows the reverse sweep allocates itself (`lazy_shadows.rs`).
    lazy: lazy_shadows::LazyShadows<'m>,
    diags: Vec<Diagnostic>,
}

/// What the synthesis finishes after both sweeps are built.
#[derive(Default)]
struct Deferred<'m> {
    /// Combined mode: the primal's `free`/`delete` calls, made at the end
    /// of the reverse sweep instead (which may still read that memory).
    frees: Vec<Inst<'m>>,
    /// The forward sweep's calls that were invokes in the primal, with the
    /// primal's invoke block and the landing pad (in the forward sweep):
    /// built as calls, made invokes again at the end.
    invokes: Vec<(Inst<'m>, Block<'m>, Block<'m>)>,
    /// Combined mode: the primal's stores made at the end of the reverse
    /// sweep, before the deferred frees.
    stores: Vec<Inst<'m>>,
}

impl<'m, 'a> Reverse<'m, 'a> {
    fn new(
        req: &'a GradientRequest<'m, 'a>,
        fns: Derivative<'m>,
        facts: Facts<'m>,
    ) -> Reverse<'m, 'a> {
        let p = req.prep;
        let ctx = p.context();
        let sweep::Bound {
            mut map,
            fwd_shadow_params,
            parked,
            rev,
        } = sweep::bind(req, fns);
        clone_body(p, fns.forward, &mut map, false);
        let invokes = super::unwind::detach_invokes(p, &mut map);
        let sweep = sweep::Sweeps::new(req, fns, rev);
        Reverse {
            gpu: gpu_state::GpuState::new(facts.gpu_accesses.is_some()),
            team: team::TeamState::default(),
            facts,
            req,
            map,
            shadows: ShadowMap::new(fwd_shadow_params),
            adjoints: HashMap::new(),
            b: Builder::new(ctx),
            sweep,
            cfg: control::ReverseCfg::default(),
            caches: loops::Caches::default(),
            lanes: lanes::Lanes::new(parked),
            calls: calls::CallBook::default(),
            explain: explain::ExplainState::default(),
            lazy: lazy_shadows::LazyShadows::default(),
            deferred: Deferred {
                frees: Vec::new(),
                invokes,
                stores: Vec::new(),
            },
            diags: Vec::new(),
        }
    }

    fn build(&mut self, registry: &mut Registry<'m>) {
        let live = self.facts.cfg.live_blocks();
        self.start_budget_report();
        self.augment_forward(registry);
        self.zero_shared_shadows();
        let mut ret_block = self.reverse_blocks(&live);
        self.setup_loops();
        self.record_came_from(&live);
        self.finish_exits();
        for blk in &live {
            self.reverse_block(*blk, ret_block);
        }
        self.check_reversed_calls(&live);
        // Vector reverse mode: the next lane's sweep starts where this
        // one returned.
        for lane in 1..self.req.width.max(1) as usize {
            self.b.position_at_end(ret_block);
            let outs = self.adjoint_outs();
            self.lanes.outs.push(outs);
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
        self.sweep.tape.finish(&self.sweep.top, self.sweep.rev_tape);
        let _ = super::unwind::reattach_invokes(std::mem::take(&mut self.deferred.invokes));
    }

    /// The forward call `old` of a primal invoke was replaced by `new`.
    fn replaced_call(&mut self, old: Inst<'m>, new: Inst<'m>) {
        super::unwind::replaced_call(&mut self.deferred.invokes, old, new);
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

    fn reverse_block(&mut self, blk: Block<'m>, ret_block: Block<'m>) {
        let rb = self.cfg.rev[&blk];
        self.b.position_at_end(rb);
        if self.sweep.releasing {
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
        log_grad::log_adjoint(&self.b, i, d, self.req.name);
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
        // A lazily shadowed block stands in for its shadow in the forward
        // map (it is primal); its shadow lives in the reverse function's
        // slot, memory that holds a shadow pointer.
        let stand_ins: HashSet<Value<'m>> = self
            .facts
            .lazy_shadows
            .keys()
            .map(|a| self.map.get(*a))
            .collect();
        let shadow: HashSet<Value<'m>> = self
            .shadows
            .values()
            .filter(|v| !stand_ins.contains(v))
            .chain(self.lazy.slots())
            .collect();
        crate::synth::disjoint::tag(self.sweep.fns.forward, &primal, &shadow);
    }

    /// Tags the split-mode reverse function's tape and cache reads as
    /// disjoint from everything else it accesses (`synth/disjoint.rs`).
    fn tag_tape_memory(&self) {
        let Some(tape) = self.sweep.rev_tape else {
            return;
        };
        let holders: HashSet<u64> = self
            .caches
            .buffers
            .iter()
            .filter_map(|b| b.holder_offset())
            .collect();
        crate::synth::disjoint::tag_tape(self.sweep.fns.reverse, tape, &holders);
    }

    pub(super) fn unsupported(&mut self, i: impl Into<Value<'m>>, msg: &str) {
        self.diags
            .push(Diagnostic::new(msg).in_function(self.req.name).at(i));
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
        let slot = self.sweep.top.alloca(v.ty(), &name);
        self.sweep
            .top
            .store(adjoint::empty(&self.sweep.top, v.ty()), slot);
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
pub(super) fn opcode_name<'m>(i: Value<'m>) -> String {
    i.opcode()
        .map(|op| format!("{op:?}").trim_start_matches("LLVM").to_lowercase())
        .unwrap_or_default()
}
