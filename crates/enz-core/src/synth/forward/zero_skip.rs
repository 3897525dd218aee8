//! Forward mode's zero-tangent loops: a loop whose tangent work only
//! accumulates (into shadow memory, `dy[k] = dy[k] + t`, or into a
//! register, `ds = ds + t`), with every `t` zero when the tangents the
//! loop reads are, runs without that work in a call where they are all
//! zero: the check runs once, before the loop,
//! and picks between the loop and a copy of it without its tangent
//! stores (the dead tangent arithmetic is then optimised away).
//!
//! This is what makes a Jacobian built column by column (one forward call
//! per input direction) cheap where a direction reaches only part of the
//! computation: in a skinning loop over the vertices of each bone, the
//! tangent of a bone's transform is zero for every direction that does not
//! move that bone, and the loop then runs at the primal's cost.
//!
//! A loop qualifies (every such loop is versioned, outer ones first)
//! when:
//! - each tangent store in it stores `load(p) + t` (or `load(p)`) back to
//!   the shadow address `p` it was loaded from, in the same block with no
//!   other tangent write between;
//! - each tangent it leaves with is an accumulator: a tangent phi of its
//!   header that each iteration adds a `t` to (`s += ...` in a register);
//!   the copy leaves with the accumulator's value from before the loop;
//! - each such `t` is zero whenever its sources are: tangent values from
//!   before the loop, and tangent loads whose bytes are a range known
//!   before it (`analysis::checkpoint::read_range`: the load runs in every
//!   iteration, its address is affine in the iterations of the loops
//!   inside, whose trip counts are known before it, and the same in every
//!   iteration of the loop itself); sums, differences, negations, selects
//!   and vector shuffles of zeros are zero, and so are products with one
//!   zero factor;
//! - the shadow memory of its sources is not memory it accumulates into;
//! - its tangent work calls nothing but intrinsics and math functions
//!   that write no memory; its values are used after it only through its
//!   exit blocks' phis (LCSSA) and it leaves only from its latch, or by
//!   an exception from a primal `invoke` (C++: a virtual call that may
//!   throw, with cleanups), whose landing pad the copy's `invoke` unwinds
//!   to as well, carrying only primal values there.
//!
//! The check reads each source range once (a span per shadow object),
//! stopping at the first nonzero word: what one iteration of the loop
//! reads of those tangents, at most. A range that moved with the loop's
//! own iterations would make the check cost as much as the loop's reads
//! (`for i: s += x[i] a` along a unit direction in x scans up to the whole
//! of dx and then runs the full loop: 40-75% slower at n = 2^18), so such
//! a loop is not versioned; a loop around it may be.
//!
//! A zero tangent times an infinite or NaN primal factor is NaN in the
//! full loop and contributes nothing in the copy: the copy treats a zero
//! tangent as if the value were constant, as activity analysis would.

use super::super::runtime;
use super::super::shadow::ShadowMap;
use crate::analysis::calls::CallKinds;
use crate::analysis::cfg::Cfg;
use crate::analysis::checkpoint::{read_range, ReadRange};
use crate::analysis::loops::{LoopId, LoopNest};
use crate::analysis::writes::may_alias_pointers;
use crate::ir::{Block, Builder, Function, Inst, LLVMOpcode, LLVMRealPredicate, Value, ValueMap};
use crate::names::is_libm_without_side_effects;
use crate::transform::checkpoint::{store_offsets, Recompute};
use crate::transform::loop_clone::clone_blocks;
use std::collections::{HashMap, HashSet};

/// What the forward synthesis knows about its derivative `f` of `p`.
pub(super) struct Facts<'a, 'm> {
    pub(super) p: Function<'m>,
    pub(super) f: Function<'m>,
    pub(super) cfg: &'a Cfg<'m>,
    pub(super) kinds: &'a CallKinds<'m>,
    pub(super) map: &'a ValueMap<'m>,
    /// Primal value to its tangents, one per lane.
    pub(super) tangents: &'a HashMap<Value<'m>, Vec<Value<'m>>>,
    pub(super) shadows: &'a [ShadowMap<'m>],
    /// Blocks of `f` holding what followed a call that became an invoke
    /// again, by the invoke's block (`unwind::remap_reattached`): part of
    /// the loop of that block.
    pub(super) continuations: &'a HashMap<Block<'m>, Block<'m>>,
}

