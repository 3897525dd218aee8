//! `MPI_Allreduce` and `MPI_Reduce` with `MPI_MAX` or `MPI_MIN`: the
//! result's derivative is that of the rank(s) holding the extremum. Right
//! after the primal call, each rank computes a weight per element: 1 /
//! (the number of ranks holding it) where its own value is the result
//! (broadcast from the root for `MPI_Reduce`), 0 elsewhere (a tie shares
//! the derivative equally); the adjoint adds the result's adjoint (summed
//! over all ranks, or broadcast from the root) times the weight to each
//! send shadow, the tangent is the sum (all-reduced, or reduced to the
//! root) of the weighted send tangents. Helpers emitted once per module
//! and ABI; their last parameter is the root, or -1 for `MPI_Allreduce`.

use super::{helper_name, mpi_call, Abi, Helper};
use crate::ir::LLVMIntPredicate;
use crate::ir::LLVMRealPredicate;
use crate::ir::{Builder, Function, Ty, Value};

/// What a helper of this file does.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Extremum {
    /// `weights(send, recv, n, type, comm, esize, root) -> ptr`: the
    /// weights (heap, `n` doubles), after the primal call.
    Weights,
    /// `adjoint(w, send shadow, recv shadow, n, type, comm, esize, root)`:
    /// `dsend += w * allreduce_sum(drecv)` (or `bcast(drecv)` from the
    /// root), `drecv = 0`; frees `w`.
    Adjoint,
    /// `tangent(w, send shadow, recv shadow, n, type, comm, esize, root)`:
    /// `drecv = allreduce_sum(w * dsend)` (or `reduce_sum` to the root);
    /// frees `w`.
    Tangent,
}

/// Calls the helper `e` with `args` (see [`Extremum`]); the weights for
/// [`Extremum::Weights`].
pub(crate) fn extremum<'m>(
    b: &Builder<'m>,
    abi: Abi<'m>,
    e: Extremum,
    args: &[Value<'m>],
) -> Value<'m> {
    let ctx = b.ctx();
    let (p, i, h) = (Ty::ptr(ctx), Ty::int(ctx, 32), abi.handle);
    let (ret, params, name) = match e {
        Extremum::Weights => (p, vec![p, p, i, h, h, i, i], "extremum_weights"),
        Extremum::Adjoint => (
            Ty::void(ctx),
            vec![p, p, p, i, h, h, i, i],
            "extremum_adjoint",
        ),
        Extremum::Tangent => (
            Ty::void(ctx),
            vec![p, p, p, i, h, h, i, i],
            "extremum_tangent",
        ),
    };
    let fty = Ty::function(ret, &params, false);
    let f = match Helper::get(b, &helper_name(name, Some(abi)), fty) {
        Ok(f) => f,
        Err(h) => build(h, abi, e),
    };
    b.call(fty, f, args).as_value()
}

