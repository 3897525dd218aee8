//! The plan of a reverse-mode derivative: for every primal instruction, how
//! its value is made available to the reverse sweep when the sweep needs
//! it, decided before any IR is emitted, from the analyses' facts alone.
//! Emission (`values.rs`) then follows the plan.
//!
//! In the order decided:
//! 1. [`Availability::Direct`]: combined mode, outside loops, in a block
//!    dominating every exit (the reverse sweep is entered only there): the
//!    forward value itself;
//! 2. [`Availability::Affine`]: an affine induction variable, `start + step
//!    * rev_iv` of its loop;
//! 3. [`Availability::Recompute`]: cheap pure instructions (GEPs, casts,
//!    integer arithmetic, comparisons, `fadd`/`fsub`/`fmul`/`fneg`), thread
//!    ids on GPUs, calls to functions carrying the `enzyme_shouldrecompute`
//!    attribute (called again), and, in combined mode, loads whose memory nothing after
//!    them may write (`analysis::writes`), re-emitted from their operands;
//! 4. [`Availability::Cache`]: everything else is stored to the tape right
//!    after its definition and loaded back: a tape slot (a stack slot, or
//!    the heap tape in split mode), or a buffer indexed by the iteration of
//!    its innermost loop;
//! 5. then, [`Plan::recompute_when_free`]: a float operation one step
//!    dearer (`fdiv`, `fmuladd`, `sqrt`, a float `select`...) planned for
//!    the tape is recomputed instead when every operand is at hand without
//!    caching more (constants, recomputed values, values a derivative rule
//!    reads and so caches anyway: `needed.rs`).
//!
//! Control-flow bookkeeping is planned too: a join block whose predecessor
//! a branch condition decides (`Cfg::deciding_branch`) gets that condition
//! in the reverse sweep instead of a recorded `came_from` index, and a loop
//! whose exit iteration follows from its IV's start and limit
//! (`LoopNest::exact_exit`) has it recomputed at the exit instead of
//! cached per instance.
//!
//! One decision is left to emission, because it depends on the use rather
//! than the value: a recomputation recurses into its operands, and a chain
//! deeper than [`MAX_RECOMPUTE_DEPTH`] from the value the sweep asked for
//! is cut by caching the value at the cut instead.

use super::Mode;
use crate::analysis::calls::CallFacts;
use crate::analysis::cfg::{Cfg, DecidingBranch};
use crate::analysis::invariance::Invariance;
use crate::analysis::loops::{AffineIv, LoopId, LoopNest};
use crate::analysis::trips::ExactExit;
use crate::analysis::writes::Rereadable;
use crate::diag::Diagnostic;
use crate::ir::{Block, Function, LLVMOpcode, Value};
use crate::names::SHOULD_RECOMPUTE;
use std::collections::HashMap;
use std::collections::HashSet;
use std::fmt;

/// Where a value cached in loop buffer `placement` is kept once it is
/// known to be invariant in inner loops (`analysis::invariance`): in the
/// buffer of the innermost loop around it in which it varies, or in one
/// tape slot when it varies in none.
fn lifted<'m>(placement: Placement, v: Value<'m>, inv: Option<&Invariance<'m>>) -> Placement {
    match (placement, inv.and_then(|i| i.varies_in(v))) {
        (Placement::LoopBuffer(_), Some(Some(l))) => Placement::LoopBuffer(l),
        (Placement::LoopBuffer(_), Some(None)) => Placement::Slot,
        _ => placement,
    }
}

/// How deep recomputation may recurse before caching instead.
pub(crate) const MAX_RECOMPUTE_DEPTH: u32 = 12;

/// How deep [`Plan::recompute_when_free`] looks through recomputed
/// operands: a value it plans for recomputation then never reaches the
/// depth cap, where emission would cache at the cut.
const FREE_DEPTH: u32 = 10;

/// Where a cached forward value lives.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Placement {
    /// Not cached: the forward value is available throughout the sweep.
    Direct,
    /// One tape slot.
    Slot,
    /// A buffer of the loop, indexed by iteration.
    LoopBuffer(LoopId),
}