/// Versions every qualifying loop of `f`; one note per loop versioned,
/// for `--explain`.
pub(super) fn version_loops(facts: &Facts<'_, '_>) -> Vec<String> {
    let Ok(loops) = LoopNest::new(facts.cfg) else {
        return Vec::new();
    };
    let clones: HashSet<Value> = facts
        .p
        .params()
        .into_iter()
        .chain(
            facts
                .p
                .blocks()
                .iter()
                .flat_map(|b| b.instructions())
                .map(|i| i.as_value()),
        )
        .map(|v| facts.map.get(v))
        .collect();
    let mut tangent_load: HashMap<Value, (Inst, usize)> = HashMap::new();
    for (v, lanes) in facts.tangents {
        let Some(i) = v.as_inst() else { continue };
        if i.opcode() == Some(LLVMOpcode::LLVMLoad) {
            for (lane, t) in lanes.iter().enumerate() {
                tangent_load.insert(*t, (i, lane));
            }
        }
    }
    let mut shadow_of: HashMap<Value, Vec<Value>> = HashMap::new();
    for s in facts.shadows {
        for (primal, shadow) in s.pairs() {
            shadow_of.entry(shadow).or_default().push(primal);
        }
    }
    let cx = Context {
        facts,
        loops: &loops,
        clones,
        tangent_load,
        shadow_of,
    };
    let mut notes = Vec::new();
    // Outer loops first; a loop inside a versioned one is versioned too,
    // in the loop's full form (the copy has no tangent work to skip):
    // where the outer check fails (the tangents of some iterations are
    // not zero), the inner one still skips the iterations whose are.
    // An inner loop whose tangent sources are the same in every iteration
    // of the versioned loop around it is not checked again: its check
    // would give the same answer each time (the outer check's, when those
    // sources are what failed it).
    let mut order: Vec<LoopId> = loops.ids().collect();
    order.sort_by_key(|l| loops.chain(loops.get(*l).header).len());
    let mut done: Vec<LoopId> = Vec::new();
    for l in order {
        let Some(plan) = cx.plan(l) else { continue };
        if let Some(outer) = nearest(&loops, l, &done) {
            if !cx.varies_in(&plan, outer) {
                continue;
            }
        }
        done.push(l);
        let n_values = plan.values.len();
        let n_spans = cx.version(l, plan);
        let lp = loops.get(l);
        let at = super::super::reverse::loop_location(lp)
            .map(|s| format!(" at {s}"))
            .unwrap_or_default();
        let count = |n: usize, one: &str, many: &str| {
            (n > 0).then(|| format!("{n} {}", if n == 1 { one } else { many }))
        };
        let checked: Vec<String> = [
            count(n_values, "tangent value", "tangent values"),
            count(n_spans, "span of shadow memory", "spans of shadow memory"),
        ]
        .into_iter()
        .flatten()
        .collect();
        notes.push(format!(
            "loop {}{at}: its tangent accumulations are skipped in a call where the \
                 tangents it reads are all zero (checked before it: {}; the check is \
                 dropped where the derivative is differentiated again)",
            l.0,
            checked.join(", ")
        ));
    }
    notes
}

/// Gives each phi of `exit` an entry for `copy` (the copy of block
/// `from`): `value` of its entry for `from`.
fn phis_from_copy<'m>(
    exit: Block<'m>,
    from: Block<'m>,
    copy: Block<'m>,
    value: impl Fn(Value<'m>) -> Value<'m>,
) {
    for phi in exit.instructions() {
        if phi.opcode() != Some(LLVMOpcode::LLVMPHI) {
            break;
        }
        let entries: Vec<Value> = phi
            .incoming()
            .into_iter()
            .filter(|(_, p)| *p == from)
            .map(|(x, _)| value(x))
            .collect();
        for x in entries {
            phi.add_incoming(x, copy);
        }
    }
}

/// The innermost of `done` that loop `l` is inside.
fn nearest(loops: &LoopNest<'_>, l: LoopId, done: &[LoopId]) -> Option<LoopId> {
    let mut cur = loops.get(l).parent;
    while let Some(c) = cur {
        if done.contains(&c) {
            return Some(c);
        }
        cur = loops.get(c).parent;
    }
    None
}

