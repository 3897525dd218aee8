//! The table of pending non-blocking transfers (`__enz_mpi_requests`)
//! and what waits do with it: records pushed by the forward sweep (or by
//! forward mode), claimed by the wait that completes their request (found
//! by the address the transfer put the request at, or by the request's
//! value where the program waits on a copy of it) onto a stack of claims
//! (`__enz_mpi_claims`) that the reverse of the wait pops (waits are
//! reversed in the opposite order: the top holds the wait's records), as
//! forward mode does just after the wait; found by the transfer's address
//! when the `MPI_Isend`/`MPI_Irecv` is reversed, which retires them.

use super::{helper_name, mpi_call, Abi, Helper};
use crate::ir::LLVMIntPredicate;
use crate::ir::{add_internal_global, named_global, Builder, Function, Module, Ty, Value};
use crate::names::{MPI_CLAIMS, MPI_TABLE};

/// Bytes of one record of the table.
const RECORD: i64 = 96;
/// Record fields (byte offsets): the request's address.
const REQ: u64 = 0;
/// 0 pushed, 1 adjoint transfer started, 2 retired (`i32`).
const STATE: u64 = 8;
/// 0 nothing to do, 1 a send, 2 a receive, 3 a tangent transfer (`i32`).
const KIND: u64 = 12;
/// The buffer's shadow (or null).
const SHADOW: u64 = 16;
/// A temporary buffer (freed with the record).
const TMP: u64 = 24;
/// The element count (`i32`) and the element size (`i32`, at +4).
const COUNT: u64 = 32;
const ESIZE: u64 = 36;
/// The datatype handle.
const DTYPE: u64 = 40;
/// The peer rank and the tag (`i32`s).
const PEER: u64 = 48;
const TAG: u64 = 52;
/// The communicator handle.
const COMM: u64 = 56;
/// The request of the adjoint's (or tangent's) transfer.
const ADJ: u64 = 64;
/// The request's value when the transfer started.
const VALUE: u64 = 72;
/// 1 once a wait has claimed the record (`i32`).
const CLAIMED: u64 = 80;

/// What a record of a non-blocking transfer is for.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum Pending {
    /// Nothing to do (integer data).
    Nothing = 0,
    /// An `MPI_Isend`, whose reverse receives the adjoint.
    Send = 1,
    /// An `MPI_Irecv`, whose reverse sends the adjoint back.
    Recv = 2,
    /// The tangent's own transfer (forward mode).
    Tangent = 3,
}

/// The table of pending transfers: `{ptr records, i64 len, i64 cap}`.
fn table<'m>(b: &Builder<'m>, module: Module<'m>) -> Value<'m> {
    stack(b, module, MPI_TABLE)
}

/// The stack of claims: `{ptr entries, i64 len, i64 cap}` of `i64`s, each
/// wait's claimed record indices followed by their count.
fn claims<'m>(b: &Builder<'m>, module: Module<'m>) -> Value<'m> {
    stack(b, module, MPI_CLAIMS)
}

/// Pushes `v` (`i64`) onto the claims.
fn push_claim(h: &Helper<'_>, v: Value<'_>) {
    let ctx = h.b.ctx();
    let (p, i64t) = (Ty::ptr(ctx), Ty::int(ctx, 64));
    let t = claims(&h.b, h.module);
    let (lenp, capp) = (h.b.byte_gep(t, 8), h.b.byte_gep(t, 16));
    let len = h.b.load(i64t, lenp);
    let cap = h.b.load(i64t, capp);
    h.when(h.b.icmp(LLVMIntPredicate::LLVMIntEQ, len, cap), |h| {
        let ncap = h.b.add(h.b.mul(cap, h.i64(2)), h.i64(64));
        let fty = Ty::function(p, &[p, i64t], false);
        let new =
            h.b.call_named("realloc", fty, &[h.b.load(p, t), h.b.mul(ncap, h.i64(8))]);
        h.b.store(new.as_value(), t);
        h.b.store(ncap, capp);
    });
    let slot = h.b.gep(i64t, h.b.load(p, t), &[len]);
    h.b.store(v, slot);
    h.b.store(h.b.add(len, h.i64(1)), lenp);
}