/// How one primal value reaches the reverse sweep.
#[derive(Copy, Clone, Debug)]
pub(crate) enum Availability<'m> {
    /// The forward value itself.
    Direct,
    /// `start + step * rev_iv` of its loop.
    Affine(LoopId, AffineIv<'m>),
    /// Re-emitted from its operands; `reread` for a load of unchanged memory.
    Recompute {
        /// A load re-read rather than arithmetic recomputed.
        reread: bool,
    },
    /// Stored to the tape and loaded back.
    Cache(Placement),
}

/// The decisions for one derivative.
pub(crate) struct Plan<'m> {
    /// Every instruction of the primal, in layout order.
    order: Vec<Value<'m>>,
    values: HashMap<Value<'m>, Availability<'m>>,
    blocks: HashMap<Block<'m>, Placement>,
    /// Join blocks whose predecessor a branch condition tells.
    came_from: HashMap<Block<'m>, DecidingBranch<'m>>,
    /// Loops whose exit iteration is recomputed at the exit.
    exact_exits: HashMap<LoopId, ExactExit<'m>>,
    /// Per loop (in id order): its header, and whether its buffers are
    /// allocated once before its outermost loop (every loop of its chain
    /// has a trip bound there) rather than grown by doubling.
    loop_buffers: Vec<(Block<'m>, bool)>,
}

