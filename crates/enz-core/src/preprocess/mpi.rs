//! `MPI_Test` and `MPI_Testall` in a form the MPI rules follow. A test
//! that sets its flag has completed its requests, as a wait would have;
//! after each test the preprocessed clone calls `MPI_Waitall(flag ? n :
//! 0, requests, MPI_STATUSES_IGNORE)`: nothing in the primal (the
//! completed requests are null, or there are none), and to the MPI rules
//! a wait whose reverse starts the adjoint transfers and whose tangent
//! waits for the tangents' (`synth/mpi/requests.rs`). The test itself is
//! bookkeeping (`names/mpi.rs`).

use crate::ir::{named_function, Builder, Function, Inst, LLVMIntPredicate, Ty, TyKind};
use crate::names::{MPI_IRECV, MPI_ISEND, MPI_TEST, MPI_TESTALL, MPI_WAITALL};

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
