//! The moves of integer values that preprocessing's integer webs are made
//! of (`integer_floats`, `integer_copies`): what a move is built from, and
//! how a value of a web is used.

use crate::ir::LLVMOpcode;
use crate::ir::{Inst, Value};

/// How an instruction uses a value of a web.
pub(super) enum Use {
    /// A simple store of it (as the value, not the address).
    Stored,
    /// A move of it: a phi, a select (as a value), a shuffle, an insert
    /// (as the vector or the element), an extract (as the vector), a
    /// freeze.
    Moved,
    /// Anything else.
    Other,
}

/// How `u` uses `v`.
pub(super) fn use_of<'m>(v: Inst<'m>, u: Inst<'m>) -> Use {
    let at = |k: u32| u.operand(k) == v.as_value();
    match u.opcode() {
        Some(LLVMOpcode::LLVMStore) if at(0) && !at(1) && u.is_simple_access() => Use::Stored,
        Some(LLVMOpcode::LLVMPHI | LLVMOpcode::LLVMShuffleVector | LLVMOpcode::LLVMFreeze) => {
            Use::Moved
        }
        Some(LLVMOpcode::LLVMSelect) if !at(0) => Use::Moved,
        Some(LLVMOpcode::LLVMInsertElement) if !at(2) => Use::Moved,
        Some(LLVMOpcode::LLVMExtractElement) if !at(1) => Use::Moved,
        _ => Use::Other,
    }
}

/// Whether `v` is a move (a phi, select, shuffle, insert, extract or
/// freeze) whose moved operands are each an instruction, pushed on `todo`
/// as a member to visit, or a plain integer constant; stops at the first
/// that is neither.
pub(super) fn visit_moved_operands<'m>(v: Inst<'m>, todo: &mut Vec<Inst<'m>>) -> bool {
    let operands: Vec<Value<'m>> = match v.opcode() {
        Some(LLVMOpcode::LLVMPHI) => v.incoming().into_iter().map(|(x, _)| x).collect(),
        Some(LLVMOpcode::LLVMSelect) => vec![v.operand(1), v.operand(2)],
        Some(LLVMOpcode::LLVMShuffleVector | LLVMOpcode::LLVMInsertElement) => {
            vec![v.operand(0), v.operand(1)]
        }
        Some(LLVMOpcode::LLVMExtractElement | LLVMOpcode::LLVMFreeze) => vec![v.operand(0)],
        _ => return false,
    };
    operands.into_iter().all(|x| match x.as_inst() {
        Some(i) => {
            todo.push(i);
            true
        }
        None => x.is_constant() && !x.is_constant_expr(),
    })
}