struct Context<'a, 'b, 'm> {
    facts: &'a Facts<'b, 'm>,
    loops: &'a LoopNest<'m>,
    /// The clones of the primal's instructions and parameters in `f`.
    clones: HashSet<Value<'m>>,
    /// Tangent load in `f` to the primal load it is the tangent of, and
    /// its lane.
    tangent_load: HashMap<Value<'m>, (Inst<'m>, usize)>,
    /// Shadow pointer in `f` to the primal pointers it shadows.
    shadow_of: HashMap<Value<'m>, Vec<Value<'m>>>,
}

/// How to version one loop.
struct Plan<'m> {
    /// The loop's blocks in `f`.
    blocks: Vec<Block<'m>>,
    /// The tangent stores the copy leaves out.
    stores: Vec<Inst<'m>>,
    /// Tangents the loop leaves with, and the value each keeps in the
    /// copy (the accumulator's value from before the loop).
    kept: Vec<(Value<'m>, Value<'m>)>,
    /// Tangent values from before the loop that must be zero.
    values: Vec<Value<'m>>,
    /// Shadow memory that must be zero: the range, and the lane whose
    /// shadows of its roots it is in.
    ranges: Vec<(ReadRange<'m>, usize)>,
    /// The loop's blocks ending in a primal `invoke` and its landing pad
    /// outside the loop.
    unwinds: Vec<(Block<'m>, Block<'m>)>,
}

/// One loop's proof that its tangent work only adds zeros when its
/// sources are zero: the loop's blocks, the sources found so far, and the
/// phis assumed zero on the way to the value being proven.
struct Proof<'c, 'a, 'b, 'm> {
    cx: &'c Context<'a, 'b, 'm>,
    set: &'c HashSet<Block<'m>>,
    values: Vec<Value<'m>>,
    loads: Vec<Value<'m>>,
    stack: Vec<Value<'m>>,
    steps: usize,
}

/// The most values one loop's proof looks at.
const MAX_STEPS: usize = 4096;

