//! Natural loops and the loop nest, from enz-rs's own dominator tree.
//!
//! A back edge is an edge whose target (the header) dominates its source
//! (the latch); the loop is the header plus every block that reaches the
//! latch without passing the header. Loops sharing a header are merged.
//! Synthesis needs loops in simplified form (one preheader, one latch,
//! dedicated exits), which preprocessing's `loop-simplify` provides; a loop
//! without that shape is reported, not guessed at.

use super::cfg::Cfg;
use crate::ir::{Block, Inst, Value};
use crate::ir::{LLVMIntPredicate, LLVMOpcode};
use std::collections::{HashMap, HashSet};

/// Index of a loop in a [`LoopNest`].
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub(crate) struct LoopId(pub(crate) usize);

impl std::fmt::Display for LoopId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "loop{}", self.0)
    }
}

/// One natural loop.
#[derive(Debug)]
pub(crate) struct Loop<'m> {
    pub(crate) header: Block<'m>,
    /// The single block with the back edge.
    pub(crate) latch: Block<'m>,
    /// The single predecessor of the header outside the loop.
    pub(crate) preheader: Block<'m>,
    pub(crate) blocks: HashSet<Block<'m>>,
    /// The same blocks in function order, for walks whose result must not
    /// depend on hashing (the output is deterministic).
    pub(crate) ordered: Vec<Block<'m>>,
    /// The innermost enclosing loop.
    pub(crate) parent: Option<LoopId>,
}

/// An induction variable `start + step * iteration` (a header phi).
#[derive(Copy, Clone, Debug)]
pub(crate) struct AffineIv<'m> {
    pub(crate) phi: Inst<'m>,
    /// Incoming value from the preheader.
    pub(crate) start: Value<'m>,
    /// Constant step per iteration (in units of `elem` bytes for pointers).
    pub(crate) step: i64,
    /// For pointer IVs, the GEP's source element type.
    pub(crate) gep_type: Option<crate::ir::Ty<'m>>,
}

/// All loops of a function.
#[derive(Debug, Default)]
pub(crate) struct LoopNest<'m> {
    pub(crate) loops: Vec<Loop<'m>>,
    innermost: HashMap<Block<'m>, LoopId>,
}

/// Why a loop cannot be handled.
#[derive(Debug)]
pub(crate) struct LoopShapeError<'m> {
    pub(crate) header: Block<'m>,
    pub(crate) reason: &'static str,
}

impl<'m> LoopNest<'m> {
    pub(crate) fn new(cfg: &Cfg<'m>) -> Result<LoopNest<'m>, LoopShapeError<'m>> {
        // Headers in the order their first back edge is found, so that loop
        // numbering (and so the output) does not depend on hashing.
        let mut headers: Vec<Block> = Vec::new();
        let mut by_header: HashMap<Block, (Vec<Block>, HashSet<Block>)> = HashMap::new();
        for (latch, header) in cfg.back_edges() {
            let entry = by_header.entry(header).or_insert_with(|| {
                headers.push(header);
                (Vec::new(), HashSet::new())
            });
            entry.0.push(latch);
            entry.1.insert(header);
            let mut stack = vec![latch];
            while let Some(b) = stack.pop() {
                if entry.1.insert(b) {
                    for p in cfg.preds(b) {
                        if cfg.is_reachable(*p) {
                            stack.push(*p);
                        }
                    }
                }
            }
        }
        let mut loops = Vec::new();
        for header in headers {
            let (latches, blocks) = by_header.remove(&header).expect("recorded with its header");
            if latches.len() != 1 {
                return Err(LoopShapeError {
                    header,
                    reason: "the loop has several back edges, which loop-simplify could not merge",
                });
            }
            let outside: Vec<Block> = cfg
                .unique_preds(header)
                .into_iter()
                .filter(|p| !blocks.contains(p))
                .collect();
            if outside.len() != 1 {
                return Err(LoopShapeError {
                    header,
                    reason: "the loop has no single preheader, which loop-simplify could not add",
                });
            }
            let ordered = cfg
                .blocks
                .iter()
                .copied()
                .filter(|b| blocks.contains(b))
                .collect();
            loops.push(Loop {
                header,
                latch: latches[0],
                preheader: outside[0],
                blocks,
                ordered,
                parent: None,
            });
        }
        // Outer loops first: larger loops contain smaller ones.
        loops.sort_by_key(|l| std::cmp::Reverse(l.blocks.len()));
        let n = loops.len();
        for i in 0..n {
            let parent = (0..i)
                .rev()
                .find(|j| loops[*j].blocks.contains(&loops[i].header));
            loops[i].parent = parent.map(LoopId);
        }
        let mut innermost = HashMap::new();
        for (i, l) in loops.iter().enumerate() {
            for b in &l.blocks {
                innermost.insert(*b, LoopId(i));
            }
        }
        Ok(LoopNest { loops, innermost })
    }

