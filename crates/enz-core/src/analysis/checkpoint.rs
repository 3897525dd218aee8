//! Which loops can be checkpointed, and the memory that is their state.
//!
//! A checkpointed loop (`preprocess/outline.rs`, `synth/checkpoint.rs`)
//! runs plainly in the forward sweep, saving its state every k iterations,
//! and each segment of k iterations is run again, recording, just before
//! its reverse. Its state is its header phis (moved to memory by the
//! outlining) and every byte its stores may write, which must therefore be
//! known, as address ranges, before the loop starts. A loop qualifies
//! (`Candidate`) when:
//!
//! - it is outermost, contains a loop (a time loop over a state: what
//!   makes caches large), leaves only from its latch to one exit block;
//! - it makes no calls but to pure math functions and intrinsics, no
//!   allocas, atomics or volatile accesses, and stores no pointers;
//! - every store runs in every iteration of the loops around it inside the
//!   time loop (its block dominates their latches, and each of those loops
//!   is entered in every iteration of its parent, or behind one guard
//!   whose condition is known before the time loop), each of those loops
//!   has an exact trip count from values known before the time loop, and
//!   the store's address is a pointer known before the time loop (or a
//!   header phi cycling through such pointers: double buffering) plus an
//!   offset affine in those loops' iterations: then the bytes it writes
//!   are exactly a range computed before the time loop;
//! - nothing after the loop may write memory the loop reads (the segments
//!   run again after it, and must read what they read the first time), or
//!   whether it does is decided at run time (`analysis/overlap.rs`: the
//!   loop is then versioned on an overlap check).

use super::calls::CallKinds;
use super::cfg::Cfg;
use super::loops::{AffineIv, LoopId, LoopNest};
use super::outlining::{is_pure_call, stays_in_its_function};
use super::trips::ExactExit;
use super::writes::{may_point_into, written_by, Written};
use crate::ir::{Block, Inst, LLVMOpcode, TyKind, Value};
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

/// A loop that can be checkpointed, with what outlining needs.
#[derive(Debug)]
pub(crate) struct Candidate<'m> {
    pub(crate) lp: LoopId,
    pub(crate) exit: Block<'m>,
    /// The byte ranges of its stores.
    pub(crate) stores: Vec<StoreRange<'m>>,
    /// Phis of the loop known before it, as choices: the value of the
    /// first incoming edge whose condition holds.
    pub(crate) choices: HashMap<Value<'m>, Vec<(Value<'m>, Cond<'m>)>>,
    /// Values an inner loop leaves with that are known before the time
    /// loop: an IV's last value (`start + step·(n - 1)`, or `n` steps for
    /// its next value) after the `n` iterations of its exact exit.
    pub(crate) finals: HashMap<Value<'m>, Final<'m>>,
    /// The pointers from before the loop that its pointer state (header
    /// phis, values it leaves with) may be.
    pub(crate) pointer_roots: Vec<Value<'m>>,
    /// A bound on what running the loop plainly caches, computable before
    /// it: with one, the loop is kept beside its checkpointed form and the
    /// choice between them made there, at run time.
    pub(crate) estimate: Option<Estimate<'m>>,
    /// When stores after the loop may write what it reads: the run-time
    /// check that they do not, which chooses the checkpointed form.
    pub(crate) overlap: Option<super::overlap::OverlapCheck<'m>>,
}

/// A bound, computable before the time loop, on the bytes the derivative's
/// caches take when the loop runs plainly (each iteration's needed values
/// cached): its trip count times, over the loops from the time loop
/// inwards, the bytes of every value their own blocks compute (a cached
/// value is one of them; 8 bytes more per block for came-from flags and
/// counters) times the trip counts of the loops around them inside the
/// time loop.
#[derive(Debug, Clone)]
pub(crate) struct Estimate<'m> {
    /// The time loop's exit, when its trip count is known before it (else
    /// the bound is per iteration only).
    pub(crate) time: Option<ExactExit<'m>>,
    /// Per loop (the time loop first): the bytes of its blocks, and the
    /// loops from it outwards, the time loop excluded.
    pub(crate) weights: Vec<(u64, Vec<TripFacts<'m>>)>,
}

/// See [`Candidate::finals`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct Final<'m> {
    pub(crate) start: Value<'m>,
    pub(crate) step: i64,
    /// Steps taken after the first iteration: `n - 1` plus this.
    pub(crate) extra: i64,
    pub(crate) exit: ExactExit<'m>,
}