impl<'a, 'b, 'm> Context<'a, 'b, 'm> {
    fn plan(&self, l: LoopId) -> Option<Plan<'m>> {
        let facts = self.facts;
        let lp = self.loops.get(l);
        let mut escaping: Vec<Value> = Vec::new();
        let mut blocks: Vec<Block> = Vec::new();
        for b in &lp.ordered {
            let mut cur = Some(facts.map.block(*b));
            while let Some(c) = cur {
                blocks.push(c);
                cur = facts.continuations.get(&c).copied();
            }
        }
        let set: HashSet<Block> = blocks.iter().copied().collect();
        let header = facts.map.block(lp.header);
        let latch = facts.map.block(lp.latch);
        let pre = facts.map.block(lp.preheader);
        // The copy's shape: entered from the preheader only, left from the
        // latch only, its blocks those of the primal's loop.
        let term = pre.terminator()?;
        if term.opcode() != Some(LLVMOpcode::LLVMBr) || term.num_operands() != 1 {
            return None;
        }
        let mut unwinds = Vec::new();
        for b in &blocks {
            for s in b.successors() {
                if set.contains(&s) || *b == latch {
                    continue;
                }
                let term = b.terminator()?;
                if !self.unwinds_to(term, s) {
                    return None;
                }
                unwinds.push((*b, s));
            }
        }
        let unwind_dests: HashSet<Block> = unwinds.iter().map(|(_, s)| *s).collect();
        for b in &blocks {
            for i in b.instructions() {
                for u in i.as_value().users() {
                    let ub = u.block_of()?;
                    if set.contains(&ub) {
                        continue;
                    }
                    let phi = u.opcode() == Some(LLVMOpcode::LLVMPHI);
                    let primal = self.clones.contains(&i.as_value());
                    if phi && unwind_dests.contains(&ub) && primal {
                        // A primal value where an exception lands: the
                        // copy's clone of it.
                        continue;
                    }
                    if !(phi && latch.successors().contains(&ub)) {
                        return None;
                    }
                    if !primal && !escaping.contains(&i.as_value()) {
                        escaping.push(i.as_value());
                    }
                }
            }
        }
        if self.preds_outside(header, &set) != vec![pre] {
            return None;
        }
        let mut src = Proof {
            cx: self,
            set: &set,
            values: Vec::new(),
            loads: Vec::new(),
            stack: Vec::new(),
            steps: 0,
        };
        let mut stores = Vec::new();
        for b in &blocks {
            for i in b.instructions() {
                if self.clones.contains(&i.as_value()) {
                    continue;
                }
                match i.opcode()? {
                    LLVMOpcode::LLVMStore => {
                        if !src.accumulates(i) {
                            return None;
                        }
                        stores.push(i);
                    }
                    LLVMOpcode::LLVMCall => {
                        let f = i.called_function()?;
                        let pure = (f.intrinsic_id() != 0 && f.writes_no_memory())
                            || is_libm_without_side_effects(&f.name());
                        if !pure {
                            return None;
                        }
                    }
                    LLVMOpcode::LLVMInvoke
                    | LLVMOpcode::LLVMAtomicRMW
                    | LLVMOpcode::LLVMAtomicCmpXchg
                    | LLVMOpcode::LLVMFence
                    | LLVMOpcode::LLVMAlloca => return None,
                    _ => {}
                }
            }
        }
        // Tangents the loop leaves with: accumulators, which keep their
        // value from before the loop when what they add is zero.
        let mut kept = Vec::new();
        for t in escaping {
            let start = header
                .instructions()
                .into_iter()
                .take_while(|i| i.opcode() == Some(LLVMOpcode::LLVMPHI))
                .filter(|i| !self.clones.contains(&i.as_value()))
                .find_map(|p| {
                    let from = |b: Block<'m>| {
                        p.incoming()
                            .into_iter()
                            .find(|(_, x)| *x == b)
                            .map(|(v, _)| v)
                    };
                    let (before, again) = (from(pre)?, from(latch)?);
                    let p = p.as_value();
                    (src.equal(again, p) && src.equal(t, p)).then_some(before)
                })?;
            kept.push((t, start));
        }
        if (stores.is_empty() && kept.is_empty()) || (src.values.is_empty() && src.loads.is_empty())
        {
            return None;
        }
        // The shadow memory read: ranges known before the loop, apart
        // from the memory accumulated into.
        let mut ranges = Vec::new();
        for t in &src.loads {
            let (primal, lane) = *self.tangent_load.get(t)?;
            let r = read_range(facts.cfg, self.loops, facts.kinds, l, primal).ok()?;
            for st in &stores {
                for sp in self.shadow_of.get(&st.operand(1))? {
                    if may_alias_pointers(*sp, primal.operand(0)) {
                        return None;
                    }
                }
            }
            for root in &r.range.roots {
                facts.shadows[lane].forward(*root)?;
            }
            ranges.push((r, lane));
        }
        Some(Plan {
            blocks,
            stores,
            kept,
            values: src.values,
            ranges,
            unwinds,
        })
    }

    /// Whether `term` is a primal `invoke` whose exception lands in `s`.
    fn unwinds_to(&self, term: Inst<'m>, s: Block<'m>) -> bool {
        self.clones.contains(&term.as_value()) && term.only_unwinds_to(s)
    }

    /// Whether a source of `plan` may change from one iteration of loop
    /// `outer` to the next: a tangent value computed in it, or a range
    /// whose roots or terms are.
    fn varies_in(&self, plan: &Plan<'m>, outer: LoopId) -> bool {
        let lp = self.loops.get(outer);
        let in_primal = |v: Value<'m>| {
            v.as_inst()
                .is_some_and(|i| lp.blocks.contains(&i.parent_block()))
        };
        let in_derivative = |v: Value<'m>| {
            v.as_inst().is_some_and(|i| {
                lp.blocks
                    .iter()
                    .any(|b| self.facts.map.block(*b) == i.parent_block())
            })
        };
        plan.values.iter().any(|v| in_derivative(*v))
            || plan.ranges.iter().any(|(r, _)| {
                r.range.roots.iter().any(|v| in_primal(*v))
                    || r.range.inv.iter().any(|(v, _)| in_primal(*v))
            })
    }

    fn preds_outside(&self, b: Block<'m>, set: &HashSet<Block<'m>>) -> Vec<Block<'m>> {
        let mut out = Vec::new();
        for x in self.facts.f.blocks() {
            if !set.contains(&x) && x.successors().contains(&b) && !out.contains(&x) {
                out.push(x);
            }
        }
        out
    }

    /// Builds the check and the copy; returns how many spans of shadow
    /// memory the check reads.
    fn version(&self, l: LoopId, plan: Plan<'m>) -> usize {
        let facts = self.facts;
        let lp = self.loops.get(l);
        let pre = facts.map.block(lp.preheader);
        let header = facts.map.block(lp.header);
        let latch = facts.map.block(lp.latch);
        let term = pre.terminator().expect("checked in plan");
        let b = Builder::new(facts.f.context());
        b.position_before(term);
        let i1 = crate::ir::Ty::int(b.ctx(), 1);
        let mut all = b.const_int(i1, 1);
        for v in &plan.values {
            let zero = b.zero(v.ty());
            let eq = b.fcmp(LLVMRealPredicate::LLVMRealOEQ, *v, zero);
            let n = v.ty().len();
            if n == 0 {
                all = b.and(all, eq);
            } else {
                for k in 0..n {
                    let lane = b.extract_element(
                        eq,
                        b.const_int(crate::ir::Ty::int(b.ctx(), 32), k as i64),
                    );
                    all = b.and(all, lane);
                }
            }
        }
        // Values of the primal from before the loop, as cloned in `f`;
        // those of the loop are computed again here.
        let mut map: HashMap<Value, Value> = HashMap::new();
        for v in facts.p.params() {
            map.insert(v, facts.map.get(v));
        }
        for blk in facts.p.blocks() {
            if lp.blocks.contains(&blk) {
                continue;
            }
            for i in blk.instructions() {
                map.insert(i.as_value(), facts.map.get(i.as_value()));
            }
        }
        let in_loop = |x: Block<'m>| lp.blocks.contains(&x);
        // The ranges' facts are about one loop: one recomputation serves
        // them all (and computes a value they share once).
        let mut choices = HashMap::new();
        let mut finals = HashMap::new();
        for (rr, _) in &plan.ranges {
            choices.extend(rr.choices.iter().map(|(k, v)| (*k, v.clone())));
            finals.extend(rr.finals.iter().map(|(k, v)| (*k, *v)));
        }
        let mut r = Recompute {
            b: &b,
            map,
            inside: &in_loop,
            choices: &choices,
            finals: &finals,
            in_place: false,
        };
        // One check per shadow: the smallest span holding its ranges (the
        // bytes between two ranges of one object are of that object too).
        let mut spans: Vec<(Value, (Value, Value))> = Vec::new();
        for (rr, lane) in &plan.ranges {
            let (lo, hi) = store_offsets(&mut r, &rr.range);
            for root in &rr.range.roots {
                let s = facts.shadows[*lane]
                    .forward(*root)
                    .expect("checked in plan");
                match spans.iter_mut().find(|(x, _)| *x == s) {
                    Some((_, span)) => *span = union(&b, *span, (lo, hi)),
                    None => spans.push((s, (lo, hi))),
                }
            }
        }
        let n_spans = spans.len();
        // At least one call: it marks the check (see `runtime::all_zero`).
        if spans.is_empty() {
            let i64t = crate::ir::Ty::int(b.ctx(), 64);
            let none = b.const_int(i64t, 0);
            spans.push((b.zero(crate::ir::Ty::ptr(b.ctx())), (none, none)));
        }
        for (s, (lo, hi)) in spans {
            all = runtime::all_zero(&b, all, s, lo, hi);
        }
        // The copy, without the tangent stores.
        let mut vmap: HashMap<Value, Value> = HashMap::new();
        let skip: HashSet<Inst> = plan.stores.iter().copied().collect();
        let mut copy = clone_blocks(&plan.blocks, facts.f, &mut vmap, |i| skip.contains(&i));
        copy.blocks.insert(pre, pre);
        let set: HashSet<Block> = plan.blocks.iter().copied().collect();
        copy.patch(&vmap, |_, t| (!set.contains(&t)).then_some(t));
        // The copy's edges out: from its latch (each accumulator leaving
        // with its value from before the loop) and by an exception.
        let kept = |x: Value<'m>| match plan.kept.iter().find(|(t, _)| *t == x) {
            Some((_, start)) => *start,
            None => vmap.get(&x).copied().unwrap_or(x),
        };
        for exit in latch.successors() {
            if !set.contains(&exit) {
                phis_from_copy(exit, latch, copy.blocks[&latch], kept);
            }
        }
        for (blk, pad) in &plan.unwinds {
            phis_from_copy(*pad, *blk, copy.blocks[blk], |x| {
                vmap.get(&x).copied().unwrap_or(x)
            });
        }
        term.erase();
        b.position_at_end(pre);
        b.cond_br(all, copy.blocks[&header], header);
        n_spans
    }

    /// Whether no tangent work between load `l` and store `st` (same
    /// block) writes memory (the primal's writes are to primal memory,
    /// which no shadow is part of; another lane's shadow of the same
    /// primal address is other memory).
    fn no_write_between(&self, l: Inst<'m>, st: Inst<'m>) -> bool {
        let mut cur = l.next_instruction();
        while let Some(i) = cur {
            if i == st {
                return true;
            }
            let tangent = !self.clones.contains(&i.as_value());
            let sibling = |q: Value<'m>| {
                q != st.operand(1)
                    && self.shadow_of.get(&q).is_some_and(|ps| {
                        self.shadow_of
                            .get(&st.operand(1))
                            .is_some_and(|mine| ps.iter().any(|p| mine.contains(p)))
                    })
            };
            match i.opcode() {
                Some(LLVMOpcode::LLVMStore) if tangent && sibling(i.operand(1)) => {}
                Some(
                    LLVMOpcode::LLVMStore
                    | LLVMOpcode::LLVMAtomicRMW
                    | LLVMOpcode::LLVMAtomicCmpXchg,
                ) if tangent => return false,
                Some(LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke)
                    if tangent && !i.called_function().is_some_and(|f| f.writes_no_memory()) =>
                {
                    return false
                }
                _ => {}
            }
            cur = i.next_instruction();
        }
        false
    }
}