    pub(crate) fn get(&self, id: LoopId) -> &Loop<'m> {
        &self.loops[id.0]
    }

    /// The innermost loop containing `b`.
    pub(crate) fn innermost(&self, b: Block<'m>) -> Option<LoopId> {
        self.innermost.get(&b).copied()
    }

    pub(crate) fn contains(&self, l: LoopId, b: Block<'m>) -> bool {
        self.loops[l.0].blocks.contains(&b)
    }

    /// The loops containing `b`, outermost first.
    pub(crate) fn chain(&self, b: Block<'m>) -> Vec<LoopId> {
        let mut out = Vec::new();
        let mut cur = self.innermost(b);
        while let Some(l) = cur {
            out.push(l);
            cur = self.loops[l.0].parent;
        }
        out.reverse();
        out
    }

    pub(crate) fn ids(&self) -> impl Iterator<Item = LoopId> {
        (0..self.loops.len()).map(LoopId)
    }

    /// Whether `b` is the header of a loop, and which.
    pub(crate) fn header_of(&self, b: Block<'m>) -> Option<LoopId> {
        self.ids().find(|l| self.loops[l.0].header == b)
    }

    /// Header phis of loop `l` that are affine in the iteration count.
    pub(crate) fn affine_ivs(&self, l: LoopId) -> Vec<AffineIv<'m>> {
        let lp = &self.loops[l.0];
        let mut out = Vec::new();
        for phi in lp.header.instructions() {
            if phi.opcode() != Some(LLVMOpcode::LLVMPHI) {
                break;
            }
            let inc = phi.incoming();
            let start = inc
                .iter()
                .find(|(_, b)| *b == lp.preheader)
                .map(|(v, _)| *v);
            let next = inc.iter().find(|(_, b)| *b == lp.latch).map(|(v, _)| *v);
            let (Some(start), Some(next)) = (start, next) else {
                continue;
            };
            if inc.len() != 2 || start.block_of().is_some_and(|b| lp.blocks.contains(&b)) {
                continue;
            }
            if let Some((step, gep_type)) = step_of(phi.into(), next) {
                out.push(AffineIv {
                    phi,
                    start,
                    step,
                    gep_type,
                });
            }
        }
        out
    }
}

/// `next = phi + step` (integer add, or a one-index GEP) with a constant step.
fn step_of<'m>(phi: Value<'m>, next: Value<'m>) -> Option<(i64, Option<crate::ir::Ty<'m>>)> {
    match next.opcode()? {
        LLVMOpcode::LLVMAdd if phi.ty().is_integer() => {
            let (a, b) = (next.operand(0), next.operand(1));
            if a == phi {
                b.const_int_sext().map(|s| (s, None))
            } else if b == phi {
                a.const_int_sext().map(|s| (s, None))
            } else {
                None
            }
        }
        LLVMOpcode::LLVMGetElementPtr if next.num_operands() == 2 && next.operand(0) == phi => {
            let s = next.operand(1).const_int_sext()?;
            Some((s, Some(next.gep_source_type())))
        }
        _ => None,
    }
}

/// What bounds the number of header executions of a loop.
#[derive(Clone, Debug)]
pub(crate) enum TripBound<'m> {
    /// The least of the exits' distances (each exit an upper bound on its
    /// own: the loop leaves at the first), plus 3 (a deliberate
    /// over-estimate that covers header- and latch-tested loops and
    /// inclusive comparisons).
    Affine(Vec<AffineExit<'m>>),
    /// A constant (an IV halved each iteration until 0: its bit width).
    Constant(u64),
}

/// An exit test that an affine IV must reach: `|limit - start| / |step|`
/// iterations for an ordered comparison; for `!=` (`wraps`), the distance
/// in the direction of the step, modulo 2^64, from the value tested (the
/// IV's first value, or its second when the test is on the next value):
/// an IV counting up from 0 to -1 takes 2^64 - 1 steps, not 1, and its
/// next value reaches 0 after 2^64 - 1 steps, not 0.
#[derive(Copy, Clone, Debug)]
pub(crate) struct AffineExit<'m> {
    pub(crate) start: Value<'m>,
    pub(crate) limit: Value<'m>,
    pub(crate) step: i64,
    pub(crate) wraps: bool,
    /// The test is on the IV's next value (`iv + step`).
    pub(crate) on_next: bool,
}

impl AffineExit<'_> {
    /// Whether the exit, with constant ends, can never be the one that
    /// stops the loop in practice (over 2^40 iterations): left out.
    fn hopeless(&self) -> bool {
        let (Some(a), Some(b)) = (self.start.const_int_sext(), self.limit.const_int_sext()) else {
            return false;
        };
        let from = if self.wraps && self.on_next {
            a.wrapping_add(self.step)
        } else {
            a
        };
        let diff = b.wrapping_sub(from);
        let dist = if !self.wraps {
            diff.unsigned_abs()
        } else if self.step > 0 {
            diff as u64
        } else {
            diff.wrapping_neg() as u64
        };
        dist / self.step.unsigned_abs().max(1) > 1 << 40
    }
}

