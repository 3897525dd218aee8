//! MPI in derivatives: the helper functions the adjoint and tangent rules
//! of MPI calls (`reverse/mpi.rs`, `forward/mpi.rs`) call, emitted into
//! the module (internal, once per module and ABI), and the table of
//! pending non-blocking transfers.
//!
//! The helpers call MPI with the ABI of the user's calls (Open MPI's
//! handles are pointers, MPICH's `int`s; the functions' own declarations
//! are reused), so the output links with the library the user compiled
//! with. Each takes the shadows of the call's buffers (null where a
//! buffer has none: zeros are sent and what is received is dropped, so
//! that the peers' adjoint transfers still match).
//!
//! A non-blocking transfer is remembered in a record of the table
//! `__enz_mpi_requests` (a growing array, used as a stack) keyed by the
//! address of its request: the forward sweep pushes one per `MPI_Isend`/
//! `MPI_Irecv` (buffer shadow, count, datatype, peer, tag, communicator),
//! the reverse of the wait starts the opposite transfer into the record's
//! own request, and the reverse of the `MPI_Isend`/`MPI_Irecv` waits for
//! it, accumulates and retires the record. In forward mode the record
//! holds the request of the tangent's transfer, waited for by the wait.
//!
//! ```text
//!  forward sweep        reverse sweep
//!  Isend(buf)  push ─┐  ┌─ Wait(adj); shadow(buf) += tmp; retire
//!  Wait(req)         └──┴► Irecv(tmp) into the record's request
//! ```

use crate::analysis::mpi::MpiAbi;
use crate::ir::{
    add_internal_function, add_internal_global, external_global, named_function, named_global,
    Block, Builder, Function, Ty, Value,
};
use crate::ir::{LLVMIntPredicate, Module};
use crate::names::{MpiFn, MPICH_SUM, MPI_HELPER_PREFIX, MPI_TABLE, OPEN_MPI_SUM};

/// Bytes of one record of the table.
const RECORD: i64 = 80;
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

/// The types of one MPI ABI, for declaring and calling MPI functions.
#[derive(Copy, Clone)]
pub(crate) struct Abi<'m> {
    /// Which library.
    pub(crate) abi: MpiAbi,
    /// The type of datatype, communicator, operation and request handles.
    pub(crate) handle: Ty<'m>,
}

impl<'m> Abi<'m> {
    /// The ABI whose handles have the type of `handle`.
    pub(crate) fn of(handle: Value<'m>) -> Abi<'m> {
        Abi {
            abi: MpiAbi::of_handle(handle),
            handle: handle.ty(),
        }
    }

    /// The ABI whose handles have type `handle`.
    fn of_type(handle: Ty<'m>) -> Abi<'m> {
        let abi = if handle.kind() == crate::ir::TyKind::Pointer {
            MpiAbi::OpenMpi
        } else {
            MpiAbi::Mpich
        };
        Abi { abi, handle }
    }

    fn suffix(self) -> &'static str {
        match self.abi {
            MpiAbi::OpenMpi => "ompi",
            MpiAbi::Mpich => "mpich",
        }
    }

    /// The type of MPI function `name` (`int name(...)`) in this ABI.
    pub(crate) fn fn_type(self, name: &str) -> Ty<'m> {
        let ctx = self.handle.context();
        let (p, i, h) = (Ty::ptr(ctx), Ty::int(ctx, 32), self.handle);
        let params: Vec<Ty<'m>> = match name {
            "MPI_Send" => vec![p, i, h, i, i, h],
            "MPI_Recv" | "MPI_Isend" | "MPI_Irecv" => vec![p, i, h, i, i, h, p],
            "MPI_Wait" => vec![p, p],
            "MPI_Sendrecv" => vec![p, i, h, i, i, p, i, h, i, i, h, p],
            "MPI_Bcast" => vec![p, i, h, i, h],
            "MPI_Reduce" => vec![p, p, i, h, h, i, h],
            "MPI_Allreduce" => vec![p, p, i, h, h, h],
            "MPI_Gather" | "MPI_Scatter" => vec![p, i, h, p, i, h, i, h],
            "MPI_Comm_rank" | "MPI_Comm_size" => vec![h, p],
            _ => vec![h],
        };
        Ty::function(i, &params, false)
    }

    /// `MPI_PROC_NULL` of this ABI.
    fn proc_null(self) -> i64 {
        match self.abi {
            MpiAbi::Mpich => crate::names::MPICH_PROC_NULL,
            MpiAbi::OpenMpi => crate::names::OPEN_MPI_PROC_NULL,
        }
    }

    /// `MPI_SUM` of this ABI.
    fn sum(self, b: &Builder<'m>, module: Module<'m>) -> Value<'m> {
        match self.abi {
            MpiAbi::Mpich => b.const_int(self.handle, MPICH_SUM),
            MpiAbi::OpenMpi => {
                external_global(module, OPEN_MPI_SUM, Ty::int(b.ctx(), 8)).as_value()
            }
        }
    }
}

