//! Calls through a function pointer whose targets are all known become
//! direct calls, which inlining then reaches: a pointer loaded from a
//! local table of functions (stored one by one, or copied from a constant
//! table), from a constant table, or chosen between functions by a
//! `select` or a phi. The call becomes a chain of comparisons of the
//! pointer with each target but the last, each calling its target
//! directly; the last target is called when no comparison matched (a
//! pointer outside the set would have been a call the program could not
//! make). Vector reverse mode needs every call with active data inlined,
//! and every mode differentiates an inlined body better than a table
//! entry reached through a shadow.

use crate::ir::{Block, Builder, Function, Inst, LLVMIntPredicate, LLVMOpcode, Value};
use crate::names::MemFn;

/// The most targets a call is split into.
const MAX_TARGETS: usize = 8;

/// How deep the search for targets follows selects, phis and stores.
const MAX_DEPTH: usize = 8;

/// Makes every call through a pointer with known targets in `f` direct;
/// whether there was one.
pub(super) fn devirtualize_known_targets(f: Function<'_>) -> bool {
    let calls: Vec<Inst> = f
        .blocks()
        .iter()
        .flat_map(|b| b.instructions())
        .filter(|i| i.opcode() == Some(LLVMOpcode::LLVMCall) && i.called_function().is_none())
        .collect();
    let mut any = false;
    for call in calls {
        let Some(callee) = call.called_value() else {
            continue;
        };
        let mut targets = Vec::new();
        if !targets_of(callee, MAX_DEPTH, &mut targets) || targets.is_empty() {
            continue;
        }
        let fty = call.call_function_type();
        if targets.len() > MAX_TARGETS || targets.iter().any(|t| t.function_type() != fty) {
            continue;
        }
        split_call(call, callee, &targets);
        any = true;
    }
    any
}

/// Adds the functions `v` may be to `out`; false when it may be anything
/// else (a null pointer is not a target: calling it is undefined).
fn targets_of<'m>(v: Value<'m>, depth: usize, out: &mut Vec<Function<'m>>) -> bool {
    if depth == 0 {
        return false;
    }
    if function_or_null(v, out) {
        return true;
    }
    match v.opcode() {
        Some(LLVMOpcode::LLVMSelect) => {
            targets_of(v.operand(1), depth - 1, out) && targets_of(v.operand(2), depth - 1, out)
        }
        Some(LLVMOpcode::LLVMPHI) => v.as_inst().is_some_and(|p| {
            p.incoming()
                .iter()
                .all(|(x, _)| targets_of(*x, depth - 1, out))
        }),
        Some(LLVMOpcode::LLVMLoad) => {
            let Some(base) = base_object(v.operand(0)) else {
                return false;
            };
            if let Some(g) = base.as_global() {
                return g.is_global_constant()
                    && g.initializer().is_some_and(|init| functions_in(init, out));
            }
            base.opcode() == Some(LLVMOpcode::LLVMAlloca)
                && stored_in_slot(base, base, depth - 1, out)
        }
        _ => false,
    }
}

/// Whether `v` is a function (added to `out`) or null.
fn function_or_null<'m>(v: Value<'m>, out: &mut Vec<Function<'m>>) -> bool {
    if let Some(f) = v.strip_to_function() {
        if !out.contains(&f) {
            out.push(f);
        }
        return true;
    }
    v.is_undef_or_null()
}

/// The object `p` points into, through GEPs and casts.
fn base_object(p: Value<'_>) -> Option<Value<'_>> {
    let mut p = p;
    for _ in 0..16 {
        match p.opcode() {
            Some(LLVMOpcode::LLVMGetElementPtr | LLVMOpcode::LLVMBitCast) => p = p.operand(0),
            _ => return Some(p),
        }
    }
    None
}

/// Adds every function in constant `c` (a table, nested or not) to `out`;
/// false when it holds a pointer that is not a function or null.
fn functions_in<'m>(c: Value<'m>, out: &mut Vec<Function<'m>>) -> bool {
    if function_or_null(c, out) {
        return true;
    }
    let ty = c.ty();
    match ty.kind() {
        crate::ir::TyKind::Array | crate::ir::TyKind::Struct => (0..ty.len() as u32)
            .all(|k| c.aggregate_element(k).is_some_and(|e| functions_in(e, out))),
        crate::ir::TyKind::Pointer => false,
        // Integers and floats in a table of records are not pointers.
        _ => true,
    }
}

