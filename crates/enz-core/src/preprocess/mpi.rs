//! MPI calls in the form the MPI rules follow.
//!
//! `MPI_Test` and `MPI_Testall`: a test
//! that sets its flag has completed its requests, as a wait would have;
//! after each test the preprocessed clone calls `MPI_Waitall(flag ? n :
//! 0, requests, MPI_STATUSES_IGNORE)`: nothing in the primal (the
//! completed requests are null, or there are none), and to the MPI rules
//! a wait whose reverse starts the adjoint transfers and whose tangent
//! waits for the tangents' (`synth/mpi/requests.rs`). The test itself is
//! bookkeeping (`names/mpi.rs`).
//!
//! Contiguous derived datatypes: a call moving `n` elements of a type made
//! by `MPI_Type_contiguous(k, T, &t)` (in this function, or into a global
//! anywhere in the module, nested or not) moves `n * k` elements of the
//! predefined `T`, which the MPI rules read; the clone says so, with `k`
//! computed at the call as `MPI_Type_size(t) / MPI_Type_size(T)` (the
//! type is alive there, and `k` need not be known where the call is).

use crate::analysis::mpi::datatype;
use crate::ir::{
    named_function, Builder, Function, Inst, LLVMIntPredicate, LLVMOpcode, Ty, TyKind, Value,
};
use crate::names::{
    MpiFn, MPI_IRECV, MPI_ISEND, MPI_TEST, MPI_TESTALL, MPI_TYPE_COMMIT, MPI_TYPE_CONTIGUOUS,
    MPI_TYPE_FREE, MPI_TYPE_SIZE, MPI_WAITALL,
};

/// How deep contiguous types of contiguous types are followed.
const NESTING_LIMIT: u32 = 8;

/// Rewrites every MPI call of `func` whose datatype is a contiguous
/// derived type to move the predefined type it is made of; returns
/// whether there was one.
pub(crate) fn predefined_datatypes(func: Function<'_>) -> bool {
    let calls: Vec<(Inst, MpiFn)> = func
        .blocks()
        .into_iter()
        .flat_map(|b| b.instructions())
        .filter_map(|i| {
            let f = MpiFn::from_callee(&i.called_function()?.name())?;
            f.communicates().then_some((i, f))
        })
        .collect();
    let mut changed = false;
    for (call, f) in calls {
        for b in f.buffers() {
            if b.datatype >= call.call_num_args() || b.count >= call.call_num_args() {
                continue;
            }
            let handle = call.operand(b.datatype);
            if datatype(handle).is_ok() {
                continue; // predefined (or already rewritten)
            }
            let Some(base) = contiguous_base(handle, 0) else {
                continue; // the MPI rules refuse it by name
            };
            let ctx = call.context();
            let b_ = Builder::new(ctx);
            let i32t = Ty::int(ctx, 32);
            if call.operand(b.count).ty() != i32t {
                continue;
            }
            b_.position_before(func.entry_block().first_non_phi().expect("an entry block"));
            let (whole, part) = (
                b_.alloca(i32t, "mpi.type.size"),
                b_.alloca(i32t, "mpi.base.size"),
            );
            b_.position_before(call);
            let fty = Ty::function(i32t, &[handle.ty(), Ty::ptr(ctx)], false);
            b_.call_named(MPI_TYPE_SIZE, fty, &[handle, whole]);
            b_.call_named(MPI_TYPE_SIZE, fty, &[base, part]);
            let per = b_.udiv(b_.load(i32t, whole), b_.load(i32t, part));
            let count = b_.mul(call.operand(b.count), per);
            call.as_value().set_operand(b.count, count);
            call.as_value().set_operand(b.datatype, base);
            changed = true;
        }
    }
    changed
}