impl<'m> Plan<'m> {
    /// Decides, for every instruction of `prep`, how the reverse sweep of a
    /// `mode` derivative gets its value.
    pub(super) fn new(
        prep: Function<'m>,
        mode: Mode,
        cfg: &Cfg<'m>,
        loops: &LoopNest<'m>,
        inputs: &Inputs<'m>,
    ) -> Plan<'m> {
        let (rereadable, invariance) = (&inputs.rereadable, inputs.invariance.as_ref());
        let affine: HashMap<Value, (LoopId, AffineIv)> = loops
            .ids()
            .flat_map(|l| {
                loops
                    .affine_ivs(l)
                    .into_iter()
                    .map(move |iv| (iv.phi.as_value(), (l, iv)))
            })
            .collect();
        let mut plan = Plan {
            order: Vec::new(),
            values: HashMap::new(),
            blocks: HashMap::new(),
            came_from: HashMap::new(),
            exact_exits: HashMap::new(),
            loop_buffers: Vec::new(),
        };
        for l in loops.ids() {
            let header = loops.get(l).header;
            let chain = loops.chain(header);
            let bounded = chain
                .iter()
                .all(|m| loops.trip_bound(cfg, *m, chain[0]).is_some());
            plan.loop_buffers.push((header, bounded));
        }
        for blk in prep.blocks() {
            if loops.header_of(blk).is_some() {
                continue;
            }
            let inner = loops.innermost(blk);
            if let Some(d) = cfg.deciding_branch(blk, |x| loops.innermost(x) == inner) {
                plan.came_from.insert(blk, d);
            }
        }
        for l in loops.ids() {
            let lp = loops.get(l);
            // Computed in the reverse sweep at an exit, in the context of
            // the loop around `l`: every exit must be in that loop.
            let exits_in_parent = lp.ordered.iter().all(|b| {
                b.successors()
                    .iter()
                    .all(|s| lp.blocks.contains(s) || loops.innermost(*s) == lp.parent)
            });
            if let Some(x) = loops.exact_exit(l).filter(|_| exits_in_parent) {
                plan.exact_exits.insert(l, x);
            }
        }
        for blk in prep.blocks() {
            let placement = match loops.innermost(blk) {
                Some(l) => Placement::LoopBuffer(l),
                None if mode == Mode::Combined && cfg.dominates_all_exits(blk) => Placement::Direct,
                None => Placement::Slot,
            };
            plan.blocks.insert(blk, placement);
            for v in blk.instructions() {
                let reread = mode == Mode::Combined
                    && v.opcode() == Some(LLVMOpcode::LLVMLoad)
                    && rereadable.contains(v.into());
                let how = if placement == Placement::Direct {
                    Availability::Direct
                } else if let Some((l, iv)) = affine.get(&v) {
                    Availability::Affine(*l, *iv)
                } else if reread
                    || is_recomputable(v.into())
                    || crate::analysis::gpu::is_thread_index(v)
                {
                    Availability::Recompute { reread }
                } else {
                    Availability::Cache(lifted(placement, v.into(), invariance))
                };
                plan.order.push(v.into());
                plan.values.insert(v.into(), how);
            }
        }
        plan.recompute_when_free(&inputs.needed);
        plan
    }

    /// Plans for recomputation, instead of the tape, each float operation
    /// of [`is_recomputable_when_free`] whose operands the reverse sweep
    /// has without caching anything more: constants, arguments, values used
    /// directly or recomputed from such, and values cached anyway because
    /// a derivative rule reads them (`needed`, see `needed.rs`). A cached
    /// product of two cached loads (`fmuladd(a, b, c)` with `c` free too)
    /// then costs no tape: LULESH's element loops cached dozens of them.
    /// In definition order, so that a recomputed operand counts as free
    /// (within [`FREE_DEPTH`] levels, well inside [`MAX_RECOMPUTE_DEPTH`]).
    fn recompute_when_free(&mut self, needed: &HashSet<Value<'m>>) {
        if needed.is_empty() {
            return;
        }
        let needed = &self.at_hand(needed);
        for k in 0..self.order.len() {
            let v = self.order[k];
            if matches!(self.values.get(&v), Some(Availability::Cache(_)))
                && is_recomputable_when_free(v)
                && v.operands().into_iter().all(|o| self.free(o, needed, 1))
            {
                self.values
                    .insert(v, Availability::Recompute { reread: false });
            }
        }
    }

    /// What the reverse sweep has because it reads `needed`: those values,
    /// and what each recomputed one among them is recomputed from, down to
    /// cached values (a cached load that a recomputed difference of two
    /// loads reads, where a rule reads the difference, is cached anyway).
    fn at_hand(&self, needed: &HashSet<Value<'m>>) -> HashSet<Value<'m>> {
        let mut out = HashSet::new();
        let mut todo: Vec<Value<'m>> = needed.iter().copied().collect();
        while let Some(v) = todo.pop() {
            if !v.is_instruction() || !out.insert(v) {
                continue;
            }
            match self.values.get(&v) {
                Some(Availability::Recompute { reread: true }) => todo.push(v.operand(0)),
                Some(Availability::Recompute { reread: false }) => todo.extend(v.operands()),
                _ => {}
            }
        }
        out
    }

    /// Whether the reverse sweep has `v` without caching more than it does
    /// anyway (see [`Plan::recompute_when_free`]).
    fn free(&self, v: Value<'m>, needed: &HashSet<Value<'m>>, depth: u32) -> bool {
        if !v.is_instruction() {
            return true;
        }
        match self.values.get(&v) {
            None => false,
            Some(Availability::Direct | Availability::Affine(..)) => true,
            Some(Availability::Cache(_)) => needed.contains(&v),
            Some(Availability::Recompute { reread }) => {
                depth < FREE_DEPTH
                    && if *reread {
                        self.free(v.operand(0), needed, depth + 1)
                    } else {
                        v.operands()
                            .into_iter()
                            .all(|o| self.free(o, needed, depth + 1))
                    }
            }
        }
    }

    /// How instruction `v` of the primal reaches the reverse sweep.
    pub(crate) fn value(&self, v: Value<'m>) -> Availability<'m> {
        self.values
            .get(&v)
            .copied()
            .unwrap_or(Availability::Cache(Placement::Slot))
    }

    /// The branch condition that tells which predecessor join block `blk`
    /// was entered from, if one does.
    pub(crate) fn came_from(&self, blk: Block<'m>) -> Option<DecidingBranch<'m>> {
        self.came_from.get(&blk).copied()
    }

    /// How loop `l`'s exit iteration is recomputed, if it is.
    pub(crate) fn exact_exit(&self, l: LoopId) -> Option<ExactExit<'m>> {
        self.exact_exits.get(&l).copied()
    }

    /// Where a forward value defined in primal block `blk` is cached (a
    /// shadow, a callee's tape, a value whose recomputation was cut).
    pub(crate) fn placement(&self, blk: Block<'m>) -> Placement {
        self.blocks.get(&blk).copied().unwrap_or(Placement::Slot)
    }
}

impl<'m> fmt::Display for Plan<'m> {
    /// One line per value-producing instruction: `%x: decision`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for v in &self.order {
            if v.ty().is_void() {
                continue;
            }
            let how = match self.value(*v) {
                Availability::Direct => "direct".to_string(),
                Availability::Affine(l, _) => format!("recompute (affine in loop {})", l.0),
                Availability::Recompute { reread: true } => "re-read".to_string(),
                Availability::Recompute { reread: false } => "recompute".to_string(),
                Availability::Cache(Placement::LoopBuffer(l)) => {
                    format!("cache (buffer of loop {})", l.0)
                }
                Availability::Cache(_) => "cache (tape slot)".to_string(),
            };
            writeln!(f, "{}: {how}", v.to_ir())?;
        }
        for (l, (header, bounded)) in self.loop_buffers.iter().enumerate() {
            let buffers = if *bounded {
                "buffers allocated once before the loop nest"
            } else {
                "buffers grown by doubling (no trip bound before the loop nest)"
            };
            let exit = if self.exact_exits.contains_key(&LoopId(l)) {
                "; exit iteration recomputed from its IV's start and limit"
            } else {
                ""
            };
            let first = header
                .first_instruction()
                .map(|i| i.as_value().to_ir())
                .unwrap_or_default();
            let first: String = first.trim().chars().take(48).collect();
            writeln!(f, "loop {l} (header `{first}`...): {buffers}{exit}")?;
        }
        for v in &self.order {
            let Some(blk) = v.block_of() else { continue };
            if blk.first_instruction().map(|i| i.as_value()) != Some(*v) {
                continue;
            }
            if let Some(d) = self.came_from(blk) {
                writeln!(
                    f,
                    "block %{}: predecessor recomputed from {}",
                    blk.name(),
                    d.cond.to_ir()
                )?;
            }
        }
        Ok(())
    }
}