impl<'m> LoopNest<'m> {
    /// A bound on the iterations of `l` computable before it runs: an
    /// exiting test that every iteration passes (it dominates the latch)
    /// compares an affine IV (or its next value) with a value defined
    /// outside `outside` (a loop enclosing `l`, or `l` itself).
    pub(crate) fn trip_bound(
        &self,
        cfg: &Cfg<'m>,
        l: LoopId,
        outside: LoopId,
    ) -> Option<TripBound<'m>> {
        let lp = self.get(l);
        let ivs = self.affine_ivs(l);
        let outer = self.get(outside);
        let invariant = |v: Value| v.block_of().is_none_or(|b| !outer.blocks.contains(&b));
        let mut exits = Vec::new();
        for x in &lp.ordered {
            if !cfg.dominates(*x, lp.latch) {
                continue;
            }
            let Some(t) = x.terminator() else { continue };
            if t.opcode() != Some(LLVMOpcode::LLVMBr) || t.num_operands() != 3 {
                continue;
            }
            if !x.successors().iter().any(|s| !lp.blocks.contains(s)) {
                continue;
            }
            let c = t.operand(0);
            if c.opcode() != Some(LLVMOpcode::LLVMICmp) {
                continue;
            }
            let stays_true = lp.blocks.contains(&x.successors()[0]);
            if let Some(bits) = halving_iv_test(lp, c, stays_true) {
                return Some(TripBound::Constant(u64::from(bits) + 2));
            }
            for (swapped, (a, b)) in [
                (false, (c.operand(0), c.operand(1))),
                (true, (c.operand(1), c.operand(0))),
            ] {
                if !invariant(b) {
                    continue;
                }
                // The predicate under which the loop goes on, IV on the left.
                let mut pred = c.icmp_predicate();
                if !stays_true {
                    pred = inverse(pred);
                }
                if swapped {
                    pred = swap(pred);
                }
                for iv in &ivs {
                    if iv.gep_type.is_some() || !invariant(iv.start) {
                        continue;
                    }
                    let next = iv
                        .phi
                        .incoming()
                        .into_iter()
                        .find(|(_, blk)| *blk == lp.latch)
                        .map(|(v, _)| v);
                    // With a single exit, an IV that skipped the limit would
                    // loop forever in the primal too: `!=` with any step is
                    // a bound then.
                    let single_exit = lp
                        .blocks
                        .iter()
                        .filter(|b| b.successors().iter().any(|s| !lp.blocks.contains(s)))
                        .count()
                        == 1;
                    let bounded = bounded_by(pred, iv.step)
                        || (single_exit && pred == LLVMIntPredicate::LLVMIntNE && iv.step != 0);
                    if (a == iv.phi || Some(a) == next) && bounded {
                        let exit = AffineExit {
                            start: iv.start,
                            limit: b,
                            step: iv.step,
                            wraps: pred == LLVMIntPredicate::LLVMIntNE,
                            on_next: a != iv.phi,
                        };
                        if !exit.hopeless() {
                            exits.push(exit);
                        }
                    }
                }
            }
        }
        (!exits.is_empty()).then_some(TripBound::Affine(exits))
    }
}

/// How to compute, at a loop's exit, the iteration it left in: the loop's
/// only exiting block is its latch, whose test compares an affine integer
/// IV (or its next value) with a value defined outside the loop, so the
/// last iteration follows from the IV's start, the limit and the step.
#[derive(Copy, Clone, Debug)]
pub(crate) struct ExactExit<'m> {
    /// The IV's first value (defined outside the loop).
    pub(crate) start: Value<'m>,
    /// What it is compared with (defined outside the loop).
    pub(crate) limit: Value<'m>,
    pub(crate) step: i64,
    /// The predicate under which the loop goes on, the IV on the left.
    pub(crate) go_on: LLVMIntPredicate,
    /// The test is on the IV's next value (`iv + step`).
    pub(crate) on_next: bool,
}