/// The ABI of the requests wait `i` completes (its own arguments do not
/// say): that of the module's `MPI_Isend` or `MPI_Irecv`; `None` when the
/// module has neither (then no request can be one enz-rs recorded).
pub(crate) fn request_abi<'m>(i: crate::ir::Inst<'m>) -> Option<Abi<'m>> {
    let module = i.parent_block().parent().global_parent();
    [crate::names::ISEND, crate::names::IRECV]
        .iter()
        .filter_map(|n| named_function(module, n))
        .find_map(|f| f.function_type().param_types().get(2).copied())
        .map(Abi::of_type)
}

/// Whether the derivative of MPI call `i` of `f` is made: `Ok(Some(element
/// size))` if so, `Ok(None)` when there is nothing to do, `Err` why it
/// cannot be (a message naming the call). `shadowed`: whether one of its
/// buffers has a shadow. A point-to-point call moving floats gets its
/// derivative's transfer even without a shadow (its peer's may have one);
/// a collective without any is left alone (every rank runs the same
/// call).
pub(crate) fn decide(
    i: crate::ir::Inst<'_>,
    f: MpiFn,
    shadowed: bool,
) -> Result<Option<u32>, String> {
    let name = i
        .called_function()
        .map(|c| c.name())
        .unwrap_or_else(|| "MPI".to_string());
    if let Some(why) = crate::analysis::mpi::refusal(i, f) {
        return match shadowed {
            true => Err(format!("{name}: cannot differentiate this MPI call: {why}")),
            false => Ok(None),
        };
    }
    let Some(t) = crate::analysis::mpi::float_type(i, f).ok().flatten() else {
        return Ok(None);
    };
    let point_to_point = matches!(
        f,
        MpiFn::Send | MpiFn::Recv | MpiFn::Isend | MpiFn::Irecv | MpiFn::Sendrecv
    );
    Ok((shadowed || point_to_point).then_some(t.size()))
}

/// The message refusing MPI call `i`, which is passed memory holding
/// derivatives, for want of a rule.
pub(crate) fn no_rule(i: crate::ir::Inst<'_>) -> String {
    let name = i
        .called_function()
        .map(|c| c.name())
        .unwrap_or_else(|| "MPI".to_string());
    format!("{name}: enz-rs has no derivative for this MPI function, and it is passed memory that holds derivatives")
}

/// Calls MPI function `name` (declared with this ABI's types unless the
/// module declares it already).
pub(crate) fn mpi_call<'m>(b: &Builder<'m>, abi: Abi<'m>, name: &str, args: &[Value<'m>]) {
    b.call_named(name, abi.fn_type(name), args);
}

/// A helper under construction: its function and a builder in it.
struct Helper<'m> {
    f: Function<'m>,
    b: Builder<'m>,
    module: Module<'m>,
}

impl<'m> Helper<'m> {
    /// The helper `name` of type `fty`: `Ok` the existing one, or `Err` a
    /// new one positioned in its entry block, to be built.
    fn get(b: &Builder<'m>, name: &str, fty: Ty<'m>) -> Result<Function<'m>, Helper<'m>> {
        let module = b.insert_block().parent().global_parent();
        if let Some(f) = named_function(module, name) {
            return Ok(f);
        }
        let f = add_internal_function(module, name, fty);
        let hb = Builder::new(b.ctx());
        hb.position_at_end(f.append_block("entry"));
        Err(Helper { f, b: hb, module })
    }