/// The loop nest of a function, or the diagnostic for a loop enz-rs cannot
/// differentiate.
pub(super) fn loop_nest<'m>(cfg: &Cfg<'m>, name: &str) -> Result<LoopNest<'m>, Vec<Diagnostic>> {
    LoopNest::new(cfg).map_err(|e| {
        let at = e
            .header
            .first_non_phi()
            .or(e.header.terminator())
            .expect("terminator");
        vec![
            Diagnostic::new(format!("cannot differentiate this loop: {}", e.reason))
                .in_function(name)
                .at(at),
        ]
    })
}

/// What the plan of a `mode` derivative is made from besides its CFG and
/// loops, computed one way for emission (`synthesize`) and `--print-plan`.
pub(super) struct Inputs<'m> {
    /// Combined mode: the frees made at the end of the reverse sweep.
    pub(super) frees: HashSet<Value<'m>>,
    /// Combined mode, the CPU: the stores made there too (a final `*out =
    /// s` that may alias what the function read).
    pub(super) stores: HashSet<Value<'m>>,
    /// The loads that may be re-read (the deferred frees and stores do not
    /// count as writes).
    pub(super) rereadable: Rereadable<'m>,
    /// The CPU: the loop in which each value varies, where it is cached (a
    /// GPU thread's caches are laid out per loop, `thread_cache.rs`).
    pub(super) invariance: Option<Invariance<'m>>,
    /// The primal values derivative rules read (`needed.rs`), once the
    /// activity is known; empty: nothing is recomputed for being free.
    pub(super) needed: HashSet<Value<'m>>,
}

impl<'m> Inputs<'m> {
    pub(super) fn of(
        prep: Function<'m>,
        mode: Mode,
        cfg: &Cfg<'m>,
        loops: &LoopNest<'m>,
        calls: CallFacts<'m, '_>,
    ) -> Inputs<'m> {
        use crate::analysis::deferred_stores::{deferrable_frees, deferrable_stores};
        let gpu = crate::analysis::gpu::is_gpu_module(prep);
        let combined = mode == Mode::Combined;
        let frees = if combined {
            deferrable_frees(prep, cfg, loops, calls)
        } else {
            HashSet::new()
        };
        let stores = if combined && !gpu {
            deferrable_stores(prep, cfg, loops, calls, &frees)
        } else {
            HashSet::new()
        };
        let not_writes: HashSet<Value> = frees.union(&stores).copied().collect();
        Inputs {
            rereadable: Rereadable::analyse(prep, &not_writes, calls),
            invariance: (!gpu).then(|| Invariance::analyse(cfg, loops, calls)),
            frees,
            stores,
            needed: HashSet::new(),
        }
    }
}