/// The byte offsets `[lo, hi)` spanning two ranges of one object, either
/// of which may be empty (`lo == hi`: a loop that does not run).
fn union<'m>(
    b: &Builder<'m>,
    x: (Value<'m>, Value<'m>),
    y: (Value<'m>, Value<'m>),
) -> (Value<'m>, Value<'m>) {
    use crate::ir::LLVMIntPredicate::*;
    let x_empty = b.icmp(LLVMIntEQ, x.0, x.1);
    let y_empty = b.icmp(LLVMIntEQ, y.0, y.1);
    let lo = b.select(b.icmp(LLVMIntSLT, x.0, y.0), x.0, y.0);
    let hi = b.select(b.icmp(LLVMIntSGT, x.1, y.1), x.1, y.1);
    let lo = b.select(y_empty, x.0, lo);
    let hi = b.select(y_empty, x.1, hi);
    (b.select(x_empty, y.0, lo), b.select(x_empty, y.1, hi))
}

impl<'c, 'a, 'b, 'm> Proof<'c, 'a, 'b, 'm> {
    /// Whether tangent store `st` stores `load(p) + t` back to `p`, `t`
    /// zero when the sources it adds are.
    fn accumulates(&mut self, st: Inst<'m>) -> bool {
        let (v, p) = (st.operand(0), st.operand(1));
        if !self.cx.shadow_of.contains_key(&p) {
            return false;
        }
        // Vector mode's partials multiply the old tangent by 1 first.
        let is_old = |x: Value<'m>| {
            unit_factor(x).as_inst().is_some_and(|l| {
                l.opcode() == Some(LLVMOpcode::LLVMLoad)
                    && l.operand(0) == p
                    && l.parent_block() == st.parent_block()
                    && !self.cx.clones.contains(&x)
                    && self.cx.no_write_between(l, st)
            })
        };
        if is_old(v) {
            return true;
        }
        let Some(add) = v.as_inst() else { return false };
        if add.opcode() != Some(LLVMOpcode::LLVMFAdd) || self.cx.clones.contains(&v) {
            return false;
        }
        let (a, b) = (add.operand(0), add.operand(1));
        (is_old(a) && self.zero(b)) || (is_old(b) && self.zero(a))
    }

    /// Whether `v` is zero whenever the sources this adds are (`stack`
    /// holds the phis assumed zero on the way here).
    fn zero(&mut self, v: Value<'m>) -> bool {
        self.steps += 1;
        if self.steps > MAX_STEPS {
            return false;
        }
        if v.is_constant() {
            return v.is_undef_or_null();
        }
        if self.cx.clones.contains(&v) {
            return false;
        }
        let Some(i) = v.as_inst() else {
            // A tangent parameter.
            return self.source_value(v);
        };
        if !self.set.contains(&i.parent_block()) {
            return self.source_value(v);
        }
        use LLVMOpcode::*;
        let op = |k: u32| i.operand(k);
        match i.opcode() {
            Some(LLVMFAdd | LLVMFSub | LLVMInsertElement | LLVMShuffleVector) => {
                self.zero(op(0)) && self.zero(op(1))
            }
            Some(LLVMFMul) => self.either(op(0), op(1)),
            Some(LLVMFDiv | LLVMFNeg | LLVMExtractElement | LLVMFPExt | LLVMFPTrunc) => {
                self.zero(op(0))
            }
            Some(LLVMSelect) => self.zero(op(1)) && self.zero(op(2)),
            Some(LLVMPHI) => {
                if self.stack.contains(&v) {
                    return true;
                }
                self.stack.push(v);
                let ok = i.incoming().into_iter().all(|(x, _)| self.zero(x));
                self.stack.pop();
                ok
            }
            Some(LLVMLoad) => {
                let known = self.cx.tangent_load.contains_key(&v) && !v.ty().is_scalable_vector();
                if known && !self.loads.contains(&v) {
                    self.loads.push(v);
                }
                known
            }
            Some(LLVMCall) => {
                let name = i.called_function().map(|f| f.name()).unwrap_or_default();
                if name.starts_with("llvm.fmuladd.") || name.starts_with("llvm.fma.") {
                    self.either(op(0), op(1)) && self.zero(op(2))
                } else if name.starts_with("llvm.vector.reduce.fadd.") {
                    self.zero(op(0)) && self.zero(op(1))
                } else {
                    false
                }
            }
            _ => false,
        }
    }

    /// Whether `v` equals accumulator phi `acc` whenever the sources this
    /// adds are zero: `acc` itself, `acc` plus or minus a zero,
    /// or a phi of such values.
    fn equal(&mut self, v: Value<'m>, acc: Value<'m>) -> bool {
        self.steps += 1;
        let v = unit_factor(v);
        if v == acc {
            return true;
        }
        if self.steps > MAX_STEPS || self.cx.clones.contains(&v) {
            return false;
        }
        let Some(i) = v.as_inst() else { return false };
        if !self.set.contains(&i.parent_block()) {
            return false;
        }
        let (nv, nl) = (self.values.len(), self.loads.len());
        let ok = match i.opcode() {
            Some(LLVMOpcode::LLVMFAdd) => {
                let (a, b) = (i.operand(0), i.operand(1));
                let left = self.equal(a, acc) && self.zero(b);
                left || {
                    self.values.truncate(nv);
                    self.loads.truncate(nl);
                    self.equal(b, acc) && self.zero(a)
                }
            }
            Some(LLVMOpcode::LLVMFSub) => self.equal(i.operand(0), acc) && self.zero(i.operand(1)),
            Some(LLVMOpcode::LLVMPHI) => {
                if self.stack.contains(&v) {
                    return true;
                }
                self.stack.push(v);
                let ok = i.incoming().into_iter().all(|(x, _)| self.equal(x, acc));
                self.stack.pop();
                ok
            }
            _ => false,
        };
        if !ok {
            self.values.truncate(nv);
            self.loads.truncate(nl);
        }
        ok
    }

    /// A product's proof: through its first factor, else its second (the
    /// sources of a failed attempt are dropped).
    fn either(&mut self, a: Value<'m>, b: Value<'m>) -> bool {
        let (nv, nl) = (self.values.len(), self.loads.len());
        if self.zero(a) {
            return true;
        }
        self.values.truncate(nv);
        self.loads.truncate(nl);
        self.zero(b)
    }

    /// A float tangent from before the loop: checked in the preheader.
    fn source_value(&mut self, v: Value<'m>) -> bool {
        if !v.ty().is_fp_or_fp_vector() || v.ty().is_scalable_vector() {
            return false;
        }
        if !self.values.contains(&v) {
            self.values.push(v);
        }
        true
    }
}

/// `x` without factors of one (`1.0 * y` is `y`).
fn unit_factor(x: Value<'_>) -> Value<'_> {
    let mut x = x;
    while let Some(i) = x.as_inst() {
        if i.opcode() != Some(LLVMOpcode::LLVMFMul) {
            break;
        }
        let (a, b) = (i.operand(0), i.operand(1));
        x = if a.const_float_value() == Some(1.0) {
            b
        } else if b.const_float_value() == Some(1.0) {
            a
        } else {
            break;
        };
    }
    x
}
