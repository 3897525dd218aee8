//! MPI calls in reverse mode: each communication call's adjoint is the
//! opposite communication on the shadows (`synth/mpi.rs` holds the
//! helpers that do it, called here with the call's primal arguments and
//! its buffers' shadows, null where a buffer has none).
//!
//! - `MPI_Send` ↔ receive the adjoint from the destination and add it;
//!   `MPI_Recv` ↔ send the shadow back to the source and zero it (the
//!   source and tag read from the status by the forward sweep where they
//!   may be wildcards);
//!   `MPI_Sendrecv` both at once.
//! - `MPI_Isend`/`MPI_Irecv`: the forward sweep records the transfer (by
//!   its request's address and value), the wait claims the record (the
//!   program may wait on a copy of the request); the reverse of the wait starts the opposite
//!   non-blocking transfer, the reverse of the `Isend`/`Irecv` waits for
//!   it and accumulates.
//! - `MPI_Bcast` ↔ sum-reduce to the root; `MPI_Reduce`/`MPI_Allreduce`
//!   with `MPI_SUM` ↔ broadcast / all-reduce the result's adjoint;
//!   `MPI_Allreduce`/`MPI_Reduce` with `MPI_MAX`/`MPI_MIN` ↔ all-reduce
//!   (broadcast) it to the rank(s) holding the extremum (weights computed
//!   in the forward sweep);
//!   `MPI_Gather` ↔ scatter, `MPI_Scatter` ↔ gather, `MPI_Allgather` ↔
//!   all-reduce and keep this rank's block.
//! - `MPI_Barrier` is mirrored; set-up, queries and clocks are inactive;
//!   any other MPI call passed memory with a shadow is refused by name.
//!
//! A point-to-point call moving floats makes its adjoint transfer even
//! where its own buffer has no shadow (zeros sent, what arrives dropped),
//! so that it still matches its peer's; a collective without any shadowed
//! buffer is left alone (every rank runs the same call).

use super::Reverse;
use crate::analysis::mpi::buffer_args;
use crate::ir::{Builder, Inst, Ty, TyKind, Value};
use crate::names::MpiFn;
use crate::synth::mpi::{self as rt, Abi, Adjoint, Extremum, Pending, WaitRule};

impl<'m, 'a> Reverse<'m, 'a> {
    /// The MPI call's name, for messages.
    fn mpi_name(i: Inst<'m>) -> String {
        i.called_function()
            .map(|f| f.name())
            .unwrap_or_else(|| "MPI".to_string())
    }

    /// Whether any buffer of MPI call `i` has a shadow.
    fn mpi_shadowed(&self, i: Inst<'m>, f: MpiFn) -> bool {
        buffer_args(i, f)
            .iter()
            .any(|(_, b)| self.facts.act.is_shadowed(*b))
    }

    /// Whether the call's derivative is made, and if so its element size;
    /// says why not when it cannot be.
    fn mpi_rule(&mut self, i: Inst<'m>, f: MpiFn) -> Option<u32> {
        let shadowed = self.mpi_shadowed(i, f);
        match rt::decide(i, f, shadowed) {
            Err(msg) => {
                self.unsupported(i, &msg);
                None
            }
            Ok(Some(_)) if self.req.width > 1 => {
                let msg = format!(
                    "{}: MPI calls moving differentiable data are not supported with enzyme_width in reverse mode",
                    Self::mpi_name(i)
                );
                self.unsupported(i, &msg);
                None
            }
            Ok(rule) => rule,
        }
    }