/// The bytes one store writes over the whole loop: for each root (one, or
/// the pointers a header phi cycles through), `root + offset` where
/// `offset = konst + Σ scale·inv + Σ coeff·m_M` over the store's loops M,
/// `m_M` in `[0, count_M)`, plus `size` bytes.
#[derive(Debug, Clone)]
pub(crate) struct StoreRange<'m> {
    pub(crate) roots: Vec<Value<'m>>,
    pub(crate) konst: i64,
    /// Values known before the time loop, with their scale in bytes.
    pub(crate) inv: Vec<(Value<'m>, i64)>,
    /// Per loop: bytes per iteration.
    pub(crate) per_iteration: Vec<(LoopId, i64)>,
    /// Each loop the store is in (inside the time loop): how many times
    /// its body runs per entry, and the guard entering it.
    pub(crate) loops: Vec<TripFacts<'m>>,
    pub(crate) size: u64,
}

/// How many iterations a loop inside the time loop runs per entry.
#[derive(Debug, Clone)]
pub(crate) struct TripFacts<'m> {
    pub(crate) lp: LoopId,
    pub(crate) exit: ExactExit<'m>,
    /// When the loop is entered (in an iteration of its parent).
    pub(crate) guard: Cond<'m>,
}

/// A condition on values known before the time loop: when a block runs in
/// an iteration of its loop, or which edge entered a join.
#[derive(Debug, Clone)]
pub(crate) enum Cond<'m> {
    True,
    /// `value == taken`.
    Is(Value<'m>, bool),
    All(Vec<Cond<'m>>),
    Any(Vec<Cond<'m>>),
}

impl<'m> Cond<'m> {
    fn and(a: Cond<'m>, b: Cond<'m>) -> Cond<'m> {
        match (a, b) {
            (Cond::True, x) | (x, Cond::True) => x,
            (a, b) => Cond::All(vec![a, b]),
        }
    }
}

/// An affine form in bytes (see [`StoreRange`]).
#[derive(Debug, Clone, Default)]
pub(super) struct Linear<'m> {
    pub(super) konst: i64,
    pub(super) inv: Vec<(Value<'m>, i64)>,
    pub(super) per_iteration: Vec<(LoopId, i64)>,
}

impl<'m> Linear<'m> {
    /// Integer instruction `i` as an affine form, from `op(k)`, the form
    /// of its operand `k`: sign and zero extensions, additions (and
    /// disjoint ors), subtractions, and products and left shifts by a
    /// constant. `None` for any other instruction (a product of two
    /// non-constants too), `Some(None)` when the form is not affine.
    pub(super) fn of_arithmetic(
        i: Inst<'m>,
        op: impl Fn(u32) -> Option<Linear<'m>>,
    ) -> Option<Option<Linear<'m>>> {
        use LLVMOpcode::*;
        let sum = |a: Option<Linear<'m>>, b: Option<Linear<'m>>| a?.plus(b?);
        Some(match i.opcode()? {
            LLVMSExt | LLVMZExt => op(0),
            LLVMAdd => sum(op(0), op(1)),
            LLVMOr if i.as_value().is_disjoint_or() => sum(op(0), op(1)),
            LLVMSub => sum(op(0), op(1).and_then(|b| b.scaled(-1))),
            LLVMMul => match (i.operand(0).const_int_sext(), i.operand(1).const_int_sext()) {
                (_, Some(c)) => op(0).and_then(|a| a.scaled(c)),
                (Some(c), _) => op(1).and_then(|a| a.scaled(c)),
                _ => return None,
            },
            LLVMShl => match i.operand(1).const_int_sext() {
                Some(c) if (0..32).contains(&c) => op(0).and_then(|a| a.scaled(1 << c)),
                _ => None,
            },
            _ => return None,
        })
    }

    pub(super) fn scaled(mut self, by: i64) -> Option<Linear<'m>> {
        self.konst = self.konst.checked_mul(by)?;
        for (_, s) in self.inv.iter_mut() {
            *s = s.checked_mul(by)?;
        }
        for (_, s) in self.per_iteration.iter_mut() {
            *s = s.checked_mul(by)?;
        }
        Some(self)
    }

    pub(super) fn plus(mut self, other: Linear<'m>) -> Option<Linear<'m>> {
        self.konst = self.konst.checked_add(other.konst)?;
        self.inv.extend(other.inv);
        for (l, s) in other.per_iteration {
            match self.per_iteration.iter_mut().find(|(m, _)| *m == l) {
                Some((_, t)) => *t = t.checked_add(s)?,
                None => self.per_iteration.push((l, s)),
            }
        }
        Some(self)
    }
}

