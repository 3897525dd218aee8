//! The loop level at which each value of a loop varies: for an instruction
//! inside loops, the innermost loop around it in which it may take another
//! value from one iteration to the next. A value the reverse sweep needs is
//! cached once per iteration of that loop (or once, when it varies in no
//! loop around it) instead of once per iteration of the loop it sits in:
//! `x[i]` read inside `for (j)` is one value per `i`.
//!
//! A value varies in loop `L` when it is a phi of `L`, an allocation, a
//! call, or a load whose memory something in `L` may write (any store,
//! memory intrinsic or call in `L`'s blocks, loops inside included, whose
//! objects may alias the load's: `writes::written_by`), or when one of its
//! operands varies in `L`. Values defined outside `L` do not vary in it.
//! The rule is conservative: a value it calls invariant computes the same
//! result every time it runs within one iteration of the loops around `L`.

use super::calls::{CallFacts, Direction};
use super::cfg::Cfg;
use super::loops::{LoopId, LoopNest};
use super::writes::{may_point_into, written_by, Written};
use crate::ir::LLVMOpcode;
use crate::ir::{Inst, Value};
use std::collections::{HashMap, HashSet};

/// Per instruction inside loops, the innermost loop around it in which it
/// varies (`None`: it varies in no loop around it).
#[derive(Debug, Default)]
pub(crate) struct Invariance<'m> {
    level: HashMap<Value<'m>, Option<LoopId>>,
}

impl<'m> Invariance<'m> {
    pub(crate) fn analyse(
        cfg: &Cfg<'m>,
        loops: &LoopNest<'m>,
        calls: CallFacts<'m, '_>,
    ) -> Invariance<'m> {
        let rpo = cfg.rpo();
        let insts: Vec<Inst> = rpo.iter().flat_map(|b| b.instructions()).collect();
        // What each instruction may write (calls classified once).
        let writes: Vec<(Inst, Option<HashSet<Value>>)> = insts
            .iter()
            .filter_map(|i| {
                match written_by(*i, || calls.classify(i.as_value(), Direction::Reverse)) {
                    Written::Nothing => None,
                    Written::Objects(o) => Some((*i, Some(o))),
                    Written::Anything => Some((*i, None)),
                }
            })
            .collect();
        // Per loop, which of its instructions vary in it.
        let mut varies: HashMap<LoopId, HashSet<Value>> = HashMap::new();
        for l in loops.ids() {
            let lp = loops.get(l);
            let writes_in: Vec<&Option<HashSet<Value>>> = writes
                .iter()
                .filter(|(w, _)| lp.blocks.contains(&w.parent_block()))
                .map(|(_, o)| o)
                .collect();
            let mut set: HashSet<Value> = HashSet::new();
            // Reverse post-order: an operand other than a phi's incoming
            // value comes before its user (phis vary anyway).
            for i in insts
                .iter()
                .filter(|i| lp.blocks.contains(&i.parent_block()))
            {
                let v = i.as_value();
                let operand_varies = (0..i.num_operands()).any(|k| set.contains(&i.operand(k)));
                let own = match i.opcode() {
                    Some(
                        LLVMOpcode::LLVMPHI
                        | LLVMOpcode::LLVMCall
                        | LLVMOpcode::LLVMInvoke
                        | LLVMOpcode::LLVMAlloca
                        | LLVMOpcode::LLVMLandingPad
                        | LLVMOpcode::LLVMAtomicRMW
                        | LLVMOpcode::LLVMAtomicCmpXchg
                        | LLVMOpcode::LLVMVAArg,
                    ) => true,
                    Some(LLVMOpcode::LLVMLoad) => {
                        i.is_volatile()
                            || writes_in.iter().any(|objs| match objs {
                                None => true,
                                Some(o) => may_point_into(i.operand(0), o),
                            })
                    }
                    _ => false,
                };
                if own || operand_varies {
                    set.insert(v);
                }
            }
            varies.insert(l, set);
        }
        let mut level = HashMap::new();
        for i in &insts {
            let Some(inner) = loops.innermost(i.parent_block()) else {
                continue;
            };
            let mut at = None;
            let mut cur = Some(inner);
            while let Some(l) = cur {
                if varies[&l].contains(&i.as_value()) {
                    at = Some(l);
                    break;
                }
                cur = loops.get(l).parent;
            }
            level.insert(i.as_value(), at);
        }
        Invariance { level }
    }

    /// The innermost loop around instruction `v` in which it varies: `None`
    /// for a value that varies in none (or is in no loop); `Some` of the
    /// loop for values not analysed (conservatively, where they sit).
    pub(crate) fn varies_in(&self, v: Value<'m>) -> Option<Option<LoopId>> {
        self.level.get(&v).copied()
    }
}
