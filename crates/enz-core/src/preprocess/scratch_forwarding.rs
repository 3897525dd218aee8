//! Store-to-load forwarding across sibling loops: scratch arrays.
//!
//! Numerical C fills a scratch array in one loop and reads it back, at the
//! same index, in later loops of the same iteration of the loop around
//! them (ADBench's GMM: `xc[j] = x[j] - mu[j]`, then `z[j] = D[j] * xc[j]`
//! and `z[row] += L[k] * xc[col]`). LLVM does not forward a store to a load
//! across loops, and for the gradient the difference matters: the next
//! iteration overwrites the scratch array, so each load of it has to be
//! cached per iteration, while the expression stored (two loads of memory
//! nothing writes, and a subtraction) could be recomputed in the reverse
//! sweep for nothing.
//!
//! So a load in loop `Ll` is replaced by the expression the store in an
//! earlier sibling loop `Ls` stored at the same index, recomputed there,
//! when:
//! - both loops run the same iterations (the same exact exit) and the load
//!   and the store address `base[iv]` with the same `base` and induction
//!   variables of the same start and step;
//! - the store runs on every iteration of `Ls` and is the only write of
//!   `Ls` to `base`'s objects; `Ls` has run to its end whenever `Ll` starts
//!   (its exit block dominates `Ll`'s preheader);
//! - nothing between the two loops, or in `Ll`, may write `base`, and
//!   nothing in `Ls`, between the loops or in `Ll` may write what the
//!   expression loads;
//! - the expression is cheap: at most [`MAX_INSTRUCTIONS`] arithmetic,
//!   cast, GEP and load instructions of `Ls`'s own blocks over values from
//!   before `Ls` and `Ls`'s induction variables.
//!
//! The primal computes the same values; the scratch array's stores, left
//! without loads, are then removed by the clean-up that follows.

use crate::analysis::calls::{classify_callee, CallKind, Direction};
use crate::analysis::cfg::Cfg;
use crate::analysis::loops::{LoopId, LoopNest};
use crate::analysis::sibling_loops::{
    indexed, matching_ivs, same_gep_type, same_trips, siblings, unique_exit,
};
use crate::analysis::writes::{written_by, Written};
use crate::ir::LLVMOpcode;
use crate::ir::{Block, Builder, Function, Inst, Value};
use std::collections::{HashMap, HashSet};

/// The most instructions an expression may have to be recomputed.
const MAX_INSTRUCTIONS: usize = 8;

/// One load to replace: the store whose value it reads, and how the
/// store's induction variables map to the load's loop.
struct Forward<'m> {
    load: Inst<'m>,
    /// The store's loop.
    ls: LoopId,
    value: Value<'m>,
    ivs: HashMap<Value<'m>, Value<'m>>,
}

