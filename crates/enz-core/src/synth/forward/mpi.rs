//! MPI calls in forward mode: tangents travel with the same communication
//! on the shadow buffers. Every rule here is the primal call again, right
//! after it, with each buffer replaced by its shadow (MPI's transfers and
//! `MPI_SUM` reductions are linear), per lane (`MPI_MAX`/`MPI_MIN`
//! reductions: the sum of the tangents of the rank(s) holding the
//! extremum, `synth/mpi/extremum.rs`):
//!
//! - a blocking call: the call's copy on the shadows (a point-to-point
//!   call's buffer without a shadow gets a zeroed scratch buffer, so that
//!   its peer's tangent transfer still matches);
//! - `MPI_Isend`/`MPI_Irecv`: the same on the shadow, into the request of
//!   a record kept by the request's address (`synth/mpi.rs`);
//!   `MPI_Wait`/`MPI_Waitall` then wait for the records' requests too;
//! - set-up, queries, clocks and barriers: nothing; any other MPI call
//!   passed memory with a shadow is refused by name, and so are other
//!   completion calls (`MPI_Test`, ...) beside non-blocking transfers of
//!   floats.

use super::Forward;
use crate::analysis::mpi::buffer_args;
use crate::ir::{Builder, Inst, Ty, TyKind, Value};
use crate::names::MpiFn;
use crate::synth::mpi::{self as rt, Extremum, Pending, WaitRule};

impl<'m, 'a> Forward<'m, 'a> {
    /// MPI call `i` (`gi` its copy, `b` just after it).
    pub(super) fn mpi_call(&mut self, i: Inst<'m>, gi: Inst<'m>, f: MpiFn, b: &Builder<'m>) {
        match f {
            MpiFn::Inactive | MpiFn::Barrier => {}
            MpiFn::Other => {
                let shadowed = (0..i.call_num_args()).any(|k| {
                    let a = i.operand(k);
                    a.ty().kind() == TyKind::Pointer && self.act.is_shadowed(a)
                });
                if shadowed {
                    self.unsupported(i, &rt::no_rule(i));
                }
            }
            MpiFn::Completion => {
                if let Some(msg) = rt::completion_refusal(i) {
                    self.unsupported(i, &msg);
                }
            }
            MpiFn::Wait | MpiFn::Waitall => {
                let Some(abi) = rt::request_abi(i) else {
                    return;
                };
                let (n, reqs) = if f == MpiFn::Wait {
                    (b.i32(1), self.map.get(i.operand(0)))
                } else {
                    (self.map.get(i.operand(0)), self.map.get(i.operand(1)))
                };
                // Claimed before the wait (which may be on copies of the
                // requests: found by their values), then completed.
                let before = Builder::new(i.context());
                before.position_before(gi);
                rt::claim(&before, abi, n, reqs);
                rt::wait_rule(b, abi, WaitRule::Tangent, n, reqs);
            }
            _ => self.mpi_transfer(i, gi, f, b),
        }
    }

    /// A call that moves data: its copy on the shadows.
    fn mpi_transfer(&mut self, i: Inst<'m>, gi: Inst<'m>, f: MpiFn, b: &Builder<'m>) {
        let bufs = buffer_args(i, f);
        let shadowed = bufs.iter().any(|(_, p)| self.act.is_shadowed(*p));
        let esize = match rt::decide(i, f, shadowed) {
            Ok(Some(e)) => e,
            Ok(None) => return,
            Err(msg) => return self.unsupported(i, &msg),
        };
        let nonblocking = matches!(f, MpiFn::Isend | MpiFn::Irecv);
        if nonblocking && self.lanes() > 1 {
            return self.unsupported(
                i,
                &format!(
                    "{}: non-blocking MPI transfers of differentiable data are not supported with enzyme_width",
                    f.name()
                ),
            );
        }
        let ctx = i.context();
        let i64t = Ty::int(ctx, 64);
        if crate::analysis::mpi::extremum(i, f) {
            // The tangent of whoever holds the extremum, all-reduced.
            let arg = |k: u32| self.map.get(i.operand(k));
            let abi = rt::Abi::of(arg(3));
            let es = b.i32(esize as i64);
            let null = b.zero(Ty::ptr(ctx));
            let (root, comm) = match f {
                MpiFn::Reduce => (arg(5), arg(6)),
                _ => (b.i32(-1), arg(5)),
            };
            for lane in 0..self.lanes() {
                let args = [arg(0), arg(1), arg(2), arg(3), comm, es, root];
                let w = rt::extremum(b, abi, Extremum::Weights, &args);
                let shadow = |p: Value<'m>| match self.shadows[lane].forward(p) {
                    Some(s) if self.act.is_shadowed(p) => s,
                    _ => null,
                };
                let (ss, rs) = (shadow(i.operand(0)), shadow(i.operand(1)));
                let args = [w, ss, rs, arg(2), arg(3), comm, es, root];
                rt::extremum(b, abi, Extremum::Tangent, &args);
            }
            return;
        }
        for lane in 0..self.lanes() {
            // Shadows of the buffers, and scratch where a buffer has none.
            let mut operands: Vec<(u32, Value<'m>)> = Vec::new();
            let mut scratch: Vec<Value<'m>> = Vec::new();
            for (buf, p) in &bufs {
                if p.is_undef_or_null() {
                    continue;
                }
                let s = match self.shadows[lane].forward(*p) {
                    Some(s) if self.act.is_shadowed(*p) => s,
                    _ => {
                        // Zeros to send, or room for what arrives.
                        let n = b.sext(self.map.get(i.operand(buf.count)), i64t);
                        let bytes = b.mul(n, b.const_int(i64t, esize as i64));
                        let bytes = b.add(bytes, b.const_int(i64t, 1));
                        let z = b.malloc(bytes).as_value();
                        b.memset_zero(z, bytes);
                        scratch.push(z);
                        z
                    }
                };
                operands.push((buf.buf, s));
            }
            let mut request = None;
            if nonblocking {
                // The copy's request is a record's, found by the wait.
                let arg = |k: u32| self.map.get(i.operand(k));
                let null = b.zero(Ty::ptr(ctx));
                let rec = rt::record(
                    b,
                    Pending::Tangent,
                    arg(6),
                    null,
                    arg(1),
                    esize,
                    arg(2),
                    arg(3),
                    arg(4),
                    arg(5),
                );
                if let Some(z) = scratch.pop() {
                    b.store(z, rt::record_temporary(b, rec));
                }
                request = Some(rt::record_request(b, rec));
            }
            // A wildcard source or tag: the primal's actual ones.
            let actual = crate::analysis::mpi::source_from_status(i, f).map(|(st, (s, t))| {
                let status = self.map.get(i.operand(st));
                let i32t = Ty::int(ctx, 32);
                let src = b.load(i32t, b.byte_gep(status, s));
                (src, b.load(i32t, b.byte_gep(status, t)))
            });
            let copy = gi.clone_instruction();
            b.insert(copy);
            if let (Some((src, tag)), Some(k)) = (actual, f.source_arg()) {
                copy.set_operand(k, src);
                copy.set_operand(k + 1, tag);
            }
            for (k, s) in operands {
                copy.set_operand(k, s);
            }
            if let Some(r) = request {
                copy.set_operand(6, r);
            }
            for z in scratch {
                b.free(z);
            }
        }
    }
}
