//! What the derivatives of the Enzyme API's loop functions share (the
//! fixed-point loops of `fixed_point.rs`, the checkpointed loops of
//! `checkpoint_loop.rs`): each is `loop(options..., args...)` calling one
//! defined *step* `step(i, args...)`, and its derivatives call the step's.
//! Here: finding the step and the writable globals it reaches, the request
//! for the step's derivative, the derivative's parameters by what they
//! carry ([`Frame`]), the step's arguments from them, and byte copies of
//! (pointer, bytes) regions to and from a buffer. Emits no control flow.

use crate::diag::Diagnostic;
use crate::ir::{Builder, Function, Ty, Value};
use crate::signature::{ArgActivity, Field, Mode, Param, Request, Signature};

/// The step a loop function calls.
pub(crate) fn step_of<'m>(f: Function<'m>) -> Result<Function<'m>, Diagnostic> {
    f.blocks()
        .iter()
        .flat_map(|b| b.instructions())
        .find_map(|i| i.called_function().filter(|g| !g.is_declaration()))
        .ok_or_else(|| {
            Diagnostic::internal(format!("the loop function `{}` calls no step", f.name()))
        })
}

/// The writable globals `step` and the functions it calls (defined in the
/// module) refer to: what the step's own activity analysis must take as
/// shadowed, since no argument tells it (Enzyme's
/// `-enzyme-global-activity`), and what a snapshot of the loop's state
/// holds besides the listed regions.
pub(crate) fn step_globals<'m>(step: Function<'m>) -> Vec<Value<'m>> {
    use crate::analysis::global_activity::{reached, writable_globals_used};
    let mut out = Vec::new();
    for f in reached(step) {
        for g in writable_globals_used(f) {
            if !out.contains(&g) {
                out.push(g);
            }
        }
    }
    out
}

/// The request for the step's derivative matching `key`, the loop's, whose
/// step arguments start at parameter `first`: the counter is constant.
pub(crate) fn step_request<'m>(
    key: &Request<'m>,
    first: usize,
    step: Function<'m>,
    mode: Mode,
) -> Request<'m> {
    let mut args = vec![ArgActivity::Const];
    args.extend(key.args.iter().skip(first).copied());
    Request {
        function: step,
        args,
        ret_active: false,
        ret_shadowed: false,
        mode,
    }
}

/// The parameters of a derivative, by what they carry.
pub(crate) struct Frame<'m> {
    sig: Signature<'m>,
    params: Vec<Value<'m>>,
}

impl<'m> Frame<'m> {
    pub(crate) fn new(f: Function<'m>, sig: &Signature<'m>) -> Frame<'m> {
        Frame {
            sig: sig.clone(),
            params: f.params(),
        }
    }

    pub(crate) fn get(&self, p: Param) -> Option<Value<'m>> {
        self.sig.param_index(p).map(|k| self.params[k])
    }

    pub(crate) fn primal(&self, k: usize) -> Value<'m> {
        self.get(Param::Primal(k)).expect("every primal parameter")
    }

    pub(crate) fn shadow(&self, k: usize) -> Option<Value<'m>> {
        self.get(Param::Shadow { of: k, lane: 0 })
    }

    /// The step's arguments for a call of its derivative with signature
    /// `ssig`, from this frame whose step arguments start at `first`: the
    /// counter `i`, the loop's arguments and their shadows, the tape if
    /// given; a zero return seed.
    pub(crate) fn step_args(
        &self,
        b: &Builder<'m>,
        ssig: &Signature<'m>,
        first: usize,
        i: Value<'m>,
        tape: Option<Value<'m>>,
    ) -> Vec<Value<'m>> {
        ssig.params()
            .iter()
            .map(|(p, ty)| match *p {
                Param::Primal(0) => b.signed_int_cast(i, *ty),
                Param::Primal(j) => self.primal(first + j - 1),
                Param::Shadow { of, lane } => self
                    .get(Param::Shadow {
                        of: first + of - 1,
                        lane,
                    })
                    .unwrap_or_else(|| b.zero(*ty)),
                Param::Tape => tape.unwrap_or_else(|| b.zero(*ty)),
                Param::ReturnAdjoint => b.zero(*ty),
            })
            .collect()
    }

    /// The step's primal arguments after its counter.
    pub(crate) fn primal_args(&self, first: usize, step: Function<'m>) -> Vec<Value<'m>> {
        (1..step.params().len())
            .map(|j| self.primal(first + j - 1))
            .collect()
    }
}

/// Copies the (pointer, bytes) `parts`, one after another, to (`save`) or
/// from the buffer `at`.
pub(crate) fn copy_parts<'m>(
    b: &Builder<'m>,
    parts: &[(Value<'m>, Value<'m>)],
    at: Value<'m>,
    save: bool,
) {
    let i64t = Ty::int(b.ctx(), 64);
    let i8t = Ty::int(b.ctx(), 8);
    let mut off = b.const_int(i64t, 0);
    for (p, len) in parts {
        let there = b.gep(i8t, at, &[off]);
        if save {
            b.memcpy(there, *p, *len);
        } else {
            b.memcpy(*p, there, *len);
        }
        off = b.add(off, *len);
    }
}

/// Returns from an API loop's augmented primal: its tape in the tape field,
/// zero in every other field of `sig`'s return (nothing when it has none).
pub(crate) fn return_tape<'m>(b: &Builder<'m>, sig: &Signature<'m>, tape: Value<'m>) {
    if sig.fields().is_empty() {
        b.ret(None);
        return;
    }
    let mut agg = b.poison(sig.return_type());
    for (k, (field, ty)) in sig.fields().iter().enumerate() {
        let v = if *field == Field::Tape {
            tape
        } else {
            b.zero(*ty)
        };
        agg = b.insert_value(agg, v, k as u32);
    }
    b.ret(Some(agg));
}