/// Pops the top of the claims (0 when empty).
fn pop_claim<'m>(h: &Helper<'m>) -> Value<'m> {
    let ctx = h.b.ctx();
    let (p, i64t) = (Ty::ptr(ctx), Ty::int(ctx, 64));
    let t = claims(&h.b, h.module);
    let lenp = h.b.byte_gep(t, 8);
    let len = h.b.load(i64t, lenp);
    let empty = h.eq(len, 0);
    let top = h.b.select(empty, h.i64(0), h.b.sub(len, h.i64(1)));
    h.b.store(top, lenp);
    let data = h.b.load(p, t);
    // An empty stack's data may be null: read the stack's own header
    // instead (and drop what is read).
    let safe = h.b.select(empty, t, h.b.gep(i64t, data, &[top]));
    h.b.select(empty, h.i64(0), h.b.load(i64t, safe))
}

/// A stack global `{ptr, i64 len, i64 cap}` named `name`.
fn stack<'m>(b: &Builder<'m>, module: Module<'m>, name: &str) -> Value<'m> {
    if let Some(g) = named_global(module, name) {
        return g.as_value();
    }
    let ctx = b.ctx();
    let i64t = Ty::int(ctx, 64);
    let ty = Ty::literal_struct(ctx, &[Ty::ptr(ctx), i64t, i64t]);
    add_internal_global(module, name, ty, 0, b.zero(ty), 8).as_value()
}

/// `__enz_mpi_push(req)`: a new zeroed record for request address `req`.
pub(crate) fn push<'m>(b: &Builder<'m>, req: Value<'m>) -> Value<'m> {
    let ctx = b.ctx();
    let (p, i64t) = (Ty::ptr(ctx), Ty::int(ctx, 64));
    let fty = Ty::function(p, &[p], false);
    let f = match Helper::get(b, &helper_name("push", None), fty) {
        Ok(f) => f,
        Err(h) => {
            let t = table(&h.b, h.module);
            let (lenp, capp) = (h.b.byte_gep(t, 8), h.b.byte_gep(t, 16));
            let len = h.b.load(i64t, lenp);
            let cap = h.b.load(i64t, capp);
            let full = h.b.icmp(LLVMIntPredicate::LLVMIntEQ, len, cap);
            h.when(full, |h| {
                let ncap = h.b.add(h.b.mul(cap, h.i64(2)), h.i64(16));
                let old = h.b.load(p, t);
                let fty = Ty::function(p, &[p, i64t], false);
                let bytes = h.b.mul(ncap, h.i64(RECORD));
                let new = h.b.call_named("realloc", fty, &[old, bytes]);
                h.b.store(new.as_value(), t);
                h.b.store(ncap, capp);
            });
            let data = h.b.load(p, t);
            let rec =
                h.b.gep(Ty::int(ctx, 8), data, &[h.b.mul(len, h.i64(RECORD))]);
            h.b.memset_zero(rec, h.i64(RECORD));
            h.set(rec, REQ, h.param(0));
            h.b.store(h.b.add(len, h.i64(1)), lenp);
            h.b.ret(Some(rec));
            h.f
        }
    };
    b.call(fty, f, &[req]).as_value()
}

/// Scans the table from its newest record down for the first record
/// `matches` (given the record's address) says is wanted and not retired;
/// leaves `h` positioned in a block where the record (an `i64` index and
/// its address) was found, and returns those with the block reached when
/// none was.
fn scan_newest<'m>(
    h: &Helper<'m>,
    matches: impl FnOnce(&Helper<'m>, Value<'m>) -> Value<'m>,
) -> (Value<'m>, Value<'m>, crate::ir::Block<'m>) {
    let ctx = h.b.ctx();
    let (p, i64t, i32t) = (Ty::ptr(ctx), Ty::int(ctx, 64), Ty::int(ctx, 32));
    let t = table(&h.b, h.module);
    let len = h.b.load(i64t, h.b.byte_gep(t, 8));
    let data = h.b.load(p, t);
    let entry = h.b.insert_block();
    let head = h.f.append_block("head");
    let body = h.f.append_block("body");
    let found = h.f.append_block("found");
    let none = h.f.append_block("none");
    h.b.br(head);
    h.b.position_at_end(head);
    let k = h.b.phi(i64t, "k");
    h.b.cond_br(h.eq(k.into(), 0), none, body);
    h.b.position_at_end(body);
    let km1 = h.b.sub(k.into(), h.i64(1));
    let rec =
        h.b.gep(Ty::int(ctx, 8), data, &[h.b.mul(km1, h.i64(RECORD))]);
    let live = h.b.icmp(
        LLVMIntPredicate::LLVMIntNE,
        h.field(rec, STATE, i32t),
        h.i32(2),
    );
    let wanted = matches(h, rec);
    h.b.cond_br(h.b.and(wanted, live), found, head);
    k.add_incoming(len, entry);
    k.add_incoming(km1, body);
    h.b.position_at_end(found);
    (km1, rec, none)
}

