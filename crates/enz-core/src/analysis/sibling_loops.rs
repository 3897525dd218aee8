//! Loops side by side in one iteration of the loop around them: the
//! forms that let a later loop read, at the same index, what an earlier
//! sibling loop wrote (`base[iv]` with the same base, induction variables
//! of the same start and step, the same exact exit). Store-to-load
//! forwarding (`preprocess/scratch_forwarding.rs`) and the repeated
//! iterations of `repeated.rs` match stores to loads with them.

use crate::analysis::loops::{LoopId, LoopNest};
use crate::analysis::trips::ExactExit;
use crate::ir::LLVMOpcode;
use crate::ir::{Block, Inst, Value};
use std::collections::HashMap;

/// The single block outside loop `l` its latch branches to.
pub(crate) fn unique_exit<'m>(loops: &LoopNest<'m>, l: LoopId) -> Option<Block<'m>> {
    let lp = loops.get(l);
    let mut exits = lp
        .ordered
        .iter()
        .flat_map(|b| b.successors())
        .filter(|s| !lp.blocks.contains(s));
    let e = exits.next()?;
    exits.all(|x| x == e).then_some(e)
}

/// The loops with the same parent as `l`, but `l`.
pub(crate) fn siblings(loops: &LoopNest<'_>, l: LoopId) -> Vec<LoopId> {
    let parent = loops.get(l).parent;
    loops
        .ids()
        .filter(|m| *m != l && loops.get(*m).parent == parent)
        .collect()
}

/// Whether exact exit `a` runs the same iterations as `b`.
pub(crate) fn same_trips(a: Option<ExactExit<'_>>, b: ExactExit<'_>) -> bool {
    a.is_some_and(|a| {
        a.start == b.start
            && a.limit == b.limit
            && a.step == b.step
            && a.go_on == b.go_on
            && a.on_next == b.on_next
    })
}

/// For each integer affine induction variable of `ls` that has one, the
/// one of `ll` with the same start and step.
pub(crate) fn matching_ivs<'m>(
    loops: &LoopNest<'m>,
    ls: LoopId,
    ll: LoopId,
) -> HashMap<Value<'m>, Value<'m>> {
    let theirs = loops.affine_ivs(ll);
    let mut map = HashMap::new();
    for iv in loops.affine_ivs(ls) {
        if iv.gep_type.is_some() {
            continue;
        }
        if let Some(m) = theirs
            .iter()
            .find(|t| t.gep_type.is_none() && t.start == iv.start && t.step == iv.step)
        {
            map.insert(iv.phi.as_value(), m.phi.as_value());
        }
    }
    map
}

/// `p` as `gep T, base, iv` (or a sign or zero extension of `iv`), with
/// `base` defined outside loop `l` and `iv` an induction variable of `l`
/// that takes a different value on each iteration.
pub(crate) fn indexed<'m>(
    loops: &LoopNest<'m>,
    l: LoopId,
    p: Value<'m>,
) -> Option<(Value<'m>, Value<'m>)> {
    let g = p.as_inst()?;
    if g.opcode() != Some(LLVMOpcode::LLVMGetElementPtr) || g.num_operands() != 2 {
        return None;
    }
    let lp = loops.get(l);
    let base = g.operand(0);
    if base.block_of().is_some_and(|b| lp.blocks.contains(&b)) {
        return None;
    }
    let mut idx = g.operand(1);
    if let Some(c) = idx.as_inst() {
        if matches!(
            c.opcode(),
            Some(LLVMOpcode::LLVMSExt | LLVMOpcode::LLVMZExt)
        ) {
            idx = c.operand(0);
        }
    }
    // A step of zero, or one that could wrap within the trips, would
    // write one element on several iterations.
    let iv = loops.affine_ivs(l).into_iter().find(|iv| {
        iv.gep_type.is_none()
            && iv.step != 0
            && matches!(iv.phi.ty().int_width(), Some(32 | 64))
            && iv.phi.as_value() == idx
    })?;
    Some((base, iv.phi.as_value()))
}

/// Whether two GEPs step over the same element type, with the same
/// extension of their index.
pub(crate) fn same_gep_type(a: Value<'_>, b: Value<'_>) -> bool {
    let (Some(a), Some(b)) = (a.as_inst(), b.as_inst()) else {
        return false;
    };
    let ext = |g: Inst<'_>| g.operand(1).as_inst().and_then(|c| c.opcode());
    a.as_value().gep_source_type() == b.as_value().gep_source_type() && ext(a) == ext(b)
}