/// The outermost loops of a function that contain a loop, each a
/// candidate for checkpointing or the reason it is not one.
///
/// `deferred`: what the derivative makes only after its reverse sweep (a
/// combined gradient's final stores and frees, `analysis::deferred_stores`),
/// which cannot change what a loop run again in the reverse sweep reads.
pub(crate) fn candidates<'m>(
    cfg: &Cfg<'m>,
    loops: &LoopNest<'m>,
    kinds: &CallKinds<'m>,
    deferred: &HashSet<Value<'m>>,
) -> Vec<(LoopId, Result<Candidate<'m>, String>)> {
    loops
        .ids()
        .filter(|l| loops.get(*l).parent.is_none())
        .filter(|l| loops.ids().any(|m| loops.get(m).parent == Some(*l)))
        .map(|l| {
            let mut f = Finder::new(cfg, loops, kinds, l);
            f.deferred = Some(deferred);
            (l, f.candidate())
        })
        .collect()
}

/// The bytes a load of loop `lp` reads over one run of the loop (the same
/// in every iteration: its address moves only with the loops inside
/// `lp`, whose trip counts are known before it), with what computing the
/// range before the loop needs (see [`Candidate::choices`] and [`Candidate::finals`]); the
/// reason when the load is not of that kind. The load runs in every
/// iteration, so the range is memory the loop does read when it runs;
/// an iteration that ends by an exception (the unwind edge of a primal
/// `invoke`: a C++ call that may throw) is not counted, as a throw ends
/// the loop before its reads rather than picking which memory they read.
pub(crate) fn read_range<'m>(
    cfg: &Cfg<'m>,
    loops: &LoopNest<'m>,
    kinds: &CallKinds<'m>,
    lp: LoopId,
    load: Inst<'m>,
) -> Result<ReadRange<'m>, &'static str> {
    let mut f = Finder::new(cfg, loops, kinds, lp);
    f.unwinds_end_early = true;
    let range = f.access_range(load, load.operand(0), load.ty())?;
    Ok(ReadRange {
        range,
        choices: f.choices.take(),
        finals: f.finals.take(),
    })
}

/// See [`read_range`].
#[derive(Debug)]
pub(crate) struct ReadRange<'m> {
    pub(crate) range: StoreRange<'m>,
    pub(crate) choices: HashMap<Value<'m>, Vec<(Value<'m>, Cond<'m>)>>,
    pub(crate) finals: HashMap<Value<'m>, Final<'m>>,
}

pub(super) struct Finder<'a, 'm> {
    /// Phis found known before the loop (see [`Candidate::choices`]).
    pub(super) choices: RefCell<HashMap<Value<'m>, Vec<(Value<'m>, Cond<'m>)>>>,
    pub(super) finals: RefCell<HashMap<Value<'m>, Final<'m>>>,
    pub(super) cfg: &'a Cfg<'m>,
    pub(super) loops: &'a LoopNest<'m>,
    pub(super) kinds: &'a CallKinds<'m>,
    pub(super) lp: LoopId,
    /// Ranges over the whole loop `lp` (its own iterations counted), not
    /// over one of its iterations: a loop after a time loop, writing
    /// (`analysis/overlap.rs`).
    pub(super) whole: bool,
    /// Whether an exit by an exception leaves the time loop early instead
    /// of being one of its exits (see [`read_range`]).
    unwinds_end_early: bool,
    /// What runs only after the reverse sweep (see [`candidates`]).
    deferred: Option<&'a HashSet<Value<'m>>>,
}

impl<'a, 'm> Finder<'a, 'm> {
    pub(super) fn new(
        cfg: &'a Cfg<'m>,
        loops: &'a LoopNest<'m>,
        kinds: &'a CallKinds<'m>,
        lp: LoopId,
    ) -> Finder<'a, 'm> {
        Finder {
            choices: RefCell::default(),
            finals: RefCell::default(),
            cfg,
            loops,
            kinds,
            lp,
            unwinds_end_early: false,
            deferred: None,
            whole: false,
        }
    }

    pub(super) fn contains(&self, b: Block<'m>) -> bool {
        self.loops.contains(self.lp, b)
    }

