//! The adjoints of MPI's blocking calls, one helper function each
//! (emitted once per module and ABI): the opposite communication on the
//! shadows, with temporaries for what arrives.

use super::{helper_name, mpi_call, Abi, Helper};
use crate::ir::LLVMIntPredicate;
use crate::ir::{Builder, Function, Ty, Value};

/// The adjoint rules of blocking calls, one helper each: their
/// parameters are the call's with each buffer replaced by its shadow (or
/// null), the operation and status left out, and the element size last.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Adjoint {
    /// Of `MPI_Send`: receive from the destination into a temporary, add.
    Send,
    /// Of `MPI_Recv`: send the shadow back to the source, zero it.
    Recv,
    /// Of `MPI_Sendrecv`: both, in one `MPI_Sendrecv`.
    Sendrecv,
    /// Of `MPI_Bcast`: sum-reduce the shadows to the root; the root's
    /// shadow is the sum, the others' zero.
    Bcast,
    /// Of `MPI_Reduce` (sum): broadcast the root's result shadow, add it
    /// to every send shadow; zero the root's.
    Reduce,
    /// Of `MPI_Allreduce` (sum): sum the result shadows over all ranks,
    /// add to the send shadow; zero the result's.
    Allreduce,
    /// Of `MPI_Gather`: scatter the root's receive shadow, add.
    Gather,
    /// Of `MPI_Scatter`: gather the receive shadows to the root, add.
    Scatter,
    /// Of `MPI_Allgather`: sum all receive shadows, add this rank's block.
    Allgather,
}

impl Adjoint {
    fn name(self) -> &'static str {
        match self {
            Adjoint::Send => "send_adjoint",
            Adjoint::Recv => "recv_adjoint",
            Adjoint::Sendrecv => "sendrecv_adjoint",
            Adjoint::Bcast => "bcast_adjoint",
            Adjoint::Reduce => "reduce_adjoint",
            Adjoint::Allreduce => "allreduce_adjoint",
            Adjoint::Gather => "gather_adjoint",
            Adjoint::Scatter => "scatter_adjoint",
            Adjoint::Allgather => "allgather_adjoint",
        }
    }

    /// The helper's parameter types (`p` pointer, `i` int, `h` handle).
    fn params<'m>(self, abi: Abi<'m>) -> Vec<Ty<'m>> {
        let ctx = abi.handle.context();
        let (p, i, h) = (Ty::ptr(ctx), Ty::int(ctx, 32), abi.handle);
        match self {
            Adjoint::Send | Adjoint::Recv => vec![p, i, h, i, i, h, i],
            Adjoint::Sendrecv => vec![p, i, h, i, i, p, i, h, i, i, h, i],
            Adjoint::Bcast => vec![p, i, h, i, h, i],
            Adjoint::Reduce => vec![p, p, i, h, i, h, i],
            Adjoint::Allreduce => vec![p, p, i, h, h, i],
            Adjoint::Gather | Adjoint::Scatter => vec![p, i, h, p, i, h, i, h, i],
            Adjoint::Allgather => vec![p, i, h, p, i, h, h, i],
        }
    }
}

/// Calls the helper of adjoint rule `a` with `args` (see [`Adjoint`]).
pub(crate) fn adjoint<'m>(b: &Builder<'m>, abi: Abi<'m>, a: Adjoint, args: &[Value<'m>]) {
    let ctx = b.ctx();
    let fty = Ty::function(Ty::void(ctx), &a.params(abi), false);
    let f = match Helper::get(b, &helper_name(a.name(), Some(abi)), fty) {
        Ok(f) => f,
        Err(h) => build_adjoint(h, abi, a),
    };
    b.call(fty, f, args);
}