/// The plan of the combined-mode gradient of `prep` (for `--print-plan`):
/// the same analyses and decisions as [`synthesize`], without emitting.
pub(crate) fn combined_plan<'m>(
    prep: Function<'m>,
    name: &str,
    calls: CallFacts<'m, '_>,
) -> Result<Plan<'m>, Vec<Diagnostic>> {
    use crate::analysis::activity::{Activity, ActivityInputs};
    use crate::analysis::calls::{CallKinds, Direction};
    let cfg = Cfg::new(prep);
    let loops = loop_nest(&cfg, name)?;
    let mut inputs = Inputs::of(prep, Mode::Combined, &cfg, &loops, calls);
    let args = crate::analysis::activity::default_args(prep);
    let none = HashSet::new();
    let act = Activity::analyse(
        prep,
        &ActivityInputs {
            args: &args,
            ret_active: prep.function_type().return_type().is_fp_scalar(),
            ret_shadowed: false,
            calls,
            shadowed_globals: &none,
            inactive_globals: &none,
        },
    );
    let kinds = CallKinds::of(prep, calls, Direction::Reverse);
    inputs.needed = super::needed::rule_operands(prep, &act, &kinds);
    Ok(Plan::new(prep, Mode::Combined, &cfg, &loops, &inputs))
}

/// Pure float operations worth recomputing when their operands are at hand
/// anyway ([`Plan::recompute_when_free`]): one instruction each, dearer
/// than those of [`is_recomputable`] but cheaper than a tape entry's store
/// and load.
fn is_recomputable_when_free<'m>(v: Value<'m>) -> bool {
    use crate::names::MathFn;
    match v.opcode() {
        Some(LLVMOpcode::LLVMFDiv | LLVMOpcode::LLVMSelect) => true,
        Some(LLVMOpcode::LLVMCall) => v
            .called_function()
            .filter(|f| f.is_declaration())
            .and_then(|f| MathFn::from_callee(&f.name()))
            .is_some_and(|f| {
                matches!(
                    f,
                    MathFn::FMulAdd
                        | MathFn::Fma
                        | MathFn::Fabs
                        | MathFn::CopySign
                        | MathFn::Min
                        | MathFn::Max
                        | MathFn::Sqrt
                )
            }),
        _ => false,
    }
}

/// Pure, cheap instructions worth recomputing rather than caching: integer
/// and pointer arithmetic, casts and the cheapest float arithmetic (a loop
/// then caches only what it cannot recompute, typically its phis and loads).
fn is_recomputable<'m>(v: Value<'m>) -> bool {
    use LLVMOpcode::*;
    match v.opcode() {
        Some(
            LLVMGetElementPtr | LLVMBitCast | LLVMAddrSpaceCast | LLVMPtrToInt | LLVMIntToPtr
            | LLVMZExt | LLVMSExt | LLVMTrunc | LLVMAdd | LLVMSub | LLVMMul | LLVMShl | LLVMLShr
            | LLVMAShr | LLVMAnd | LLVMOr | LLVMXor | LLVMICmp | LLVMSIToFP | LLVMUIToFP
            | LLVMFPExt | LLVMFPTrunc | LLVMFNeg | LLVMFAdd | LLVMFSub | LLVMFMul,
        ) => true,
        Some(LLVMSelect) => !v.ty().carries_float(),
        // The user's hint (Enzyme's `enzyme_shouldrecompute` function
        // attribute): calling the function again is cheaper than caching
        // its result, and gives the same result.
        Some(LLVMCall | LLVMInvoke) => {
            !v.ty().is_void()
                && v.called_function()
                    .is_some_and(|f| f.has_string_attribute(SHOULD_RECOMPUTE))
        }
        _ => false,
    }
}