    fn candidate(&self) -> Result<Candidate<'m>, String> {
        let lp = self.loops.get(self.lp);
        if !self
            .loops
            .ids()
            .any(|m| self.loops.get(m).parent == Some(self.lp))
        {
            return Err("it contains no loop".into());
        }
        // Leaves to one block.
        let mut exit = None;
        for b in &lp.ordered {
            for s in b.successors() {
                if self.contains(s) {
                    continue;
                }
                if exit.is_some_and(|e| e != s) {
                    return Err("it leaves to more than one block".into());
                }
                exit = Some(s);
            }
        }
        let exit = exit.ok_or("it never leaves")?;
        if self.cfg.preds(exit).iter().any(|p| !self.contains(*p)) {
            return Err("its exit block is entered from outside it".into());
        }
        let mut stores = Vec::new();
        let mut loads = Vec::new();
        for b in &lp.ordered {
            for i in b.instructions() {
                let v = i.as_value();
                // Values of the loop are used outside it only by the exit
                // block's phis (LCSSA).
                if v.users().iter().any(|u| {
                    u.block_of().is_some_and(|ub| {
                        let exit_phi = ub == exit && u.opcode() == Some(LLVMOpcode::LLVMPHI);
                        !self.contains(ub) && !exit_phi
                    })
                }) {
                    return Err(format!("{} is used after the loop", v.to_ir()));
                }
                let Some(op) = i.opcode() else { continue };
                match op {
                    LLVMOpcode::LLVMStore => {
                        if !i.is_simple_access()
                            || i.operand(0).ty().kind() == crate::ir::TyKind::Pointer
                        {
                            return Err(format!("it stores a pointer or volatile: {}", v.to_ir()));
                        }
                        let r = self.store_range(i).map_err(|why| {
                            format!(
                                "the bytes this store writes are not known before the loop ({why}): {}",
                                v.to_ir()
                            )
                        })?;
                        stores.push(r);
                    }
                    LLVMOpcode::LLVMLoad => {
                        if !i.is_simple_access() {
                            return Err(format!("a volatile or atomic load: {}", v.to_ir()));
                        }
                        loads.push(i);
                    }
                    LLVMOpcode::LLVMCall if !is_pure_call(i, self.kinds.get(v)) => {
                        return Err(format!("it makes a call: {}", v.to_ir()));
                    }
                    op if stays_in_its_function(op) => {
                        return Err(format!("it has {}", v.to_ir()));
                    }
                    _ => {}
                }
            }
        }
        // Pointers carried across iterations or left with are one of the
        // pointers from before the loop (so that their shadows follow from
        // them when a segment runs again).
        let mut pointer_roots: Vec<Value<'m>> = Vec::new();
        let header = lp.header;
        let mut carried: Vec<Value<'m>> = header
            .instructions()
            .into_iter()
            .take_while(|i| i.opcode() == Some(LLVMOpcode::LLVMPHI))
            .map(|i| i.as_value())
            .collect();
        for p in exit.instructions() {
            if p.opcode() != Some(LLVMOpcode::LLVMPHI) {
                break;
            }
            carried.extend(p.incoming().into_iter().map(|(v, _)| v));
        }
        for v in carried {
            if v.ty().kind() != crate::ir::TyKind::Pointer {
                continue;
            }
            let roots = match v.as_inst() {
                Some(i) if self.contains(i.parent_block()) => {
                    if i.parent_block() != header || i.opcode() != Some(LLVMOpcode::LLVMPHI) {
                        return Err(format!(
                            "a pointer it carries or leaves with is not one from before it: {}",
                            v.to_ir()
                        ));
                    }
                    self.cycled_roots(i).ok_or_else(|| {
                        format!(
                            "a pointer it carries is not one from before it: {}",
                            v.to_ir()
                        )
                    })?
                }
                _ => vec![v],
            };
            for r in roots {
                if !pointer_roots.contains(&r) {
                    pointer_roots.push(r);
                }
            }
        }
        // Nothing after the loop writes what it reads, or a check before
        // it can tell whether something does.
        let after = self.blocks_after(exit);
        let mut conflicts: Vec<(Inst<'m>, Vec<Inst<'m>>)> = Vec::new();
        for b in after {
            for i in b.instructions() {
                if self.deferred.is_some_and(|d| d.contains(&i.as_value())) {
                    continue;
                }
                match written_by(i, || self.kinds.get(i.as_value())) {
                    Written::Nothing => {}
                    Written::Objects(objs) => {
                        let hit: Vec<Inst<'m>> = loads
                            .iter()
                            .copied()
                            .filter(|l| may_point_into(l.operand(0), &objs))
                            .collect();
                        if !hit.is_empty() {
                            conflicts.push((i, hit));
                        }
                    }
                    Written::Anything => {
                        return Err(format!(
                            "a call after it may write anything: {}",
                            i.as_value().to_ir()
                        ))
                    }
                }
            }
        }
        let overlap = match conflicts.first() {
            None => None,
            Some((first, _)) => Some(super::overlap::check(self, &conflicts).map_err(|why| {
                format!(
                    "what it reads may be written after it: {} (and no run-time check can tell: {why})",
                    first.as_value().to_ir()
                )
            })?),
        };
        let estimate = self.estimate();
        Ok(Candidate {
            overlap,
            lp: self.lp,
            exit,
            stores,
            estimate,
            choices: self.choices.take(),
            finals: self.finals.take(),
            pointer_roots,
        })
    }

    /// See [`Estimate`]: none when the trip count of a loop inside the
    /// time loop is not known before it.
    fn estimate(&self) -> Option<Estimate<'m>> {
        let time = self.loops.exact_exit(self.lp);
        let lp = self.loops.get(self.lp);
        let module = lp.header.parent().global_parent();
        let mut per_loop: Vec<(LoopId, u64)> = Vec::new();
        for b in &lp.ordered {
            let m = self.loops.innermost(*b)?;
            let bytes: u64 = b
                .instructions()
                .iter()
                .map(|i| i.ty())
                .filter(|t| !matches!(t.kind(), TyKind::Void | TyKind::Other))
                .map(|t| t.alloc_size(module).max(1))
                .sum::<u64>()
                + 8;
            match per_loop.iter_mut().find(|(l, _)| *l == m) {
                Some((_, n)) => *n += bytes,
                None => per_loop.push((m, bytes)),
            }
        }
        let mut weights = Vec::new();
        for (m, bytes) in per_loop {
            let mut trips = Vec::new();
            let mut cur = m;
            while cur != self.lp {
                let ml = self.loops.get(cur);
                let exit = self.loops.exact_exit(cur)?;
                if !self.known_before(exit.start) || !self.known_before(exit.limit) {
                    return None;
                }
                let parent = ml.parent?;
                // A guard not known before: counted as entered (a bound).
                let guard = self.runs(ml.preheader, parent, 0).unwrap_or(Cond::True);
                trips.push(TripFacts {
                    lp: cur,
                    exit,
                    guard,
                });
                cur = parent;
            }
            weights.push((bytes, trips));
        }
        Some(Estimate { time, weights })
    }

    /// Blocks reachable from `exit` (outside the loop), in function order.
    fn blocks_after(&self, exit: Block<'m>) -> Vec<Block<'m>> {
        let mut seen = HashSet::new();
        let mut work = vec![exit];
        while let Some(b) = work.pop() {
            if self.contains(b) || !seen.insert(b) {
                continue;
            }
            work.extend(b.successors());
        }
        // In the function's order: what is found after the loop, and the
        // checks built from it, must not depend on hashing.
        let f = exit.parent();
        f.blocks()
            .into_iter()
            .filter(|b| seen.contains(b))
            .collect()
    }

    /// The range a store writes, if it is one of the exact kind.
    fn store_range(&self, st: Inst<'m>) -> Result<StoreRange<'m>, &'static str> {
        self.access_range(st, st.operand(1), st.operand(0).ty())
    }

    /// The range an access of a `ty` at `ptr` by instruction `at` touches
    /// over the loop, if it is one of the exact kind.
    pub(super) fn access_range(
        &self,
        at: Inst<'m>,
        ptr: Value<'m>,
        ty: crate::ir::Ty<'m>,
    ) -> Result<StoreRange<'m>, &'static str> {
        let blk = at.parent_block();
        // The loops around the store inside the time loop, innermost first.
        let mut chain: Vec<LoopId> = self.loops.chain(blk);
        chain.retain(|m| (*m != self.lp || self.whole) && self.contains(self.loops.get(*m).header));
        chain.reverse();
        let mut trips = Vec::new();
        let mut inner_block = blk;
        for m in &chain {
            let ml = self.loops.get(*m);
            if !self.cfg.dominates(inner_block, ml.latch) {
                return Err("it does not run in every iteration of its loop");
            }
            let exit = self
                .loops
                .exact_exit(*m)
                .ok_or("its loop has no exact trip count")?;
            if !self.known_before(exit.start) || !self.known_before(exit.limit) {
                return Err("its loop's trip count is not known before the time loop");
            }
            let Some(parent) = ml.parent.filter(|_| *m != self.lp) else {
                // The whole loop (`whole`): a bound counts it entered.
                trips.push(TripFacts {
                    lp: *m,
                    exit,
                    guard: Cond::True,
                });
                continue;
            };
            let guard = self
                .runs(ml.preheader, parent, 0)
                .ok_or("its loop is entered under a condition not known before the time loop")?;
            trips.push(TripFacts {
                lp: *m,
                exit,
                guard,
            });
            inner_block = self.loops.get(parent).header;
        }
        // In the time loop itself: every iteration, the last included.
        if !self.whole && !self.every_iteration(inner_block) {
            return Err("it does not run in every iteration of the time loop");
        }
        let (roots, lin) = self
            .pointer(ptr, 0)
            .ok_or("its address is not affine in its loops' iterations")?;
        let size = ty.alloc_size(at.as_value().module());
        if lin
            .per_iteration
            .iter()
            .any(|(l, _)| !trips.iter().any(|t| t.lp == *l))
        {
            return Err("its address moves with a loop it is not in");
        }
        Ok(StoreRange {
            roots,
            konst: lin.konst,
            inv: lin.inv,
            per_iteration: lin.per_iteration,
            loops: trips,
            size,
        })
    }

    /// When block `b` runs in an iteration of loop `region` (which
    /// contains it, not in a loop inside), as a condition on values known
    /// before the time loop: always when it dominates the latch; a block
    /// entered only from a loop inside (its only exit) runs when that
    /// loop's preheader does; otherwise when one of its predecessors runs
    /// and branches to it.
    fn runs(&self, b: Block<'m>, region: LoopId, depth: u32) -> Option<Cond<'m>> {
        let rl = self.loops.get(region);
        if depth > 48 || !rl.blocks.contains(&b) {
            return None;
        }
        let always = if region == self.lp {
            self.every_iteration(b)
        } else {
            self.cfg.dominates(b, rl.latch)
        };
        if b == rl.header || always {
            return Some(Cond::True);
        }
        let preds = self.cfg.unique_preds(b);
        if let Some(m) = preds.first().and_then(|p| self.loops.innermost(*p)) {
            if m != region {
                let ml = self.loops.get(m);
                let only_exit = ml.ordered.iter().all(|x| {
                    x.successors()
                        .iter()
                        .all(|s| ml.blocks.contains(s) || *s == b)
                });
                let from_m = preds.iter().all(|p| ml.blocks.contains(p));
                if only_exit && from_m && ml.parent == Some(region) {
                    return self.runs(ml.preheader, region, depth + 1);
                }
                return None;
            }
        }
        let mut any = Vec::new();
        for p in preds {
            if self.loops.innermost(p) != Some(region) {
                return None;
            }
            let c = Cond::and(self.runs(p, region, depth + 1)?, self.edge(p, b)?);
            if let Cond::True = c {
                return Some(Cond::True);
            }
            any.push(c);
        }
        Some(Cond::Any(any))
    }

    /// A phi of the exit block of a loop inside the time loop, its one
    /// incoming value an affine IV of that loop (or its next value), when
    /// the loop's exact exit and the IV's start are known before.
    fn final_value(&self, phi: Inst<'m>, depth: u32) -> Option<Final<'m>> {
        let [(x, from)] = phi.incoming()[..] else {
            return None;
        };
        let m = self.loops.innermost(from)?;
        if m == self.lp || self.loops.contains(m, phi.parent_block()) {
            return None;
        }
        let exit = self.loops.exact_exit(m)?;
        if !self.known(exit.start, depth + 1) || !self.known(exit.limit, depth + 1) {
            return None;
        }
        let latch = self.loops.get(m).latch;
        for iv in self.loops.affine_ivs(m) {
            if iv.gep_type.is_some() || !self.known(iv.start, depth + 1) {
                continue;
            }
            let next = iv
                .phi
                .incoming()
                .into_iter()
                .find(|(_, b)| *b == latch)
                .map(|(v, _)| v);
            let extra = if x == iv.phi.as_value() {
                0
            } else if Some(x) == next {
                1
            } else {
                continue;
            };
            return Some(Final {
                start: iv.start,
                step: iv.step,
                extra,
                exit,
            });
        }
        None
    }

    /// Whether block `b` of the time loop runs in every iteration, the
    /// last one too: it dominates the latch and every block leaving.
    fn every_iteration(&self, b: Block<'m>) -> bool {
        let lp = self.loops.get(self.lp);
        let stays = |x: Block<'m>, s: Block<'m>| {
            self.contains(s)
                || (self.unwinds_end_early && x.terminator().is_some_and(|t| t.only_unwinds_to(s)))
        };
        self.cfg.dominates(b, lp.latch)
            && lp
                .ordered
                .iter()
                .all(|x| x.successors().iter().all(|s| stays(*x, *s)) || self.cfg.dominates(b, *x))
    }

    /// When block `p` branches to `b` (given that `p` runs).
    fn edge(&self, p: Block<'m>, b: Block<'m>) -> Option<Cond<'m>> {
        let t = p.terminator()?;
        if t.opcode() != Some(LLVMOpcode::LLVMBr) {
            return None;
        }
        if t.num_operands() != 3 {
            return Some(Cond::True);
        }
        // br cond, then, else: operand 2 is `then`, 1 is `else`.
        let then = Block::from_value(t.operand(2));
        let other = Block::from_value(t.operand(1));
        if then == other {
            return Some(Cond::True);
        }
        let cond = t.operand(0);
        self.known_before(cond).then_some(Cond::Is(cond, then == b))
    }

    /// Whether `v` is computed from values defined before the time loop by
    /// pure integer arithmetic (what the outlining can compute again
    /// before the loop starts).
    fn known_before(&self, v: Value<'m>) -> bool {
        self.known(v, 0)
    }

    fn known(&self, v: Value<'m>, depth: u32) -> bool {
        if depth > 24 {
            return false;
        }
        let Some(i) = v.as_inst() else {
            return true;
        };
        let blk = i.parent_block();
        if !self.contains(blk) {
            return true;
        }
        if i.opcode() == Some(LLVMOpcode::LLVMPHI) {
            if self.finals.borrow().contains_key(&v) {
                return true;
            }
            if let Some(f) = self.final_value(i, depth) {
                self.finals.borrow_mut().insert(v, f);
                return true;
            }
        }
        if let Some(x) = single_incoming(v) {
            return self.known(x, depth + 1);
        }
        use LLVMOpcode::*;
        match i.opcode() {
            Some(LLVMPHI) => {
                if self.choices.borrow().contains_key(&v) {
                    return true;
                }
                if self.loops.header_of(blk).is_some() {
                    return false;
                }
                let Some(region) = self.loops.innermost(blk) else {
                    return false;
                };
                let mut choice = Vec::new();
                for (x, p) in i.incoming() {
                    if !self.known(x, depth + 1) || self.loops.innermost(p) != Some(region) {
                        return false;
                    }
                    let Some(c) = self.runs(p, region, 0) else {
                        return false;
                    };
                    let Some(e) = self.edge(p, blk) else {
                        return false;
                    };
                    choice.push((x, Cond::and(c, e)));
                }
                self.choices.borrow_mut().insert(v, choice);
                true
            }
            Some(
                LLVMAdd | LLVMSub | LLVMMul | LLVMShl | LLVMLShr | LLVMAShr | LLVMAnd | LLVMOr
                | LLVMXor | LLVMSExt | LLVMZExt | LLVMTrunc | LLVMICmp | LLVMSelect
                | LLVMGetElementPtr | LLVMPtrToInt,
            ) => (0..i.num_operands()).all(|k| self.known(i.operand(k), depth + 1)),
            _ => false,
        }
    }

    /// `p` as roots plus an affine byte offset.
    fn pointer(&self, p: Value<'m>, depth: u32) -> Option<(Vec<Value<'m>>, Linear<'m>)> {
        if depth > 16 {
            return None;
        }
        let Some(i) = p.as_inst() else {
            // An argument or a global.
            return (!p.is_constant() || p.is_global_variable())
                .then(|| (vec![p], Linear::default()));
        };
        if !self.contains(i.parent_block()) {
            return Some((vec![p], Linear::default()));
        }
        match i.opcode()? {
            LLVMOpcode::LLVMGetElementPtr => {
                let (roots, mut lin) = self.pointer(i.operand(0), depth + 1)?;
                let module = p.module();
                let mut ty = p.gep_source_type();
                for k in 1..i.num_operands() {
                    let idx = i.operand(k);
                    if k == 1 {
                        let scale = i64::try_from(ty.alloc_size(module)).ok()?;
                        lin = lin.plus(self.integer(idx, depth + 1)?.scaled(scale)?)?;
                        continue;
                    }
                    match ty.kind() {
                        crate::ir::TyKind::Struct => {
                            let f = u32::try_from(idx.const_int_sext()?).ok()?;
                            let off = ty.field_offset(module, f)?;
                            lin.konst = lin.konst.checked_add(i64::try_from(off).ok()?)?;
                            ty = ty.member(f);
                        }
                        crate::ir::TyKind::Array => {
                            ty = ty.element();
                            let scale = i64::try_from(ty.alloc_size(module)).ok()?;
                            lin = lin.plus(self.integer(idx, depth + 1)?.scaled(scale)?)?;
                        }
                        _ => return None,
                    }
                }
                Some((roots, lin))
            }
            LLVMOpcode::LLVMPHI => {
                let bl = i.parent_block();
                if bl == self.loops.get(self.lp).header && !self.whole {
                    return Some((self.cycled_roots(i)?, Linear::default()));
                }
                // A pointer induction variable of an inner loop.
                let (m, iv) = self.affine_iv(i)?;
                let elem = iv.gep_type?;
                let bytes = i64::try_from(elem.alloc_size(p.module())).ok()?;
                let (roots, lin) = self.pointer(iv.start, depth + 1)?;
                let step = Linear {
                    per_iteration: vec![(m, iv.step.checked_mul(bytes)?)],
                    ..Linear::default()
                };
                Some((roots, lin.plus(step)?))
            }
            _ => None,
        }
    }

    /// The pointers a header phi of the time loop takes, when each is
    /// defined before the loop (through other such phis: buffers swapped
    /// every iteration).
    fn cycled_roots(&self, phi: Inst<'m>) -> Option<Vec<Value<'m>>> {
        let header = self.loops.get(self.lp).header;
        let mut roots = Vec::new();
        let mut seen = HashSet::new();
        let mut work = vec![phi.as_value()];
        while let Some(v) = work.pop() {
            if !seen.insert(v) {
                continue;
            }
            match v.as_inst() {
                Some(i)
                    if i.parent_block() == header && i.opcode() == Some(LLVMOpcode::LLVMPHI) =>
                {
                    work.extend(i.incoming().into_iter().map(|(x, _)| x));
                }
                Some(i) if self.contains(i.parent_block()) => return None,
                _ if v.is_constant() && !v.is_global_variable() => return None,
                _ => roots.push(v),
            }
        }
        (!roots.is_empty() && roots.len() <= 8).then_some(roots)
    }

    /// An integer as an affine form (in units of 1).
    fn integer(&self, v: Value<'m>, depth: u32) -> Option<Linear<'m>> {
        if depth > 16 {
            return None;
        }
        if let Some(c) = v.const_int_sext() {
            return Some(Linear {
                konst: c,
                ..Linear::default()
            });
        }
        let Some(i) = v.as_inst() else {
            return Some(Linear {
                inv: vec![(v, 1)],
                ..Linear::default()
            });
        };
        if !self.contains(i.parent_block()) {
            return Some(Linear {
                inv: vec![(v, 1)],
                ..Linear::default()
            });
        }
        if let Some(form) = Linear::of_arithmetic(i, |k| self.integer(i.operand(k), depth + 1)) {
            return form;
        }
        match i.opcode()? {
            LLVMOpcode::LLVMPHI => {
                let Some((m, iv)) = self.affine_iv(i) else {
                    return self.invariant(v);
                };
                if iv.gep_type.is_some() {
                    return None;
                }
                op_start(self, iv.start, depth)?.plus(Linear {
                    per_iteration: vec![(m, iv.step)],
                    ..Linear::default()
                })
            }
            _ => self.invariant(v),
        }
    }

    /// `v` as a value known before the time loop, if it is one.
    fn invariant(&self, v: Value<'m>) -> Option<Linear<'m>> {
        self.known_before(v).then(|| Linear {
            inv: vec![(v, 1)],
            ..Linear::default()
        })
    }

    /// The loop (inside the time loop) of which `phi` is an affine IV.
    fn affine_iv(&self, phi: Inst<'m>) -> Option<(LoopId, AffineIv<'m>)> {
        let m = self.loops.header_of(phi.parent_block())?;
        if m == self.lp && !self.whole {
            return None;
        }
        let iv = self
            .loops
            .affine_ivs(m)
            .into_iter()
            .find(|iv| iv.phi == phi)?;
        self.known_before(iv.start).then_some((m, iv))
    }
}

/// The start of an integer IV as an affine form (known before the loop).
fn op_start<'m>(f: &Finder<'_, 'm>, start: Value<'m>, depth: u32) -> Option<Linear<'m>> {
    f.integer(start, depth + 1)
}

/// The value every incoming edge of phi `v` brings, when they all bring the
/// same (an LCSSA phi of a value from before the loop).
pub(crate) fn single_incoming<'m>(v: Value<'m>) -> Option<Value<'m>> {
    if v.opcode() != Some(LLVMOpcode::LLVMPHI) {
        return None;
    }
    let incoming = v.as_inst()?.incoming();
    let (first, _) = *incoming.first()?;
    (first != v && incoming.iter().all(|(x, _)| *x == first)).then_some(first)
}