fn build_adjoint<'m>(h: Helper<'m>, abi: Abi<'m>, a: Adjoint) -> Function<'m> {
    let x = |k: usize| h.param(k);
    let status = h.status();
    let sum = abi.sum(&h.b, h.module);
    match a {
        Adjoint::Send => {
            let (shadow, n, dt, peer, tag, comm, es) = (x(0), x(1), x(2), x(3), x(4), x(5), x(6));
            let bytes = h.bytes(n, es);
            // Zeroed: a receive from MPI_PROC_NULL leaves it as it is.
            let tmp = h.zeroed(bytes);
            mpi_call(
                &h.b,
                abi,
                crate::names::MPI_RECV,
                &[tmp, n, dt, peer, tag, comm, status],
            );
            h.accumulate(shadow, tmp, bytes, es);
            h.b.free(tmp);
        }
        Adjoint::Recv => {
            let (shadow, n, dt, peer, tag, comm, es) = (x(0), x(1), x(2), x(3), x(4), x(5), x(6));
            let bytes = h.bytes(n, es);
            let z = h.zeroed(bytes);
            let s = h.b.select(h.is_null(shadow), z, shadow);
            mpi_call(
                &h.b,
                abi,
                crate::names::MPI_SEND,
                &[s, n, dt, peer, tag, comm],
            );
            h.b.memset_zero(s, h.received(abi, peer, bytes));
            h.b.free(z);
        }
        Adjoint::Sendrecv => {
            let (ss, sn, sdt, dest, stag) = (x(0), x(1), x(2), x(3), x(4));
            let (rs, rn, rdt, src, rtag, comm, es) = (x(5), x(6), x(7), x(8), x(9), x(10), x(11));
            let (sbytes, rbytes) = (h.bytes(sn, es), h.bytes(rn, es));
            let tmp = h.zeroed(sbytes);
            let z = h.zeroed(rbytes);
            let r = h.b.select(h.is_null(rs), z, rs);
            mpi_call(
                &h.b,
                abi,
                crate::names::MPI_SENDRECV,
                &[
                    r, rn, rdt, src, rtag, tmp, sn, sdt, dest, stag, comm, status,
                ],
            );
            h.b.memset_zero(r, h.received(abi, src, rbytes));
            h.accumulate(ss, tmp, sbytes, es);
            h.b.free(tmp);
            h.b.free(z);
        }
        Adjoint::Bcast => {
            let (shadow, n, dt, root, comm, es) = (x(0), x(1), x(2), x(3), x(4), x(5));
            let bytes = h.bytes(n, es);
            let rank = h.rank(abi, comm, crate::names::MPI_COMM_RANK);
            let z = h.zeroed(bytes);
            let s = h.b.select(h.is_null(shadow), z, shadow);
            let tmp = h.zeroed(bytes);
            mpi_call(
                &h.b,
                abi,
                crate::names::MPI_REDUCE,
                &[s, tmp, n, dt, sum, root, comm],
            );
            h.b.memset_zero(s, bytes);
            let is_root = h.b.icmp(LLVMIntPredicate::LLVMIntEQ, rank, root);
            h.when(is_root, |h| h.accumulate(shadow, tmp, bytes, es));
            h.b.free(tmp);
            h.b.free(z);
        }
        Adjoint::Reduce => {
            let (ss, rs, n, dt, root, comm, es) = (x(0), x(1), x(2), x(3), x(4), x(5), x(6));
            let bytes = h.bytes(n, es);
            let rank = h.rank(abi, comm, crate::names::MPI_COMM_RANK);
            let tmp = h.zeroed(bytes);
            let is_root = h.b.icmp(LLVMIntPredicate::LLVMIntEQ, rank, root);
            let has = h.b.icmp(LLVMIntPredicate::LLVMIntNE, rs, h.null());
            h.when(h.b.and(is_root, has), |h| {
                h.b.memcpy(tmp, rs, bytes);
                h.b.memset_zero(rs, bytes);
            });
            mpi_call(
                &h.b,
                abi,
                crate::names::MPI_BCAST,
                &[tmp, n, dt, root, comm],
            );
            h.accumulate(ss, tmp, bytes, es);
            h.b.free(tmp);
        }
        Adjoint::Allreduce => {
            let (ss, rs, n, dt, comm, es) = (x(0), x(1), x(2), x(3), x(4), x(5));
            let bytes = h.bytes(n, es);
            let z = h.zeroed(bytes);
            let r = h.b.select(h.is_null(rs), z, rs);
            let tmp = h.malloc(bytes);
            mpi_call(
                &h.b,
                abi,
                crate::names::MPI_ALLREDUCE,
                &[r, tmp, n, dt, sum, comm],
            );
            h.b.memset_zero(r, bytes);
            h.accumulate(ss, tmp, bytes, es);
            h.b.free(tmp);
            h.b.free(z);
        }
        Adjoint::Gather | Adjoint::Scatter | Adjoint::Allgather => {
            let (ss, sn, sdt, rs, rn, rdt) = (x(0), x(1), x(2), x(3), x(4), x(5));
            let (root, comm, es) = match a {
                Adjoint::Allgather => (None, x(6), x(7)),
                _ => (Some(x(6)), x(7), x(8)),
            };
            let rank = h.rank(abi, comm, crate::names::MPI_COMM_RANK);
            let size = h.rank(abi, comm, crate::names::MPI_COMM_SIZE);
            let is_root = match root {
                Some(r) => h.b.icmp(LLVMIntPredicate::LLVMIntEQ, rank, r),
                None => h.b.const_int(Ty::int(h.b.ctx(), 1), 1),
            };
            let all = |n: Value<'m>| h.b.mul(n, size);
            match a {
                Adjoint::Gather => {
                    // The root's receive shadow, scattered back.
                    let rbytes = h.bytes(all(rn), es);
                    let z = h.zeroed(rbytes);
                    let use_r =
                        h.b.and(is_root, h.b.icmp(LLVMIntPredicate::LLVMIntNE, rs, h.null()));
                    let r = h.b.select(use_r, rs, z);
                    let sbytes = h.bytes(sn, es);
                    let tmp = h.malloc(sbytes);
                    let root = root.expect("a rooted collective");
                    mpi_call(
                        &h.b,
                        abi,
                        crate::names::MPI_SCATTER,
                        &[r, rn, rdt, tmp, sn, sdt, root, comm],
                    );
                    h.b.memset_zero(r, rbytes);
                    h.accumulate(ss, tmp, sbytes, es);
                    h.b.free(tmp);
                    h.b.free(z);
                }
                Adjoint::Scatter => {
                    // The receive shadows, gathered to the root.
                    let rbytes = h.bytes(rn, es);
                    let z = h.zeroed(rbytes);
                    let r = h.b.select(h.is_null(rs), z, rs);
                    let sbytes = h.bytes(all(sn), es);
                    let tmp = h.zeroed(sbytes);
                    let root = root.expect("a rooted collective");
                    mpi_call(
                        &h.b,
                        abi,
                        crate::names::MPI_GATHER,
                        &[r, rn, rdt, tmp, sn, sdt, root, comm],
                    );
                    h.b.memset_zero(r, rbytes);
                    h.when(is_root, |h| h.accumulate(ss, tmp, sbytes, es));
                    h.b.free(tmp);
                    h.b.free(z);
                }
                _ => {
                    // Every rank's receive shadow summed; this rank's block.
                    let total = all(rn);
                    let rbytes = h.bytes(total, es);
                    let z = h.zeroed(rbytes);
                    let r = h.b.select(h.is_null(rs), z, rs);
                    let tmp = h.malloc(rbytes);
                    mpi_call(
                        &h.b,
                        abi,
                        crate::names::MPI_ALLREDUCE,
                        &[r, tmp, total, rdt, sum, comm],
                    );
                    h.b.memset_zero(r, rbytes);
                    let mine = h.b.gep(
                        Ty::int(h.b.ctx(), 8),
                        tmp,
                        &[h.bytes(h.b.mul(rank, rn), es)],
                    );
                    h.accumulate(ss, mine, h.bytes(sn, es), es);
                    h.b.free(tmp);
                    h.b.free(z);
                }
            }
        }
    }
    h.finish()
}