    /// The forward sweep's part of an MPI call (`gi` its copy): a
    /// non-blocking transfer is recorded for its wait's reverse.
    pub(super) fn augment_mpi_call(&mut self, i: Inst<'m>, gi: Inst<'m>, f: MpiFn) {
        if crate::analysis::mpi::extremum(i, f) {
            // Who holds the extremum, while the buffers hold the primal.
            if let Ok(Some(es)) = rt::decide(i, f, self.mpi_shadowed(i, f)) {
                let fb = Builder::new(i.context());
                fb.position_after(gi);
                let arg = |k: u32| self.map.get(i.operand(k));
                let abi = Abi::of(arg(3));
                let (root, comm) = match f {
                    MpiFn::Reduce => (arg(5), arg(6)),
                    _ => (fb.i32(-1), arg(5)),
                };
                let es = fb.i32(es as i64);
                let args = [arg(0), arg(1), arg(2), arg(3), comm, es, root];
                let w = rt::extremum(&fb, abi, Extremum::Weights, &args);
                self.calls.extremum_weights.insert(i.as_value(), w);
            }
            return;
        }
        if let Some((st, (src_at, tag_at))) = crate::analysis::mpi::source_from_status(i, f) {
            // Where the message came from, for the adjoint to go back.
            let fb = Builder::new(i.context());
            fb.position_after(gi);
            let status = self.map.get(i.operand(st));
            let i32t = Ty::int(i.context(), 32);
            let src = fb.load(i32t, fb.byte_gep(status, src_at));
            let tag = fb.load(i32t, fb.byte_gep(status, tag_at));
            self.calls.mpi_sources.insert(i.as_value(), (src, tag));
            return;
        }
        if matches!(f, MpiFn::Wait | MpiFn::Waitall) {
            // The wait claims its requests' records before completing them.
            let Some(abi) = rt::request_abi(i) else {
                return;
            };
            let fb = Builder::new(i.context());
            fb.position_before(gi);
            let (n, reqs) = if f == MpiFn::Wait {
                (fb.i32(1), self.map.get(i.operand(0)))
            } else {
                (self.map.get(i.operand(0)), self.map.get(i.operand(1)))
            };
            rt::claim(&fb, abi, n, reqs);
            return;
        }
        if !matches!(f, MpiFn::Isend | MpiFn::Irecv) || i.call_num_args() < 7 {
            return;
        }
        let esize = self.mpi_rule(i, f);
        let fb = Builder::new(i.context());
        fb.position_after(gi);
        let arg = |k: u32| self.map.get(i.operand(k));
        let kind = match (esize, f) {
            (None, _) => Pending::Nothing,
            (Some(_), MpiFn::Isend) => Pending::Send,
            (Some(_), _) => Pending::Recv,
        };
        let shadow = self
            .shadows
            .forward(i.operand(0))
            .unwrap_or_else(|| fb.zero(Ty::ptr(i.context())));
        rt::record(
            &fb,
            kind,
            arg(6),
            shadow,
            arg(1),
            esize.unwrap_or(0),
            arg(2),
            arg(3),
            arg(4),
            arg(5),
        );
    }