/// Whether every value written into the stack slot `slot` (through
/// `p`, a pointer into it) is known: stores of known targets, copies
/// from a constant table, zeroing; reads, GEPs and lifetime markers are
/// the slot's only other uses (it does not escape).
fn stored_in_slot<'m>(
    slot: Value<'m>,
    p: Value<'m>,
    depth: usize,
    out: &mut Vec<Function<'m>>,
) -> bool {
    if depth == 0 {
        return false;
    }
    p.users().into_iter().all(|u| match u.opcode() {
        Some(LLVMOpcode::LLVMLoad) => true,
        Some(LLVMOpcode::LLVMGetElementPtr | LLVMOpcode::LLVMBitCast) => {
            stored_in_slot(slot, u, depth - 1, out)
        }
        Some(LLVMOpcode::LLVMStore) => {
            // Into the slot, not the slot's address stored elsewhere.
            u.operand(1) == p
                && u.operand(0) != p
                && base_object(u.operand(0)) != Some(slot)
                && targets_of(u.operand(0), depth - 1, out)
        }
        Some(LLVMOpcode::LLVMCall) => {
            let Some(i) = u.as_inst() else { return false };
            let Some(f) = i.called_function() else {
                return false;
            };
            if super::sanitize::is_lifetime_marker(i) {
                return true;
            }
            // The memory intrinsics (not calls of the C library's).
            let m = (f.intrinsic_id() != 0)
                .then(|| MemFn::from_callee(&f.name()))
                .flatten();
            let is_dest = i.operand(0) == p;
            if m == Some(MemFn::Memset) {
                return is_dest && i.operand(1).const_int_sext() == Some(0);
            }
            if m.is_some_and(MemFn::transfers) {
                if !is_dest {
                    // Copied out of the slot: a read.
                    return i.operand(1) == p && base_object(i.operand(0)) != Some(slot);
                }
                let Some(src) = base_object(i.operand(1)).and_then(|s| s.as_global()) else {
                    return false;
                };
                return src.is_global_constant()
                    && src
                        .initializer()
                        .is_some_and(|init| functions_in(init, out));
            }
            false
        }
        _ => false,
    })
}

/// Replaces `call` (through `callee`) by a comparison chain of direct
/// calls of `targets`.
fn split_call<'m>(call: Inst<'m>, callee: Value<'m>, targets: &[Function<'m>]) {
    if let [only] = targets {
        call.set_called_value(only.as_value());
        return;
    }
    let from = call.parent_block();
    let cont = call.split_block_after("devirt.cont");
    let b = Builder::new(call.context());
    let mut results: Vec<(Value<'m>, Block<'m>)> = Vec::new();
    let mut test = from;
    for (k, t) in targets.iter().enumerate() {
        let at = test.insert_block_after(&format!("devirt.{}", t.name()));
        let last = k + 1 == targets.len();
        b.position_at_end(test);
        if last {
            b.br(at);
        } else {
            let next = at.insert_block_after("devirt.next");
            let same = b.icmp(LLVMIntPredicate::LLVMIntEQ, callee, t.as_value());
            b.cond_br(same, at, next);
            test = next;
        }
        b.position_at_end(at);
        let c = call.clone_instruction();
        b.insert(c);
        c.set_called_value(t.as_value());
        b.br(cont);
        results.push((c.as_value(), at));
    }
    if !call.ty().is_void() && call.as_value().has_uses() {
        b.position_at_end(cont);
        let first = cont.first_instruction();
        if let Some(i) = first {
            b.position_before(i);
        }
        let phi = b.phi(call.ty(), "devirt");
        for (v, blk) in &results {
            phi.add_incoming(*v, *blk);
        }
        call.as_value().replace_all_uses_with(phi.as_value());
    }
    call.erase();
}