/// Replaces the loads of `func` that read back what an earlier sibling
/// loop stored (see the module documentation); whether any was.
/// `keep_calls_to` are the functions whose calls stay calls (for what a
/// call may write).
pub(super) fn forward_scratch_loads<'m>(
    func: Function<'m>,
    keep_calls_to: &HashSet<Function<'m>>,
) -> bool {
    let cfg = Cfg::new(func);
    let Ok(loops) = LoopNest::new(&cfg) else {
        return false;
    };
    let no_rules = HashMap::new();
    // What an instruction may write. A call the writes analysis calls
    // inactive may still write (`qsort_r` permutes its integers): only
    // memory functions, masked accesses and maths are taken at their word.
    let written = |i: Inst<'m>| {
        if !matches!(
            i.opcode(),
            Some(LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke)
        ) {
            return written_by(i, || CallKind::Indirect);
        }
        let kind = match i.called_function() {
            Some(f) => classify_callee(f, Direction::Reverse, keep_calls_to, &no_rules),
            None => CallKind::Indirect,
        };
        let known = matches!(
            kind,
            CallKind::Memory(_) | CallKind::Masked(_) | CallKind::Math(_) | CallKind::External(_)
        ) || i.called_function().is_some_and(|f| f.writes_no_memory());
        match written_by(i, || kind) {
            Written::Nothing if !known => Written::Anything,
            w => w,
        }
    };
    let mut forwards = Vec::new();
    for ls in loops.ids() {
        let Some(trips) = loops.exact_exit(ls) else {
            continue;
        };
        let Some(exit) = unique_exit(&loops, ls) else {
            continue;
        };
        let lsl = loops.get(ls);
        for b in &lsl.ordered {
            if loops.innermost(*b) != Some(ls) || !cfg.dominates(*b, lsl.latch) {
                continue;
            }
            for s in b.instructions() {
                if s.opcode() != Some(LLVMOpcode::LLVMStore) || !s.is_simple_access() {
                    continue;
                }
                let Some((base, iv_s)) = indexed(&loops, ls, s.operand(1)) else {
                    continue;
                };
                // The only write of Ls to base's objects.
                let alone = lsl
                    .ordered
                    .iter()
                    .flat_map(|b| b.instructions())
                    .all(|i| i == s || written(i).spares(base));
                if !alone {
                    continue;
                }
                for ll in siblings(&loops, ls) {
                    let lll = loops.get(ll);
                    if !same_trips(loops.exact_exit(ll), trips)
                        || !cfg.dominates(exit, lll.preheader)
                    {
                        continue;
                    }
                    let ivs = matching_ivs(&loops, ls, ll);
                    let Some(iv_l) = ivs.get(&iv_s).copied() else {
                        continue;
                    };
                    let loads: Vec<Inst> = lll
                        .ordered
                        .iter()
                        .flat_map(|b| b.instructions())
                        .filter(|l| {
                            l.opcode() == Some(LLVMOpcode::LLVMLoad)
                                && l.is_simple_access()
                                && l.ty() == s.operand(0).ty()
                                && indexed(&loops, ll, l.operand(0)) == Some((base, iv_l))
                                && same_gep_type(l.operand(0), s.operand(1))
                        })
                        .collect();
                    if loads.is_empty() {
                        continue;
                    }
                    let mut leaves = Vec::new();
                    let mut budget = MAX_INSTRUCTIONS;
                    if !recomputable(&loops, ls, s.operand(0), &ivs, &mut budget, &mut leaves) {
                        continue;
                    }
                    // What may run between the store and the loads.
                    let between = between(&cfg, &loops, ls, exit, ll);
                    let clear_of = |p: Value<'m>, blocks: &mut dyn Iterator<Item = Block<'m>>| {
                        blocks
                            .flat_map(|b| b.instructions())
                            .all(|i| written(i).spares(p))
                    };
                    if !clear_of(base, &mut between.iter().copied()) {
                        continue;
                    }
                    let leaves_kept = leaves.iter().all(|leaf| {
                        clear_of(
                            leaf.operand(0),
                            &mut between.iter().copied().chain(lsl.ordered.iter().copied()),
                        )
                    });
                    if !leaves_kept {
                        continue;
                    }
                    for load in loads {
                        forwards.push(Forward {
                            load,
                            ls,
                            value: s.operand(0),
                            ivs: ivs.clone(),
                        });
                    }
                }
            }
        }
    }
    let mut replaced = HashSet::new();
    for f in &forwards {
        if !replaced.insert(f.load) {
            continue;
        }
        let bld = Builder::new(f.load.context());
        bld.position_before(f.load);
        let mut made = HashMap::new();
        let inside = &loops.get(f.ls).blocks;
        let v = rebuild(&bld, f.value, &f.ivs, inside, &mut made);
        f.load.replace_all_uses_with(v);
        f.load.erase();
    }
    !replaced.is_empty()
}