fn build<'m>(h: Helper<'m>, abi: Abi<'m>, e: Extremum) -> Function<'m> {
    let ctx = h.b.ctx();
    let (dbl, i64t) = (Ty::double(ctx), Ty::int(ctx, 64));
    let x = |k: usize| h.param(k);
    let sum = abi.sum(&h.b, h.module);
    match e {
        Extremum::Weights => {
            let (send, recv, n, dt, comm, es, root) = (x(0), x(1), x(2), x(3), x(4), x(5), x(6));
            let nn = h.b.sext(n, i64t);
            let bytes = h.bytes(n, h.i32(8));
            let w = h.zeroed(bytes);
            let count = h.zeroed(bytes);
            // The result on every rank: the root's, broadcast, for Reduce.
            let rooted = h.b.icmp(LLVMIntPredicate::LLVMIntSGE, root, h.i32(0));
            let result = h.zeroed(h.bytes(n, es));
            h.when(rooted, |h| {
                let rank = h.rank(abi, comm, crate::names::MPI_COMM_RANK);
                let is_root = h.b.icmp(LLVMIntPredicate::LLVMIntEQ, rank, root);
                h.when(is_root, |h| {
                    h.b.memcpy(result, recv, h.bytes(n, es));
                });
                mpi_call(
                    &h.b,
                    abi,
                    crate::names::MPI_BCAST,
                    &[result, n, dt, root, comm],
                );
            });
            let broadcast = result;
            let result = h.b.select(rooted, result, recv);
            h.each(nn, |h, k| {
                let same = h.b.fcmp(
                    LLVMRealPredicate::LLVMRealOEQ,
                    h.elem(send, k, es),
                    h.elem(result, k, es),
                );
                let one = h.b.select(same, h.b.const_float(dbl, 1.0), h.b.zero(dbl));
                h.b.store(one, h.b.gep(dbl, w, &[k]));
            });
            let double = abi.double(&h.b, h.module);
            mpi_call(
                &h.b,
                abi,
                crate::names::MPI_ALLREDUCE,
                &[w, count, n, double, sum, comm],
            );
            h.each(nn, |h, k| {
                let pw = h.b.gep(dbl, w, &[k]);
                let c = h.b.load(dbl, h.b.gep(dbl, count, &[k]));
                let held = h.b.fcmp(LLVMRealPredicate::LLVMRealOGT, c, h.b.zero(dbl));
                let c = h.b.select(held, c, h.b.const_float(dbl, 1.0));
                h.b.store(h.b.fdiv(h.b.load(dbl, pw), c), pw);
            });
            h.b.free(count);
            h.b.free(broadcast);
            h.b.ret(Some(w));
            h.f
        }
        Extremum::Adjoint | Extremum::Tangent => {
            let (w, ss, rs, n, dt, comm, es, root) =
                (x(0), x(1), x(2), x(3), x(4), x(5), x(6), x(7));
            let nn = h.b.sext(n, i64t);
            let bytes = h.bytes(n, es);
            let z = h.zeroed(bytes);
            let tmp = h.zeroed(bytes);
            let rooted = h.b.icmp(LLVMIntPredicate::LLVMIntSGE, root, h.i32(0));
            let all = h.b.icmp(LLVMIntPredicate::LLVMIntSLT, root, h.i32(0));
            // Only the root's result buffer counts in MPI_Reduce.
            let rank = h.rank(abi, comm, crate::names::MPI_COMM_RANK);
            let is_root = h.b.icmp(LLVMIntPredicate::LLVMIntEQ, rank, root);
            let use_r = h.b.and(
                h.b.icmp(LLVMIntPredicate::LLVMIntNE, rs, h.null()),
                h.b.select(rooted, is_root, all),
            );
            let r = h.b.select(use_r, rs, z);
            if e == Extremum::Adjoint {
                h.when(all, |h| {
                    mpi_call(
                        &h.b,
                        abi,
                        crate::names::MPI_ALLREDUCE,
                        &[r, tmp, n, dt, sum, comm],
                    );
                });
                h.when(rooted, |h| {
                    h.b.memcpy(tmp, r, bytes);
                    mpi_call(
                        &h.b,
                        abi,
                        crate::names::MPI_BCAST,
                        &[tmp, n, dt, root, comm],
                    );
                });
                h.b.memset_zero(r, bytes);
                let has = h.b.icmp(LLVMIntPredicate::LLVMIntNE, ss, h.null());
                h.when(has, |h| {
                    h.each(nn, |h, k| {
                        let wk = h.b.load(dbl, h.b.gep(dbl, w, &[k]));
                        let d = h.b.fmul(wk, h.elem(tmp, k, es));
                        h.set_elem(ss, k, es, h.b.fadd(h.elem(ss, k, es), d));
                    });
                });
            } else {
                let s = h.b.select(h.is_null(ss), z, ss);
                h.each(nn, |h, k| {
                    let wk = h.b.load(dbl, h.b.gep(dbl, w, &[k]));
                    h.set_elem(tmp, k, es, h.b.fmul(wk, h.elem(s, k, es)));
                });
                h.when(all, |h| {
                    mpi_call(
                        &h.b,
                        abi,
                        crate::names::MPI_ALLREDUCE,
                        &[tmp, r, n, dt, sum, comm],
                    );
                });
                h.when(rooted, |h| {
                    mpi_call(
                        &h.b,
                        abi,
                        crate::names::MPI_REDUCE,
                        &[tmp, r, n, dt, sum, root, comm],
                    );
                });
            }
            h.b.free(tmp);
            h.b.free(z);
            h.b.free(w);
            h.finish()
        }
    }
}