    fn param(&self, k: usize) -> Value<'m> {
        self.f.params()[k]
    }

    fn i32(&self, v: i64) -> Value<'m> {
        self.b.const_int(Ty::int(self.b.ctx(), 32), v)
    }

    fn i64(&self, v: i64) -> Value<'m> {
        self.b.const_int(Ty::int(self.b.ctx(), 64), v)
    }

    fn null(&self) -> Value<'m> {
        self.b.zero(Ty::ptr(self.b.ctx()))
    }

    /// Runs `body` where `cond` holds, then continues after it.
    fn when(&self, cond: Value<'m>, body: impl FnOnce(&Helper<'m>)) {
        let then = self.f.append_block("then");
        let next = self.f.append_block("next");
        self.b.cond_br(cond, then, next);
        self.b.position_at_end(then);
        body(self);
        self.b.br(next);
        self.b.position_at_end(next);
    }

    /// A loop over `k` in `0..n` (`i64`), running `body(k)`.
    fn each(&self, n: Value<'m>, body: impl FnOnce(&Helper<'m>, Value<'m>)) {
        let i64t = Ty::int(self.b.ctx(), 64);
        let pre = self.b.insert_block();
        let head = self.f.append_block("head");
        let step = self.f.append_block("step");
        let done = self.f.append_block("done");
        self.b.br(head);
        self.b.position_at_end(head);
        let k = self.b.phi(i64t, "k");
        let more = self.b.icmp(LLVMIntPredicate::LLVMIntSLT, k.into(), n);
        self.b.cond_br(more, step, done);
        self.b.position_at_end(step);
        body(self, k.into());
        let next = self.b.add(k.into(), self.i64(1));
        let end: Block<'m> = self.b.insert_block();
        self.b.br(head);
        k.add_incoming(self.i64(0), pre);
        k.add_incoming(next, end);
        self.b.position_at_end(done);
    }

    fn is_null(&self, p: Value<'m>) -> Value<'m> {
        self.b.icmp(LLVMIntPredicate::LLVMIntEQ, p, self.null())
    }

    fn eq(&self, a: Value<'m>, c: i64) -> Value<'m> {
        let c = self.b.const_int(a.ty(), c);
        self.b.icmp(LLVMIntPredicate::LLVMIntEQ, a, c)
    }

    /// `n * esize` bytes, as an `i64` (`n`, `esize`: `i32`).
    fn bytes(&self, n: Value<'m>, esize: Value<'m>) -> Value<'m> {
        let i64t = Ty::int(self.b.ctx(), 64);
        self.b.mul(self.b.sext(n, i64t), self.b.sext(esize, i64t))
    }

    /// `bytes`, or 0 when `peer` is `MPI_PROC_NULL` (a receive from it
    /// leaves the buffer, and so its adjoint, as it was).
    fn received(&self, abi: Abi<'m>, peer: Value<'m>, bytes: Value<'m>) -> Value<'m> {
        let null = self.eq(peer, abi.proc_null());
        self.b.select(null, self.i64(0), bytes)
    }

    /// `calloc`: `malloc` then zeroed (at least one byte).
    fn zeroed(&self, bytes: Value<'m>) -> Value<'m> {
        let p = self.b.malloc(self.b.add(bytes, self.i64(1))).as_value();
        self.b.memset_zero(p, bytes);
        p
    }

    fn malloc(&self, bytes: Value<'m>) -> Value<'m> {
        self.b.malloc(self.b.add(bytes, self.i64(1))).as_value()
    }

    /// A status object's room (large enough for either ABI).
    fn status(&self) -> Value<'m> {
        let ctx = self.b.ctx();
        let i64t = Ty::int(ctx, 64);
        self.b.alloca(Ty::literal_struct(ctx, &[i64t; 8]), "status")
    }

    /// The calling rank in `comm`.
    fn rank(&self, abi: Abi<'m>, comm: Value<'m>, which: &str) -> Value<'m> {
        let i32t = Ty::int(self.b.ctx(), 32);
        let slot = self.b.alloca(i32t, "rank");
        mpi_call(&self.b, abi, which, &[comm, slot]);
        self.b.load(i32t, slot)
    }

    fn field(&self, rec: Value<'m>, off: u64, ty: Ty<'m>) -> Value<'m> {
        self.b.load(ty, self.b.byte_gep(rec, off))
    }

    fn set(&self, rec: Value<'m>, off: u64, v: Value<'m>) {
        self.b.store(v, self.b.byte_gep(rec, off));
    }

    /// `shadow[k] += tmp[k]` over `bytes` (elements of `esize` bytes),
    /// when `shadow` is not null.
    fn accumulate(&self, shadow: Value<'m>, tmp: Value<'m>, bytes: Value<'m>, esize: Value<'m>) {
        let has = self
            .b
            .icmp(LLVMIntPredicate::LLVMIntNE, shadow, self.null());
        self.when(has, |h| {
            let ctx = h.b.ctx();
            let is_double = h.eq(esize, 8);
            let dbl = h.f.append_block("f64");
            let flt = h.f.append_block("f32");
            let next = h.f.append_block("added");
            h.b.cond_br(is_double, dbl, flt);
            h.b.position_at_end(dbl);
            super::runtime::add_and_zero(&h.b, Ty::double(ctx), tmp, shadow, bytes);
            h.b.br(next);
            h.b.position_at_end(flt);
            super::runtime::add_and_zero(&h.b, Ty::float(ctx), tmp, shadow, bytes);
            h.b.br(next);
            h.b.position_at_end(next);
        });
    }

    fn finish(self) -> Function<'m> {
        self.b.ret(None);
        self.f
    }
}