/// `__enz_mpi_find(req)`: the newest record not retired whose request
/// was posted at address `req`, or null.
fn find<'m>(b: &Builder<'m>, req: Value<'m>) -> Value<'m> {
    let ctx = b.ctx();
    let p = Ty::ptr(ctx);
    let fty = Ty::function(p, &[p], false);
    let f = match Helper::get(b, &helper_name("find", None), fty) {
        Ok(f) => f,
        Err(h) => {
            let (_, rec, none) = scan_newest(&h, |h, rec| {
                h.b.icmp(
                    LLVMIntPredicate::LLVMIntEQ,
                    h.field(rec, REQ, p),
                    h.param(0),
                )
            });
            h.b.ret(Some(rec));
            h.b.position_at_end(none);
            h.b.ret(Some(h.null()));
            h.f
        }
    };
    b.call(fty, f, &[req]).as_value()
}

/// `__enz_mpi_retire(rec)`: marks the record retired and pops the retired
/// records off the top of the table.
fn retire<'m>(b: &Builder<'m>, rec: Value<'m>) {
    let ctx = b.ctx();
    let (p, i64t, i32t) = (Ty::ptr(ctx), Ty::int(ctx, 64), Ty::int(ctx, 32));
    let fty = Ty::function(Ty::void(ctx), &[p], false);
    let f = match Helper::get(b, &helper_name("retire", None), fty) {
        Ok(f) => f,
        Err(h) => {
            h.set(h.param(0), STATE, h.i32(2));
            let t = table(&h.b, h.module);
            let lenp = h.b.byte_gep(t, 8);
            let head = h.f.append_block("head");
            let check = h.f.append_block("check");
            let pop = h.f.append_block("pop");
            let exit = h.f.append_block("exit");
            h.b.br(head);
            h.b.position_at_end(head);
            let len = h.b.load(i64t, lenp);
            h.b.cond_br(h.eq(len, 0), exit, check);
            h.b.position_at_end(check);
            let top = h.b.sub(len, h.i64(1));
            let data = h.b.load(p, t);
            let rec =
                h.b.gep(Ty::int(ctx, 8), data, &[h.b.mul(top, h.i64(RECORD))]);
            let retired = h.eq(h.field(rec, STATE, i32t), 2);
            h.b.cond_br(retired, pop, exit);
            h.b.position_at_end(pop);
            h.b.store(top, lenp);
            h.b.br(head);
            h.b.position_at_end(exit);
            h.b.ret(None);
            h.f
        }
    };
    b.call(fty, f, &[rec]);
}

/// The forward sweep's record of a non-blocking transfer (`MPI_Isend` or
/// `MPI_Irecv`): pushed for request address `req`; returns the record.
#[allow(clippy::too_many_arguments)]
pub(crate) fn record<'m>(
    b: &Builder<'m>,
    kind: Pending,
    req: Value<'m>,
    shadow: Value<'m>,
    count: Value<'m>,
    esize: u32,
    dtype: Value<'m>,
    peer: Value<'m>,
    tag: Value<'m>,
    comm: Value<'m>,
) -> Value<'m> {
    let rec = push(b, req);
    let set = |off: u64, v: Value<'m>| {
        b.store(v, b.byte_gep(rec, off));
    };
    set(KIND, b.i32(kind as i64));
    set(SHADOW, shadow);
    set(COUNT, count);
    set(ESIZE, b.i32(esize as i64));
    set(DTYPE, dtype);
    set(PEER, peer);
    set(TAG, tag);
    set(COMM, comm);
    set(VALUE, b.load(dtype.ty(), req));
    rec
}