impl<'m> LoopNest<'m> {
    /// The exact exit of `l`, if its trip count follows from values defined
    /// outside it (see [`ExactExit`]): `!=` with a step of 1 or -1, or an
    /// ordered comparison in the direction of the step.
    pub(crate) fn exact_exit(&self, l: LoopId) -> Option<ExactExit<'m>> {
        let lp = self.get(l);
        let exiting: Vec<Block> = lp
            .ordered
            .iter()
            .filter(|b| b.successors().iter().any(|s| !lp.blocks.contains(s)))
            .copied()
            .collect();
        if exiting != [lp.latch] {
            return None;
        }
        let t = lp.latch.terminator()?;
        if t.opcode() != Some(LLVMOpcode::LLVMBr) || t.num_operands() != 3 {
            return None;
        }
        let c = t.operand(0);
        if c.opcode() != Some(LLVMOpcode::LLVMICmp) {
            return None;
        }
        let stays_true = lp.blocks.contains(&lp.latch.successors()[0]);
        let outside = |v: Value| v.block_of().is_none_or(|b| !lp.blocks.contains(&b));
        for iv in self.affine_ivs(l) {
            if iv.gep_type.is_some() || !iv.phi.ty().is_integer() {
                continue;
            }
            let next = iv
                .phi
                .incoming()
                .into_iter()
                .find(|(_, blk)| *blk == lp.latch)
                .map(|(v, _)| v)?;
            for (swapped, (a, b)) in [
                (false, (c.operand(0), c.operand(1))),
                (true, (c.operand(1), c.operand(0))),
            ] {
                if a != iv.phi.as_value() && a != next || !outside(b) {
                    continue;
                }
                let mut go_on = c.icmp_predicate();
                if !stays_true {
                    go_on = inverse(go_on);
                }
                if swapped {
                    go_on = swap(go_on);
                }
                if !bounded_by(go_on, iv.step) {
                    continue;
                }
                return Some(ExactExit {
                    start: iv.start,
                    limit: b,
                    step: iv.step,
                    go_on,
                    on_next: a == next,
                });
            }
        }
        None
    }
}

/// Whether "go on while `iv pred limit`" stops an IV moving by `step`.
fn bounded_by(pred: LLVMIntPredicate, step: i64) -> bool {
    use LLVMIntPredicate::*;
    match pred {
        LLVMIntSLT | LLVMIntULT | LLVMIntSLE | LLVMIntULE => step > 0,
        LLVMIntSGT | LLVMIntUGT | LLVMIntSGE | LLVMIntUGE => step < 0,
        LLVMIntNE => step == 1 || step == -1,
        LLVMIntEQ => false,
    }
}

fn inverse(p: LLVMIntPredicate) -> LLVMIntPredicate {
    use LLVMIntPredicate::*;
    match p {
        LLVMIntEQ => LLVMIntNE,
        LLVMIntNE => LLVMIntEQ,
        LLVMIntSLT => LLVMIntSGE,
        LLVMIntSGE => LLVMIntSLT,
        LLVMIntSLE => LLVMIntSGT,
        LLVMIntSGT => LLVMIntSLE,
        LLVMIntULT => LLVMIntUGE,
        LLVMIntUGE => LLVMIntULT,
        LLVMIntULE => LLVMIntUGT,
        LLVMIntUGT => LLVMIntULE,
    }
}

fn swap(p: LLVMIntPredicate) -> LLVMIntPredicate {
    use LLVMIntPredicate::*;
    match p {
        LLVMIntSLT => LLVMIntSGT,
        LLVMIntSGT => LLVMIntSLT,
        LLVMIntSLE => LLVMIntSGE,
        LLVMIntSGE => LLVMIntSLE,
        LLVMIntULT => LLVMIntUGT,
        LLVMIntUGT => LLVMIntULT,
        LLVMIntULE => LLVMIntUGE,
        LLVMIntUGE => LLVMIntULE,
        other => other,
    }
}

/// For a loop going on while an IV shifted right each iteration is
/// non-zero (`for (s = N; s > 0; s >>= 1)`): the IV's bit width.
fn halving_iv_test<'m>(lp: &Loop<'m>, c: Value<'m>, stays_true: bool) -> Option<u32> {
    use LLVMIntPredicate::*;
    let (a, b) = (c.operand(0), c.operand(1));
    if b.const_int_sext() != Some(0) {
        return None;
    }
    let mut pred = c.icmp_predicate();
    if !stays_true {
        pred = inverse(pred);
    }
    if !matches!(pred, LLVMIntSGT | LLVMIntUGT | LLVMIntNE) {
        return None;
    }
    for phi in lp.header.instructions() {
        if phi.opcode() != Some(LLVMOpcode::LLVMPHI) {
            break;
        }
        let next = phi
            .incoming()
            .into_iter()
            .find(|(_, blk)| *blk == lp.latch)
            .map(|(v, _)| v)?;
        let halves = matches!(
            next.opcode(),
            Some(LLVMOpcode::LLVMLShr | LLVMOpcode::LLVMAShr)
        ) && next.operand(0) == phi
            && next.operand(1).const_int_sext().is_some_and(|k| k > 0);
        if halves && (a == phi || a == next) {
            if let crate::ir::TyKind::Integer(bits) = phi.ty().kind() {
                return Some(bits);
            }
        }
    }
    None
}
