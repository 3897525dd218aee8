//! Which primal floats the reverse sweep's derivative rules read: for each
//! active instruction (or math call) with a rule, the operands and result
//! its chosen adjoint formulas mention (`PrimalUses`), as `apply_rule` and
//! the math calls fetch them.
//!
//! The plan uses it to recompute, rather than cache, a value whose operands
//! the sweep has anyway (`Plan::recompute_when_free`). It is an estimate:
//! a value it misses is still fetched (and cached) on demand, and one it
//! names in excess only makes a recomputation fetch it. Either way the
//! derivative is the same; only what is cached differs.

use crate::analysis::activity::Activity;
use crate::analysis::calls::{CallKind, CallKinds};
use crate::ir::{Function, Value};
use crate::synth::rules::{lookup, OpKey, PrimalUses};
use std::collections::HashSet;

/// The primal values the derivative rules of `prep`'s active instructions
/// read in the reverse sweep.
pub(crate) fn rule_operands<'m>(
    prep: Function<'m>,
    act: &Activity<'m>,
    kinds: &CallKinds<'m>,
) -> HashSet<Value<'m>> {
    let mut out = HashSet::new();
    for i in prep.blocks().iter().flat_map(|b| b.instructions()) {
        let v = i.as_value();
        if !act.is_active(v) {
            continue;
        }
        let (key, nops) = match i.opcode() {
            Some(crate::ir::LLVMOpcode::LLVMCall) => match kinds.get(v) {
                CallKind::Math(f) => (OpKey::Math(f), i.call_num_args()),
                _ => continue,
            },
            Some(op) => (OpKey::Inst(op), i.num_operands()),
            None => continue,
        };
        let Some(rule) = lookup(key) else { continue };
        let mut uses = PrimalUses::default();
        for k in 0..nops as usize {
            let active = act.is_active(i.operand(k as u32));
            if let Some(Some(adjoint)) = rule.adjoints.get(k).filter(|_| active) {
                uses.collect(adjoint);
            }
        }
        out.extend(uses.args.iter().map(|k| i.operand(*k as u32)));
        if uses.ret || !uses.rets.is_empty() {
            out.insert(v);
        }
    }
    out
}