/// The forward sweep's (or forward mode's) part of a wait on `n` (`i32`)
/// requests at `reqs`, before the wait: each request's record is claimed
/// by the wait, found by its address or, where the program copied the
/// request before waiting, by its value.
pub(crate) fn claim<'m>(b: &Builder<'m>, abi: Abi<'m>, n: Value<'m>, reqs: Value<'m>) {
    let ctx = b.ctx();
    let (p, i32t) = (Ty::ptr(ctx), Ty::int(ctx, 32));
    let fty = Ty::function(Ty::void(ctx), &[i32t, p], false);
    let f = match Helper::get(b, &helper_name("claim", Some(abi)), fty) {
        Ok(f) => f,
        Err(h) => build_claim(h, abi),
    };
    b.call(fty, f, &[n, reqs]);
}

fn build_claim<'m>(h: Helper<'m>, abi: Abi<'m>) -> Function<'m> {
    let ctx = h.b.ctx();
    let (p, i32t, i64t) = (Ty::ptr(ctx), Ty::int(ctx, 32), Ty::int(ctx, 64));
    let hsize = abi.handle.alloc_size(h.module) as i64;
    let n = h.b.sext(h.param(0), i64t);
    let reqs = h.param(1);
    let count = h.b.alloca(i64t, "claimed");
    h.b.store(h.i64(0), count);
    h.each(n, |h, k| {
        let req = h.b.gep(Ty::int(ctx, 8), reqs, &[h.b.mul(k, h.i64(hsize))]);
        let value = h.b.load(abi.handle, req);
        // The newest unclaimed, unretired record posted at `req` or
        // holding its value (a request value is live once at a time, so
        // the newest record holding it is the live transfer's).
        let (index, rec, none) = scan_newest(h, |h, rec| {
            let posted =
                h.b.icmp(LLVMIntPredicate::LLVMIntEQ, h.field(rec, REQ, p), req);
            let held = h.b.icmp(
                LLVMIntPredicate::LLVMIntEQ,
                h.field(rec, VALUE, abi.handle),
                value,
            );
            let unclaimed = h.eq(h.field(rec, CLAIMED, i32t), 0);
            h.b.and(h.b.or(posted, held), unclaimed)
        });
        h.set(rec, CLAIMED, h.i32(1));
        push_claim(h, index);
        h.b.store(h.b.add(h.b.load(i64t, count), h.i64(1)), count);
        h.b.br(none);
        h.b.position_at_end(none);
    });
    push_claim(&h, h.b.load(i64t, count));
    h.finish()
}

/// Where a record keeps the request of its own transfer.
pub(crate) fn record_request<'m>(b: &Builder<'m>, rec: Value<'m>) -> Value<'m> {
    b.byte_gep(rec, ADJ)
}

/// Where a record keeps a temporary buffer freed with it.
pub(crate) fn record_temporary<'m>(b: &Builder<'m>, rec: Value<'m>) -> Value<'m> {
    b.byte_gep(rec, TMP)
}

/// What a wait does to the pending transfers of its requests.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum WaitRule {
    /// The reverse of a wait: start each adjoint transfer.
    StartAdjoint,
    /// The reverse of an `MPI_Isend`/`MPI_Irecv`: wait for its adjoint
    /// transfer, accumulate, retire the record.
    FinishAdjoint,
    /// Forward mode's wait: wait for the tangents' transfers.
    Tangent,
}

/// Calls the helper of `rule` on `n` (`i32`) requests at `reqs`.
pub(crate) fn wait_rule<'m>(
    b: &Builder<'m>,
    abi: Abi<'m>,
    rule: WaitRule,
    n: Value<'m>,
    reqs: Value<'m>,
) {
    let ctx = b.ctx();
    let (p, i32t) = (Ty::ptr(ctx), Ty::int(ctx, 32));
    let fty = Ty::function(Ty::void(ctx), &[i32t, p], false);
    let what = match rule {
        WaitRule::StartAdjoint => "start_adjoint",
        WaitRule::FinishAdjoint => "finish_adjoint",
        WaitRule::Tangent => "wait_tangent",
    };
    let f = match Helper::get(b, &helper_name(what, Some(abi)), fty) {
        Ok(f) => f,
        Err(h) => build_wait(h, abi, rule),
    };
    b.call(fty, f, &[n, reqs]);
}

