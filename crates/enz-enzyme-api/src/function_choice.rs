//! Calls to an entry point that pass one of several functions.
//!
//! `if (which) __enzyme_autodiff((void *)f, x, dx); else
//! __enzyme_autodiff((void *)g, x, dx);` is one call after clang's
//! clean-up: its first argument becomes a `select` or `phi` of `f` and `g`
//! (likewise `__enzyme_autodiff(which ? f : g, ...)` as written). Each
//! derivative is made for one function, so such a call is versioned first:
//! the chosen pointer is compared with each function in turn, and each
//! branch calls the entry point with that function itself; their results
//! meet in a phi. Inside a C++ `try` the call is an `invoke`: each branch
//! invokes with the same landing pad, and their normal edges meet in a
//! block that goes on to the original destination. A choice that is not
//! entirely made of functions is left as it is (the call site's
//! diagnostic names it). A function loaded from a constant table of
//! functions chooses among the table's entries.

use crate::callsite::{entry_point_of, forwarded};
use crate::ir::{
    functions, Builder, Function, Inst, LLVMIntPredicate, LLVMOpcode, Module, TyKind, Value,
};

/// Most functions one call may choose between before it is left alone.
const MAX_CHOICES: usize = 16;

/// Versions every plain call to an entry point of `m` whose function
/// argument is a choice among functions (module documentation).
pub(crate) fn version_function_choices<'m>(m: Module<'m>) {
    let mut calls = Vec::new();
    for f in functions(m) {
        for blk in f.blocks() {
            for i in blk.instructions() {
                let call_or_invoke = matches!(
                    i.opcode(),
                    Some(LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke)
                );
                if call_or_invoke && entry_point_of(i).is_some() {
                    calls.push(i);
                }
            }
        }
    }
    for call in calls {
        let base = u32::from(call.call_num_args() > 0 && call.call_arg_has_attribute(0, "sret"));
        if call.call_num_args() <= base {
            continue;
        }
        let chosen = call.operand(base);
        if forwarded(chosen).strip_to_function().is_some() {
            continue;
        }
        let mut fns = Vec::new();
        if chosen_among(chosen, &mut Vec::new(), &mut fns)
            && !fns.is_empty()
            && fns.len() <= MAX_CHOICES
        {
            version(call, base, chosen, &fns);
        }
    }
}

/// Collects into `fns` the functions `v` chooses among, through selects
/// and phis (`seen`: the phis on the way); false when a choice is not a
/// function.
fn chosen_among<'m>(v: Value<'m>, seen: &mut Vec<Value<'m>>, fns: &mut Vec<Function<'m>>) -> bool {
    let v = forwarded(v);
    if let Some(f) = v.strip_to_function() {
        if !fns.contains(&f) {
            fns.push(f);
        }
        return true;
    }
    match v.opcode() {
        Some(LLVMOpcode::LLVMSelect) => {
            chosen_among(v.operand(1), seen, fns) && chosen_among(v.operand(2), seen, fns)
        }
        Some(LLVMOpcode::LLVMPHI) if seen.contains(&v) => true,
        Some(LLVMOpcode::LLVMPHI) => {
            seen.push(v);
            (0..v.num_operands()).all(|k| chosen_among(v.operand(k), seen, fns))
        }
        // A function read from a constant table of functions (`static
        // void (*const steps[])(...) = {f, g}; ... steps[k]`): any entry.
        Some(LLVMOpcode::LLVMLoad) if v.ty().kind() == TyKind::Pointer => {
            table_entries(v.operand(0), fns)
        }
        _ => false,
    }
}

/// Collects into `fns` the functions of the constant global table address
/// `p` points into (through GEPs); false when `p` is not into one, or an
/// entry is neither a function nor null.
fn table_entries<'m>(p: Value<'m>, fns: &mut Vec<Function<'m>>) -> bool {
    let mut base = p;
    while base.opcode() == Some(LLVMOpcode::LLVMGetElementPtr) {
        base = base.operand(0);
    }
    let Some(table) = base.as_global().filter(|g| g.is_global_constant()) else {
        return false;
    };
    let Some(init) = table.initializer() else {
        return false;
    };
    fn leaves<'m>(c: Value<'m>, fns: &mut Vec<Function<'m>>) -> bool {
        if let Some(f) = c.strip_to_function() {
            if !fns.contains(&f) {
                fns.push(f);
            }
            return true;
        }
        if c.ty().kind() == TyKind::Pointer {
            return c.is_undef_or_null();
        }
        match c.ty().kind() {
            TyKind::Array | TyKind::Struct => {
                (0..c.num_operands()).all(|k| leaves(c.operand(k), fns))
            }
            _ => false,
        }
    }
    leaves(init, fns)
}

/// Replaces `call` by a test of `chosen` against each of `fns` and one
/// call per function (its argument `base` that function). An `invoke` (a
/// call inside a C++ `try`) becomes one invoke per function with the same
/// landing pad; their normal edges meet in a block (with the phi of their
/// results) that branches to the original normal destination.
fn version<'m>(call: Inst<'m>, base: u32, chosen: Value<'m>, fns: &[Function<'m>]) {
    let b = Builder::new(call.context());
    let start = call.parent_block();
    let has_result = call.ty().kind() != TyKind::Void;
    let invoke = call.is_invoke();
    let (joined, result) = if invoke {
        let joined = start.insert_block_after("fn.chosen");
        b.position_at_end(joined);
        let result = has_result.then(|| b.phi(call.ty(), "fn.result"));
        b.br(call.normal_dest());
        call.normal_dest().redirect_phi_incoming(start, joined);
        (joined, result)
    } else {
        let joined = call.split_block_after("fn.chosen");
        let result = has_result.then(|| {
            let first = joined
                .first_instruction()
                .expect("the split block ends in a terminator");
            b.position_before(first);
            b.phi(call.ty(), "fn.result")
        });
        (joined, result)
    };
    let mut after = if invoke { joined } else { start };
    let mut test = None;
    let mut first_branch = None;
    for (k, f) in fns.iter().enumerate() {
        let branch = after.insert_block_after("fn.choice");
        after = branch;
        b.position_at_end(branch);
        let versioned = call.clone_instruction();
        b.insert(versioned);
        versioned.as_value().set_operand(base, f.as_value());
        if invoke {
            versioned.set_normal_dest(joined);
            let unwind = call.unwind_dest();
            match first_branch {
                None => unwind.redirect_phi_incoming(start, branch),
                Some(first) => unwind.copy_phi_incoming(first, branch),
            }
        } else {
            b.br(joined);
        }
        first_branch.get_or_insert(branch);
        if let Some(phi) = result {
            phi.add_incoming(versioned.as_value(), branch);
        }
        // The test that leads here: at the end of the previous test's
        // block, else in `start` (ahead of an invoke, erased below).
        match test {
            Some(t) => b.position_at_end(t),
            None if invoke => b.position_before(call),
            None => b.position_at_end(start),
        }
        if k + 1 == fns.len() {
            b.br(branch);
        } else {
            let next = after.insert_block_after("fn.test");
            after = next;
            let same = b.icmp(LLVMIntPredicate::LLVMIntEQ, chosen, f.as_value());
            b.cond_br(same, branch, next);
            test = Some(next);
        }
    }
    if let Some(phi) = result {
        call.as_value().replace_all_uses_with(phi.as_value());
    }
    call.erase();
}