/// Whether `v` (computed in loop `ls`) can be recomputed in the sibling
/// loop whose induction variables `ivs` maps to; the loads it makes are
/// pushed on `leaves`.
fn recomputable<'m>(
    loops: &LoopNest<'m>,
    ls: LoopId,
    v: Value<'m>,
    ivs: &HashMap<Value<'m>, Value<'m>>,
    budget: &mut usize,
    leaves: &mut Vec<Inst<'m>>,
) -> bool {
    let lp = loops.get(ls);
    let Some(i) = v.as_inst() else {
        return v.is_constant() || v.is_argument();
    };
    if !lp.blocks.contains(&i.parent_block()) {
        return true;
    }
    if ivs.contains_key(&v) {
        return true;
    }
    if loops.innermost(i.parent_block()) != Some(ls) || *budget == 0 {
        return false;
    }
    *budget -= 1;
    use LLVMOpcode::*;
    let ok = match i.opcode() {
        Some(LLVMLoad) => {
            if !i.is_simple_access() {
                return false;
            }
            leaves.push(i);
            true
        }
        Some(
            LLVMGetElementPtr | LLVMAdd | LLVMSub | LLVMMul | LLVMShl | LLVMAnd | LLVMOr | LLVMXor
            | LLVMFAdd | LLVMFSub | LLVMFMul | LLVMFDiv | LLVMFNeg | LLVMSExt | LLVMZExt
            | LLVMTrunc | LLVMSIToFP | LLVMUIToFP | LLVMFPExt | LLVMFPTrunc | LLVMBitCast,
        ) => true,
        _ => false,
    };
    ok && (0..i.num_operands()).all(|k| recomputable(loops, ls, i.operand(k), ivs, budget, leaves))
}

/// The blocks that may run after loop `ls` exits to `exit` and before the
/// sibling loop `ll` is done, within one iteration of the loop around
/// them: those on a path from `exit` to `ll`'s preheader, and `ll`'s own.
fn between<'m>(
    cfg: &Cfg<'m>,
    loops: &LoopNest<'m>,
    ls: LoopId,
    exit: Block<'m>,
    ll: LoopId,
) -> Vec<Block<'m>> {
    let stop = loops.get(ls).parent.map(|p| loops.get(p).header);
    let lll = loops.get(ll);
    let walk = |from: Block<'m>, next: &dyn Fn(Block<'m>) -> Vec<Block<'m>>| {
        let mut seen = HashSet::from([from]);
        let mut todo = vec![from];
        while let Some(b) = todo.pop() {
            if Some(b) == stop || b == lll.header {
                continue;
            }
            for n in next(b) {
                if seen.insert(n) {
                    todo.push(n);
                }
            }
        }
        seen
    };
    let after = walk(exit, &|b| b.successors());
    let before = walk(lll.preheader, &|b| cfg.preds(b).to_vec());
    let mut out: Vec<Block<'m>> = cfg
        .blocks
        .iter()
        .filter(|b| after.contains(b) && before.contains(b))
        .copied()
        .collect();
    out.extend(lll.ordered.iter().copied());
    out
}

/// `v` recomputed at the builder's position: its instructions in blocks
/// `inside` (the store's loop) copied, that loop's induction variables
/// replaced by `ivs`'s.
fn rebuild<'m>(
    bld: &Builder<'m>,
    v: Value<'m>,
    ivs: &HashMap<Value<'m>, Value<'m>>,
    inside: &HashSet<Block<'m>>,
    made: &mut HashMap<Value<'m>, Value<'m>>,
) -> Value<'m> {
    if let Some(m) = ivs.get(&v).or_else(|| made.get(&v)) {
        return *m;
    }
    let Some(i) = v.as_inst().filter(|i| inside.contains(&i.parent_block())) else {
        return v;
    };
    let operands: Vec<Value<'m>> = (0..i.num_operands())
        .map(|k| rebuild(bld, i.operand(k), ivs, inside, made))
        .collect();
    let c = i.clone_instruction();
    bld.insert(c);
    for (k, o) in operands.into_iter().enumerate() {
        c.set_operand(k as u32, o);
    }
    made.insert(v, c.as_value());
    c.as_value()
}