fn build_wait<'m>(h: Helper<'m>, abi: Abi<'m>, rule: WaitRule) -> Function<'m> {
    let ctx = h.b.ctx();
    let (p, i32t, i64t) = (Ty::ptr(ctx), Ty::int(ctx, 32), Ty::int(ctx, 64));
    let status = h.status();
    let hsize = abi.handle.alloc_size(h.module) as i64;
    let (n, reqs) = (h.param(0), h.param(1));
    // The reverse of an `MPI_Isend`/`MPI_Irecv` finds its record by its
    // request's address; a wait's records are those it claimed, on top of
    // the claims.
    let n = match rule {
        WaitRule::FinishAdjoint => h.b.sext(n, i64t),
        WaitRule::StartAdjoint | WaitRule::Tangent => pop_claim(&h),
    };
    let t = table(&h.b, h.module);
    h.each(n, |h, k| {
        let rec = match rule {
            WaitRule::FinishAdjoint => {
                let req = h.b.gep(Ty::int(ctx, 8), reqs, &[h.b.mul(k, h.i64(hsize))]);
                find(&h.b, req)
            }
            WaitRule::StartAdjoint | WaitRule::Tangent => {
                let at = h.b.mul(pop_claim(h), h.i64(RECORD));
                h.b.gep(Ty::int(ctx, 8), h.b.load(p, t), &[at])
            }
        };
        let has = h.b.icmp(LLVMIntPredicate::LLVMIntNE, rec, h.null());
        h.when(has, |h| {
            let kind = h.field(rec, KIND, i32t);
            let state = h.field(rec, STATE, i32t);
            let adj = h.b.byte_gep(rec, ADJ);
            match rule {
                WaitRule::StartAdjoint => {
                    let start = h.b.and(
                        h.eq(state, 0),
                        h.b.icmp(LLVMIntPredicate::LLVMIntNE, kind, h.i32(0)),
                    );
                    h.when(start, |h| {
                        let shadow = h.field(rec, SHADOW, p);
                        let count = h.field(rec, COUNT, i32t);
                        let es = h.field(rec, ESIZE, i32t);
                        let dt = h.field(rec, DTYPE, abi.handle);
                        let peer = h.field(rec, PEER, i32t);
                        let tag = h.field(rec, TAG, i32t);
                        let comm = h.field(rec, COMM, abi.handle);
                        let bytes = h.bytes(count, es);
                        let tmp = h.zeroed(bytes);
                        h.set(rec, TMP, tmp);
                        h.when(h.eq(kind, Pending::Send as i64), |h| {
                            mpi_call(
                                &h.b,
                                abi,
                                crate::names::MPI_IRECV,
                                &[tmp, count, dt, peer, tag, comm, adj],
                            );
                        });
                        h.when(h.eq(kind, Pending::Recv as i64), |h| {
                            let s = h.b.select(h.is_null(shadow), tmp, shadow);
                            mpi_call(
                                &h.b,
                                abi,
                                crate::names::MPI_ISEND,
                                &[s, count, dt, peer, tag, comm, adj],
                            );
                        });
                        h.set(rec, STATE, h.i32(1));
                    });
                }
                WaitRule::FinishAdjoint => {
                    h.when(h.eq(state, 1), |h| {
                        mpi_call(&h.b, abi, crate::names::MPI_WAIT, &[adj, status]);
                        let shadow = h.field(rec, SHADOW, p);
                        let tmp = h.field(rec, TMP, p);
                        let count = h.field(rec, COUNT, i32t);
                        let es = h.field(rec, ESIZE, i32t);
                        let bytes = h.bytes(count, es);
                        h.when(h.eq(kind, Pending::Send as i64), |h| {
                            h.accumulate(shadow, tmp, bytes, es);
                        });
                        h.when(h.eq(kind, Pending::Recv as i64), |h| {
                            let s = h.b.select(h.is_null(shadow), tmp, shadow);
                            let peer = h.field(rec, PEER, i32t);
                            h.b.memset_zero(s, h.received(abi, peer, bytes));
                        });
                    });
                    h.b.free(h.field(rec, TMP, p));
                    retire(&h.b, rec);
                }
                WaitRule::Tangent => {
                    h.when(h.eq(kind, Pending::Tangent as i64), |h| {
                        mpi_call(&h.b, abi, crate::names::MPI_WAIT, &[adj, status]);
                    });
                    h.b.free(h.field(rec, TMP, p));
                    retire(&h.b, rec);
                }
            }
        });
    });
    h.finish()
}
