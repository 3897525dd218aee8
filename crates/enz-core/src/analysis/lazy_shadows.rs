//! Heap blocks whose shadow the reverse sweep can allocate itself.
//!
//! A scratch array a function allocates, fills with floats, reads and
//! frees (LULESH's per-cycle `Allocate<Real_t>(numElem8)` arrays) needs a
//! shadow only in the reverse sweep: the forward sweep of reverse mode
//! never touches the shadow of float memory. Allocated with the block in
//! the forward sweep, the shadow lives from there to the reverse of the
//! allocation, so a gradient running the function many times (a time
//! loop) holds every call's shadows at once. Allocated zeroed where the
//! reverse sweep undoes the `free` and freed where it undoes the
//! allocation, it lives only while that call's reverse runs.
//!
//! A block qualifies when its address is used only as the address of
//! loads and of stores of non-pointer values (through GEPs and casts, no
//! phi or select), in comparisons and by `memset`, and exactly one `free`
//! releases it: in the same innermost loop, dominated by the allocation
//! and reached by every path from it (so the reverse sweep always meets
//! the `free` before any use).

use crate::analysis::addresses::{
    address_uses, is_marker_intrinsic, memory_fn, precedes, AddressUse,
};
use crate::analysis::cfg::Cfg;
use crate::analysis::loops::LoopNest;
use crate::ir::{Block, Function, Inst, LLVMOpcode, TyKind, Value};
use crate::names::MemFn;
use std::collections::{HashMap, HashSet};

/// The allocations of `func` whose shadows the reverse sweep allocates,
/// each with the `free` releasing it.
pub(crate) fn lazy_shadow_allocations<'m>(
    func: Function<'m>,
    cfg: &Cfg<'m>,
    loops: &LoopNest<'m>,
) -> HashMap<Value<'m>, Inst<'m>> {
    let mut out = HashMap::new();
    for b in func.blocks() {
        for i in b.instructions() {
            let Some(m) = memory_fn(i) else {
                continue;
            };
            if !matches!(m, MemFn::Malloc | MemFn::New | MemFn::Calloc) {
                continue;
            }
            let mut frees = Vec::new();
            if !only_addressed(i.as_value(), &mut frees) {
                continue;
            }
            let [free] = frees[..] else {
                continue;
            };
            let (ab, fb) = (i.parent_block(), free.parent_block());
            if loops.innermost(ab) != loops.innermost(fb)
                || !cfg.dominates(ab, fb)
                || !always_reaches(i, free)
            {
                continue;
            }
            out.insert(i.as_value(), free);
        }
    }
    out
}

/// Whether block `p`'s address is only used as an address (see the module
/// documentation); the `free`s of it are pushed on `frees`.
fn only_addressed<'m>(p: Value<'m>, frees: &mut Vec<Inst<'m>>) -> bool {
    let Some(uses) = address_uses(p, false) else {
        return false;
    };
    for AddressUse { user, address } in uses {
        let ok = match user.opcode() {
            Some(LLVMOpcode::LLVMLoad | LLVMOpcode::LLVMICmp) => true,
            Some(LLVMOpcode::LLVMStore) => {
                user.operand(0) != address && user.operand(0).ty().kind() != TyKind::Pointer
            }
            Some(LLVMOpcode::LLVMCall) => match memory_fn(user) {
                Some(MemFn::Free | MemFn::Delete) if address == p && user.operand(0) == p => {
                    frees.push(user);
                    true
                }
                Some(MemFn::Memset) => user.operand(0) == address,
                // Markers, and the earlier iterations of a repeated
                // loop (primal code only: no shadow there).
                _ => user.called_function().is_some_and(|f| {
                    let n = f.name();
                    is_marker_intrinsic(&n) || n.starts_with(crate::names::REPEAT_PREFIX)
                }),
            },
            _ => false,
        };
        if !ok {
            return false;
        }
    }
    true
}

/// Whether every path from `from` (to an exit, or around a loop back to
/// it) passes `to`, which comes after it, but paths on which `from`'s
/// block is null (`if (p) free(p)`: it was not allocated, nothing used it)
/// and paths that never return (`exit` on an error).
fn always_reaches<'m>(from: Inst<'m>, to: Inst<'m>) -> bool {
    let start = from.parent_block();
    let stop = to.parent_block();
    if start == stop {
        return precedes(from, to);
    }
    let mut seen: HashSet<Block<'m>> = HashSet::new();
    let mut todo: Vec<Block<'m>> = successors_unless_null(start, from.as_value());
    while let Some(b) = todo.pop() {
        if b == stop || !seen.insert(b) {
            continue;
        }
        // A path ending in `unreachable` (after `exit`, `abort`) never
        // returns: no reverse sweep runs after it.
        let ends = b.terminator().and_then(|t| t.opcode());
        if ends == Some(LLVMOpcode::LLVMUnreachable) {
            continue;
        }
        if b.successors().is_empty() || b == start {
            return false;
        }
        todo.extend(successors_unless_null(b, from.as_value()));
    }
    true
}

/// The successors of `b`, less the one its branch takes when `p` is null.
fn successors_unless_null<'m>(b: Block<'m>, p: Value<'m>) -> Vec<Block<'m>> {
    let succ = b.successors();
    let Some(t) = b.terminator() else {
        return succ;
    };
    if t.opcode() != Some(LLVMOpcode::LLVMBr) || t.num_operands() != 3 {
        return succ;
    }
    let c = t.operand(0);
    let Some(ci) = c
        .as_inst()
        .filter(|c| c.opcode() == Some(LLVMOpcode::LLVMICmp))
    else {
        return succ;
    };
    let null_test = (ci.operand(0) == p && ci.operand(1).is_undef_or_null())
        || (ci.operand(1) == p && ci.operand(0).is_undef_or_null());
    let eq = match c.icmp_predicate() {
        crate::ir::LLVMIntPredicate::LLVMIntEQ => true,
        crate::ir::LLVMIntPredicate::LLVMIntNE => false,
        _ => return succ,
    };
    if !null_test {
        return succ;
    }
    // succ[0] is taken when the condition holds.
    let null_edge = if eq { succ[0] } else { succ[1] };
    succ.into_iter().filter(|s| *s != null_edge).collect()
}