/// The predefined datatype handle `h` is made of when it is one, or is
/// loaded from a slot (a local or a global) that only
/// `MPI_Type_contiguous` writes, each time of the same predefined type
/// (and `MPI_Type_commit`/`MPI_Type_free` update).
fn contiguous_base<'m>(h: Value<'m>, depth: u32) -> Option<Value<'m>> {
    if datatype(h).is_ok() {
        return Some(h);
    }
    let load = h
        .as_inst()
        .filter(|i| i.opcode() == Some(LLVMOpcode::LLVMLoad))?;
    let slot = load.operand(0);
    let is_slot = slot.is_global_variable() || slot.opcode() == Some(LLVMOpcode::LLVMAlloca);
    if depth >= NESTING_LIMIT || !is_slot {
        return None;
    }
    let mut base: Option<Value<'m>> = None;
    for user in slot.users() {
        let u = user.as_inst()?;
        match u.opcode()? {
            LLVMOpcode::LLVMLoad => {}
            LLVMOpcode::LLVMCall => {
                let name = u.called_function()?.name();
                let only_slot_arg =
                    |k: u32| (0..u.call_num_args()).all(|a| (a == k) == (u.operand(a) == slot));
                match name.as_str() {
                    n if n.starts_with("llvm.lifetime.") => {}
                    MPI_TYPE_COMMIT | MPI_TYPE_FREE if only_slot_arg(0) => {}
                    MPI_TYPE_CONTIGUOUS if u.call_num_args() == 3 && only_slot_arg(2) => {
                        let b = contiguous_base(u.operand(1), depth + 1)?;
                        if base.is_some_and(|old| old != b) {
                            return None;
                        }
                        base = Some(b);
                    }
                    _ => return None,
                }
            }
            _ => return None,
        }
    }
    base
}

/// Follows every `MPI_Test`/`MPI_Testall` of `func` with the wait its
/// completion amounts to; returns whether there was one.
pub(crate) fn waits_after_tests(func: Function<'_>) -> bool {
    let tests: Vec<Inst> = func
        .blocks()
        .into_iter()
        .flat_map(|b| b.instructions())
        .filter(|i| {
            i.called_function()
                .is_some_and(|f| matches!(f.name().as_str(), MPI_TEST | MPI_TESTALL))
        })
        .collect();
    let Some(first) = tests.first() else {
        return false;
    };
    // The ABI: Open MPI's handles are pointers (MPI_STATUSES_IGNORE is
    // null), MPICH's integers (MPI_STATUSES_IGNORE is (MPI_Status *)1).
    let module = func.global_parent();
    let Some(open_mpi) = [MPI_ISEND, MPI_IRECV]
        .iter()
        .filter_map(|n| named_function(module, n))
        .find_map(|f| f.function_type().param_types().get(2).copied())
        .map(|t| t.kind() == TyKind::Pointer)
    else {
        return false;
    };
    let ctx = first.context();
    let (ptr, i32t, i64t) = (Ty::ptr(ctx), Ty::int(ctx, 32), Ty::int(ctx, 64));
    let b = Builder::new(ctx);
    for t in tests {
        let all = t.called_function().is_some_and(|f| f.name() == MPI_TESTALL);
        let (n, reqs, flag) = if all {
            (t.operand(0), t.operand(1), t.operand(2))
        } else {
            (b.i32(1), t.operand(0), t.operand(1))
        };
        if flag.ty().kind() != TyKind::Pointer || n.ty() != i32t {
            continue;
        }
        let next = t
            .next_instruction()
            .expect("a call is followed by its block's rest");
        b.position_before(next);
        let set = b.icmp(
            LLVMIntPredicate::LLVMIntNE,
            b.load(i32t, flag),
            b.const_int(i32t, 0),
        );
        let count = b.select(set, n, b.const_int(i32t, 0));
        let ignore = if open_mpi {
            b.zero(ptr)
        } else {
            b.int_to_ptr(b.const_int(i64t, 1), ptr)
        };
        let fty = Ty::function(i32t, &[i32t, ptr, ptr], false);
        b.call_named(MPI_WAITALL, fty, &[count, reqs, ignore]);
    }
    true
}