fn helper_name(what: &str, abi: Option<Abi<'_>>) -> String {
    match abi {
        Some(a) => format!("{MPI_HELPER_PREFIX}{what}.{}", a.suffix()),
        None => format!("{MPI_HELPER_PREFIX}{what}"),
    }
}

/// The table of pending transfers: `{ptr records, i64 len, i64 cap}`.
fn table<'m>(b: &Builder<'m>, module: Module<'m>) -> Value<'m> {
    if let Some(g) = named_global(module, MPI_TABLE) {
        return g.as_value();
    }
    let ctx = b.ctx();
    let i64t = Ty::int(ctx, 64);
    let ty = Ty::literal_struct(ctx, &[Ty::ptr(ctx), i64t, i64t]);
    add_internal_global(module, MPI_TABLE, ty, 0, b.zero(ty), 8).as_value()
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

/// `__enz_mpi_find(req)`: the newest record of request address `req` not
/// retired, or null.
fn find<'m>(b: &Builder<'m>, req: Value<'m>) -> Value<'m> {
    let ctx = b.ctx();
    let (p, i64t, i32t) = (Ty::ptr(ctx), Ty::int(ctx, 64), Ty::int(ctx, 32));
    let fty = Ty::function(p, &[p], false);
    let f = match Helper::get(b, &helper_name("find", None), fty) {
        Ok(f) => f,
        Err(h) => {
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
            let empty = h.eq(k.into(), 0);
            h.b.cond_br(empty, none, body);
            h.b.position_at_end(body);
            let km1 = h.b.sub(k.into(), h.i64(1));
            let rec =
                h.b.gep(Ty::int(ctx, 8), data, &[h.b.mul(km1, h.i64(RECORD))]);
            let same = h.b.icmp(
                LLVMIntPredicate::LLVMIntEQ,
                h.field(rec, REQ, p),
                h.param(0),
            );
            let live = h.b.icmp(
                LLVMIntPredicate::LLVMIntNE,
                h.field(rec, STATE, i32t),
                h.i32(2),
            );
            h.b.cond_br(h.b.and(same, live), found, head);
            k.add_incoming(len, entry);
            k.add_incoming(km1, body);
            h.b.position_at_end(found);
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
    rec
}

/// Where a record keeps the request of its own transfer.
pub(crate) fn record_request<'m>(b: &Builder<'m>, rec: Value<'m>) -> Value<'m> {
    b.byte_gep(rec, ADJ)
}

/// Where a record keeps a temporary buffer freed with it.
pub(crate) fn record_temporary<'m>(b: &Builder<'m>, rec: Value<'m>) -> Value<'m> {
    b.byte_gep(rec, TMP)
}

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
                "MPI_Recv",
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
            mpi_call(&h.b, abi, "MPI_Send", &[s, n, dt, peer, tag, comm]);
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
                "MPI_Sendrecv",
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
            let rank = h.rank(abi, comm, crate::names::COMM_RANK);
            let z = h.zeroed(bytes);
            let s = h.b.select(h.is_null(shadow), z, shadow);
            let tmp = h.zeroed(bytes);
            mpi_call(&h.b, abi, "MPI_Reduce", &[s, tmp, n, dt, sum, root, comm]);
            h.b.memset_zero(s, bytes);
            let is_root = h.b.icmp(LLVMIntPredicate::LLVMIntEQ, rank, root);
            h.when(is_root, |h| h.accumulate(shadow, tmp, bytes, es));
            h.b.free(tmp);
            h.b.free(z);
        }
        Adjoint::Reduce => {
            let (ss, rs, n, dt, root, comm, es) = (x(0), x(1), x(2), x(3), x(4), x(5), x(6));
            let bytes = h.bytes(n, es);
            let rank = h.rank(abi, comm, crate::names::COMM_RANK);
            let tmp = h.zeroed(bytes);
            let is_root = h.b.icmp(LLVMIntPredicate::LLVMIntEQ, rank, root);
            let has = h.b.icmp(LLVMIntPredicate::LLVMIntNE, rs, h.null());
            h.when(h.b.and(is_root, has), |h| {
                h.b.memcpy(tmp, rs, bytes);
                h.b.memset_zero(rs, bytes);
            });
            mpi_call(&h.b, abi, "MPI_Bcast", &[tmp, n, dt, root, comm]);
            h.accumulate(ss, tmp, bytes, es);
            h.b.free(tmp);
        }
        Adjoint::Allreduce => {
            let (ss, rs, n, dt, comm, es) = (x(0), x(1), x(2), x(3), x(4), x(5));
            let bytes = h.bytes(n, es);
            let z = h.zeroed(bytes);
            let r = h.b.select(h.is_null(rs), z, rs);
            let tmp = h.malloc(bytes);
            mpi_call(&h.b, abi, "MPI_Allreduce", &[r, tmp, n, dt, sum, comm]);
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
            let rank = h.rank(abi, comm, crate::names::COMM_RANK);
            let size = h.rank(abi, comm, crate::names::COMM_SIZE);
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
                        "MPI_Scatter",
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
                        "MPI_Gather",
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
                    mpi_call(&h.b, abi, "MPI_Allreduce", &[r, tmp, total, rdt, sum, comm]);
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
    let n = h.b.sext(h.param(0), i64t);
    let reqs = h.param(1);
    h.each(n, |h, k| {
        let req = h.b.gep(Ty::int(ctx, 8), reqs, &[h.b.mul(k, h.i64(hsize))]);
        let rec = find(&h.b, req);
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
                                "MPI_Irecv",
                                &[tmp, count, dt, peer, tag, comm, adj],
                            );
                        });
                        h.when(h.eq(kind, Pending::Recv as i64), |h| {
                            let s = h.b.select(h.is_null(shadow), tmp, shadow);
                            mpi_call(
                                &h.b,
                                abi,
                                "MPI_Isend",
                                &[s, count, dt, peer, tag, comm, adj],
                            );
                        });
                        h.set(rec, STATE, h.i32(1));
                    });
                }
                WaitRule::FinishAdjoint => {
                    h.when(h.eq(state, 1), |h| {
                        mpi_call(&h.b, abi, "MPI_Wait", &[adj, status]);
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
                        mpi_call(&h.b, abi, "MPI_Wait", &[adj, status]);
                    });
                    h.b.free(h.field(rec, TMP, p));
                    retire(&h.b, rec);
                }
            }
        });
    });
    h.finish()
}