    /// The reverse sweep of MPI call `i`.
    pub(super) fn reverse_mpi_call(&mut self, i: Inst<'m>, f: MpiFn) {
        match f {
            MpiFn::Inactive => {}
            MpiFn::Barrier => {
                let comm = self.primal(i.operand(0));
                let abi = Abi::of(comm);
                rt::mpi_call(&self.b, abi, crate::names::MPI_BARRIER, &[comm]);
            }
            MpiFn::Other => {
                let shadowed = (0..i.call_num_args()).any(|k| {
                    let a = i.operand(k);
                    a.ty().kind() == TyKind::Pointer && self.facts.act.is_shadowed(a)
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
                    (self.b.i32(1), self.primal(i.operand(0)))
                } else {
                    (self.primal(i.operand(0)), self.primal(i.operand(1)))
                };
                rt::wait_rule(&self.b, abi, WaitRule::StartAdjoint, n, reqs);
            }
            MpiFn::Isend | MpiFn::Irecv => {
                let abi = Abi::of(self.primal(i.operand(2)));
                let req = self.primal(i.operand(6));
                rt::wait_rule(&self.b, abi, WaitRule::FinishAdjoint, self.b.i32(1), req);
            }
            _ => self.reverse_blocking_mpi(i, f),
        }
    }

    /// The adjoint of a blocking communication call.
    fn reverse_blocking_mpi(&mut self, i: Inst<'m>, f: MpiFn) {
        let Some(esize) = self.mpi_rule(i, f) else {
            return;
        };
        let es = self.b.i32(esize as i64);
        let null = self.b.zero(Ty::ptr(i.context()));
        let shadow = |me: &mut Self, k: u32| -> Value<'m> {
            let p = i.operand(k);
            if me.facts.act.is_shadowed(p) {
                me.shadow_rev(p).unwrap_or(null)
            } else {
                null
            }
        };
        let (rule, args): (Adjoint, Vec<Value<'m>>) = match f {
            MpiFn::Allreduce | MpiFn::Reduce if crate::analysis::mpi::extremum(i, f) => {
                let Some(w) = self.calls.extremum_weights.get(&i.as_value()).copied() else {
                    return self.unsupported(
                        i,
                        "the forward sweep did not record who holds this reduction's extremum (this is a bug in enz-rs)",
                    );
                };
                let w = self.cached_forward(w, i.parent_block());
                let (ss, rs) = (shadow(self, 0), shadow(self, 1));
                let mut a = vec![w, ss, rs];
                let (root, comm) = match f {
                    MpiFn::Reduce => (self.primal(i.operand(5)), self.primal(i.operand(6))),
                    _ => (self.b.i32(-1), self.primal(i.operand(5))),
                };
                a.extend([
                    self.primal(i.operand(2)),
                    self.primal(i.operand(3)),
                    comm,
                    es,
                    root,
                ]);
                let abi = Abi::of(i.operand(3));
                rt::extremum(&self.b, abi, Extremum::Adjoint, &a);
                return;
            }
            MpiFn::Send | MpiFn::Recv => {
                let s = shadow(self, 0);
                let mut a = vec![s];
                a.extend((1..6).map(|k| self.primal(i.operand(k))));
                let rule = if f == MpiFn::Send {
                    Adjoint::Send
                } else {
                    Adjoint::Recv
                };
                (rule, a)
            }
            MpiFn::Sendrecv => {
                let (ss, rs) = (shadow(self, 0), shadow(self, 5));
                let mut a = vec![ss];
                a.extend((1..5).map(|k| self.primal(i.operand(k))));
                a.push(rs);
                a.extend((6..11).map(|k| self.primal(i.operand(k))));
                (Adjoint::Sendrecv, a)
            }
            MpiFn::Bcast => {
                let s = shadow(self, 0);
                let mut a = vec![s];
                a.extend((1..5).map(|k| self.primal(i.operand(k))));
                (Adjoint::Bcast, a)
            }
            MpiFn::Reduce => {
                let (ss, rs) = (shadow(self, 0), shadow(self, 1));
                let mut a = vec![ss, rs];
                // count, type, root, comm (the operation is MPI_SUM).
                a.extend([2, 3, 5, 6].map(|k| self.primal(i.operand(k))));
                (Adjoint::Reduce, a)
            }
            MpiFn::Allreduce => {
                let (ss, rs) = (shadow(self, 0), shadow(self, 1));
                let mut a = vec![ss, rs];
                a.extend([2, 3, 5].map(|k| self.primal(i.operand(k))));
                (Adjoint::Allreduce, a)
            }
            MpiFn::Gather | MpiFn::Scatter | MpiFn::Allgather => {
                let (ss, rs) = (shadow(self, 0), shadow(self, 3));
                let mut a = vec![ss];
                a.extend((1..3).map(|k| self.primal(i.operand(k))));
                a.push(rs);
                let last = if f == MpiFn::Allgather { 7 } else { 8 };
                a.extend((4..last).map(|k| self.primal(i.operand(k))));
                let rule = match f {
                    MpiFn::Gather => Adjoint::Gather,
                    MpiFn::Scatter => Adjoint::Scatter,
                    _ => Adjoint::Allgather,
                };
                (rule, a)
            }
            _ => return,
        };
        let mut args = args;
        if let Some((src, tag)) = self.calls.mpi_sources.get(&i.as_value()).copied() {
            // The actual source and tag (the helper's arguments are the
            // call's, shifted by the buffers they replace).
            let blk = i.parent_block();
            let at = f.source_arg().expect("a receive") as usize;
            args[at] = self.cached_forward(src, blk);
            args[at + 1] = self.cached_forward(tag, blk);
        }
        args.push(es);
        let dtype = buffer_args(i, f)
            .first()
            .map(|(b, _)| i.operand(b.datatype))
            .expect("a communication call has a buffer");
        rt::adjoint(&self.b, Abi::of(dtype), rule, &args);
    }
}
