//! MPI in derivatives: the helper functions the adjoint and tangent rules
//! of MPI calls (`reverse/mpi.rs`, `forward/mpi.rs`) call, emitted into
//! the module (internal, once per module and ABI), and the table of
//! pending non-blocking transfers (`mpi/requests.rs`); the blocking calls'
//! adjoints are in `mpi/collective.rs`, `MPI_MAX`/`MPI_MIN` all-reductions'
//! in `mpi/extremum.rs`.
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
    add_internal_function, external_global, named_function, Block, Builder, Function, Ty, Value,
};
use crate::ir::{LLVMIntPredicate, Module};
use crate::names::{MpiFn, MPICH_SUM, MPI_HELPER_PREFIX, OPEN_MPI_SUM};

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
            crate::names::MPI_SEND => vec![p, i, h, i, i, h],
            crate::names::MPI_RECV | crate::names::MPI_ISEND | crate::names::MPI_IRECV => {
                vec![p, i, h, i, i, h, p]
            }
            crate::names::MPI_WAIT => vec![p, p],
            crate::names::MPI_SENDRECV => vec![p, i, h, i, i, p, i, h, i, i, h, p],
            crate::names::MPI_BCAST => vec![p, i, h, i, h],
            crate::names::MPI_REDUCE => vec![p, p, i, h, h, i, h],
            crate::names::MPI_ALLREDUCE => vec![p, p, i, h, h, h],
            crate::names::MPI_GATHER | crate::names::MPI_SCATTER => vec![p, i, h, p, i, h, i, h],
            crate::names::MPI_COMM_RANK | crate::names::MPI_COMM_SIZE => vec![h, p],
            _ => vec![h],
        };
        Ty::function(i, &params, false)
    }

    /// `MPI_DOUBLE` of this ABI.
    fn double(self, b: &Builder<'m>, module: Module<'m>) -> Value<'m> {
        match self.abi {
            MpiAbi::Mpich => b.const_int(self.handle, crate::names::MPICH_DOUBLE),
            MpiAbi::OpenMpi => {
                external_global(module, crate::names::OPEN_MPI_DOUBLE, Ty::int(b.ctx(), 8))
                    .as_value()
            }
        }
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
    [crate::names::MPI_ISEND, crate::names::MPI_IRECV]
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

/// The message refusing completion call `i` (`MPI_Testany`, `MPI_Waitany`,
/// ...) when its function makes non-blocking transfers of floats: their
/// derivatives' transfers are started and finished only by `MPI_Wait`
/// and `MPI_Waitall`. `None` when there are none.
pub(crate) fn completion_refusal(i: crate::ir::Inst<'_>) -> Option<String> {
    let func = i.parent_block().parent();
    let nonblocking = func
        .blocks()
        .into_iter()
        .flat_map(|b| b.instructions())
        .filter(|c| c.called_value().is_some())
        .any(|c| {
            let f = c
                .called_function()
                .and_then(|f| MpiFn::from_callee(&f.name()));
            matches!(f, Some(MpiFn::Isend | MpiFn::Irecv))
                && crate::analysis::mpi::moves_floats(c, f.expect("matched"))
        });
    let name = i.called_function().map(|c| c.name()).unwrap_or_default();
    nonblocking.then(|| format!("{name}: the non-blocking transfers of this function carry derivatives, whose own transfers enz-rs completes in MPI_Wait and MPI_Waitall only (use one of them)"))
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

    /// Element `k` of `p` (elements of `esize` bytes: doubles or floats),
    /// as a double.
    fn elem(&self, p: Value<'m>, k: Value<'m>, esize: Value<'m>) -> Value<'m> {
        let ctx = self.b.ctx();
        let (dbl, flt) = (Ty::double(ctx), Ty::float(ctx));
        let (d, f, next) = (
            self.f.append_block("f64"),
            self.f.append_block("f32"),
            self.f.append_block("loaded"),
        );
        self.b.cond_br(self.eq(esize, 8), d, f);
        self.b.position_at_end(d);
        let vd = self.b.load(dbl, self.b.gep(dbl, p, &[k]));
        self.b.br(next);
        self.b.position_at_end(f);
        let vf = self
            .b
            .fp_cast(self.b.load(flt, self.b.gep(flt, p, &[k])), dbl);
        self.b.br(next);
        self.b.position_at_end(next);
        let v = self.b.phi(dbl, "elem");
        v.add_incoming(vd, d);
        v.add_incoming(vf, f);
        v.into()
    }

    /// Stores double `v` as element `k` of `p` (see [`Helper::elem`]).
    fn set_elem(&self, p: Value<'m>, k: Value<'m>, esize: Value<'m>, v: Value<'m>) {
        let ctx = self.b.ctx();
        let (dbl, flt) = (Ty::double(ctx), Ty::float(ctx));
        let (d, f, next) = (
            self.f.append_block("f64"),
            self.f.append_block("f32"),
            self.f.append_block("stored"),
        );
        self.b.cond_br(self.eq(esize, 8), d, f);
        self.b.position_at_end(d);
        self.b.store(v, self.b.gep(dbl, p, &[k]));
        self.b.br(next);
        self.b.position_at_end(f);
        self.b
            .store(self.b.fp_cast(v, flt), self.b.gep(flt, p, &[k]));
        self.b.br(next);
        self.b.position_at_end(next);
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

mod collective;
mod extremum;
mod requests;

pub(crate) use collective::{adjoint, Adjoint};
pub(crate) use extremum::{extremum, Extremum};
pub(crate) use requests::{
    claim, record, record_request, record_temporary, wait_rule, Pending, WaitRule,
};
