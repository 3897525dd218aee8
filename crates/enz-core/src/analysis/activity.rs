//! Activity analysis: which values can carry a derivative from an active
//! input to an active output.
//!
//! A value is *active* when it is both *varied* (reached, through
//! floating-point data flow, from an active argument) and *useful* (it
//! reaches, through floating-point data flow, the active return). Integers,
//! and calls to known-inactive functions, are never active. Memory is not
//! modelled yet: loads are inactive and a varied value stored to memory is
//! reported by synthesis.

use crate::ir::Value;
use crate::names::is_known_inactive;
use llvm_sys::LLVMOpcode;
use std::collections::HashSet;

/// The activity facts of one function for one activity signature.
#[derive(Debug, Default)]
pub(crate) struct Activity {
    varied: HashSet<Value>,
    useful: HashSet<Value>,
}

impl Activity {
    /// Analyses `func` with `active_args[i]` telling whether parameter `i`
    /// is a differentiable input and `ret_active` whether the return is.
    pub(crate) fn analyse(func: Value, active_args: &[bool], ret_active: bool) -> Activity {
        let insts: Vec<Value> = func
            .blocks()
            .into_iter()
            .flat_map(|b| b.instructions())
            .collect();
        let mut varied: HashSet<Value> = func
            .params()
            .into_iter()
            .zip(active_args)
            .filter(|(p, a)| **a && p.ty().carries_float())
            .map(|(p, _)| p)
            .collect();
        let mut changed = true;
        while changed {
            changed = false;
            for i in &insts {
                if varied.contains(i) || !propagates(*i) || !i.ty().carries_float() {
                    continue;
                }
                if data_operands(*i).iter().any(|o| varied.contains(o)) {
                    varied.insert(*i);
                    changed = true;
                }
            }
        }
        let mut useful: HashSet<Value> = HashSet::new();
        if ret_active {
            for i in &insts {
                if i.opcode() == Some(LLVMOpcode::LLVMRet) && i.num_operands() == 1 {
                    useful.insert(i.operand(0));
                }
            }
        }
        // Values a varied store or call writes into memory are useful: the
        // synthesiser must see (and refuse) them rather than drop them.
        for i in &insts {
            if matches!(i.opcode(), Some(LLVMOpcode::LLVMStore)) && varied.contains(&i.operand(0)) {
                useful.insert(i.operand(0));
            }
        }
        changed = true;
        while changed {
            changed = false;
            for i in insts.iter().rev() {
                if !useful.contains(i) || !propagates(*i) {
                    continue;
                }
                for o in data_operands(*i) {
                    if o.ty().carries_float() && useful.insert(o) {
                        changed = true;
                    }
                }
            }
        }
        Activity { varied, useful }
    }

    /// Whether `v` (instruction or argument) is active.
    pub(crate) fn is_active(&self, v: Value) -> bool {
        self.varied.contains(&v) && self.useful.contains(&v)
    }

    /// Whether `v` is reached from an active input (whether or not useful).
    pub(crate) fn is_varied(&self, v: Value) -> bool {
        self.varied.contains(&v)
    }
}

/// Whether derivatives can flow through `i` from its operands to its result.
fn propagates(i: Value) -> bool {
    use LLVMOpcode::*;
    match i.opcode() {
        Some(LLVMLoad | LLVMAlloca | LLVMStore | LLVMFCmp | LLVMICmp | LLVMFPToSI | LLVMFPToUI) => {
            false
        }
        Some(LLVMCall) => match i.called_function() {
            Some(f) => !is_known_inactive(&f.name()),
            None => true,
        },
        Some(_) => true,
        None => false,
    }
}

/// The operands of `i` that carry data (not blocks, not the callee).
pub(crate) fn data_operands(i: Value) -> Vec<Value> {
    if i.opcode() == Some(LLVMOpcode::LLVMCall) {
        return (0..i.call_num_args()).map(|k| i.operand(k)).collect();
    }
    if i.opcode() == Some(LLVMOpcode::LLVMPHI) {
        return i.incoming().into_iter().map(|(v, _)| v).collect();
    }
    i.operands()
        .into_iter()
        .filter(|o| !o.is_block_value())
        .collect()
}
