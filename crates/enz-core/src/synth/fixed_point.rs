//! Derivatives of fixed-point loops (`__enzyme_fixed_point`, lowered by
//! the front end to a loop function marked [`FIXED_POINT_LOOP`] with
//! layout [`FixedPointLayout`]): the iterations are not differentiated one
//! by one; one step's derivative is iterated at the state the loop ends in.
//!
//! ```text
//!   augmented_loop(params, shadows) -> {tape}
//!     the loop, plainly; the tape: the last iteration's counter and the
//!     states' and regions' bytes as the loop left them
//!   reverse_loop(params, shadows, tape) -> {adjoints}
//!     keep what the states and regions hold now; then, pass k = 1, 2, ...:
//!       restore them from the tape; the step's augmented primal and its
//!       reverse, seeded with the states' shadows: z̄ <- φ_zᵀ z̄, x̄ += φ_xᵀ z̄
//!       (the Neumann series of the adjoint fixed point; pass 1 also takes
//!       the adjoints of the step's other outputs, which it consumes);
//!       c_k = |z̄|² over the states; go on while the control function says
//!       so, or else while c_k > r·c_1, not (k > 5 and c_k > c_{k-1}), and
//!       k < max_iters (0: no limit)
//!     zero the states' shadows; put back what the states and regions held
//!   fwddiffe_loop(params, tangents)
//!     the loop, plainly; keep the final states and regions; zero the
//!     states' tangents; pass k: restore them, ż_old = ż, the step's
//!     tangent (ż <- φ_z ż + φ_x ẋ), c_k = |ż - ż_old|², the same test;
//!     put the final states and regions back
//! ```
//!
//! Summing x̄ over the passes instead of applying φ_xᵀ once to the summed
//! adjoint costs nothing more (every pass runs the step's reverse anyway)
//! and is the plain loop's reverse with every iteration's Jacobian taken at
//! the converged state. The states hold doubles. Pointers the step stores
//! into memory with shadows are not kept in step with their shadows.

use super::loop_fn::{copy_parts, step_globals, step_of, Frame};
use super::registry::Registry;
use super::reverse::{new_function, Derivative};
use crate::diag::Diagnostic;
use crate::ir::{Block, Builder, Function, LLVMIntPredicate, LLVMRealPredicate, Ty, Value};
use crate::names::FixedPointLayout;
use crate::signature::{Field, Kind, Mode, Param, Request, Signature};

pub(crate) use crate::analysis::calls::fixed_point_layout as layout_of;

/// The augmented primal and reverse of fixed-point loop `key.function`.
pub(crate) fn split<'m>(
    key: &Request<'m>,
    layout: FixedPointLayout,
    registry: &mut Registry<'m>,
) -> Result<Derivative<'m>, Diagnostic> {
    let f = key.function;
    let step = step_of(f)?;
    registry.seed_globals(step_globals(step));
    let skey = super::loop_fn::step_request(key, layout.first_arg(), step, Mode::Split);
    let fns = registry.split(&skey)?;
    let name = f.name();
    let asig = key.signature(Kind::Augmented);
    let rsig = key.signature(Kind::Reverse);
    let forward = new_function(f, &format!("augmented_{name}"), asig.function_type());
    let reverse = new_function(f, &format!("reverse_{name}"), rsig.function_type());
    let g = Gen {
        layout,
        step,
        b: Builder::new(f.context()),
    };
    g.augmented(forward, &asig);
    g.reverse(reverse, &rsig, &skey, fns);
    Ok(Derivative { forward, reverse })
}

/// The forward derivative of fixed-point loop `key.function`.
pub(crate) fn forward<'m>(
    key: &Request<'m>,
    layout: FixedPointLayout,
    registry: &mut Registry<'m>,
) -> Result<Function<'m>, Diagnostic> {
    let f = key.function;
    if key.mode != (Mode::Forward { width: 1 }) {
        return Err(Diagnostic::new(format!(
            "a fixed-point loop (`{}`) in forward mode supports enzyme_width 1 only, not __enzyme_fwdsplit or vector widths",
            f.name()
        )));
    }
    let step = step_of(f)?;
    registry.seed_globals(step_globals(step));
    let skey = super::loop_fn::step_request(key, layout.first_arg(), step, key.mode);
    let tangent = registry.forward(&skey)?;
    let sig = key.signature(Kind::Forward { width: 1 });
    let d = new_function(f, &format!("fwddiffe_{}", f.name()), sig.function_type());
    let g = Gen {
        layout,
        step,
        b: Builder::new(f.context()),
    };
    g.tangent(d, &sig, &skey, tangent);
    Ok(d)
}

/// The (pointer, bytes) of the states and regions, and their total.
struct Memory<'m> {
    parts: Vec<(Value<'m>, Value<'m>)>,
    total: Value<'m>,
}

/// What the convergence test carries from pass to pass.
struct Test<'m> {
    /// The pass, from 1.
    k: Value<'m>,
    /// c_1 (zero before the first pass).
    first: Value<'m>,
    /// c_{k-1}.
    prev: Value<'m>,
}

struct Gen<'m> {
    layout: FixedPointLayout,
    step: Function<'m>,
    b: Builder<'m>,
}

impl<'m> Gen<'m> {
    fn i64t(&self) -> Ty<'m> {
        Ty::int(self.b.ctx(), 64)
    }

    fn c(&self, v: i64) -> Value<'m> {
        self.b.const_int(self.i64t(), v)
    }

    fn memory(&self, fr: &Frame<'m>) -> Memory<'m> {
        let n = self.layout.states + self.layout.regions;
        let parts: Vec<_> = (0..n)
            .map(|j| (fr.primal(2 * j), fr.primal(2 * j + 1)))
            .collect();
        let mut total = self.c(0);
        for (_, len) in &parts {
            total = self.b.add(total, *len);
        }
        Memory { parts, total }
    }

    /// Copies the states and regions to (`save`) or from the buffer `at`.
    fn copy(&self, m: &Memory<'m>, at: Value<'m>, save: bool) {
        copy_parts(&self.b, &m.parts, at, save);
    }

    /// The states with a shadow: (state, shadow, bytes).
    fn shadowed_states(&self, fr: &Frame<'m>) -> Vec<(Value<'m>, Value<'m>, Value<'m>)> {
        (0..self.layout.states)
            .filter_map(|j| {
                fr.shadow(2 * j)
                    .map(|s| (fr.primal(2 * j), s, fr.primal(2 * j + 1)))
            })
            .collect()
    }

    /// The step's arguments for a call of its derivative with signature
    /// `ssig`: see [`Frame::step_args`].
    fn step_args(
        &self,
        ssig: &Signature<'m>,
        fr: &Frame<'m>,
        i: Value<'m>,
        tape: Option<Value<'m>>,
    ) -> Vec<Value<'m>> {
        fr.step_args(&self.b, ssig, self.layout.first_arg(), i, tape)
    }

    /// The primal loop in `f` from the builder's block on; returns the
    /// last iteration's counter, the builder at the loop's exit.
    fn primal_loop(&self, f: Function<'m>, fr: &Frame<'m>) -> Value<'m> {
        let b = &self.b;
        let from = b.insert_block();
        let body = f.append_block("iterate");
        let exit = f.append_block("converged");
        b.br(body);
        b.position_at_end(body);
        let n = b.phi(self.i64t(), "i");
        let counter_ty = self.step.params()[0].ty();
        let mut args = vec![b.signed_int_cast(n.as_value(), counter_ty)];
        args.extend(fr.primal_args(self.layout.first_arg(), self.step));
        let go_on = b.call(self.step.function_type(), self.step, &args);
        let next = b.add(n.as_value(), self.c(1));
        n.add_incoming(self.c(0), from);
        n.add_incoming(next, body);
        let again = b.icmp(
            LLVMIntPredicate::LLVMIntNE,
            go_on.as_value(),
            b.zero(go_on.ty()),
        );
        b.cond_br(again, body, exit);
        b.position_at_end(exit);
        n.as_value()
    }

    /// Σ (a[j] - b[j])² over the `bytes / 8` doubles at `a` (minus those
    /// at `b` if given) added to `acc`; the builder ends after the loop.
    fn sum_squares(
        &self,
        f: Function<'m>,
        acc: Value<'m>,
        a: Value<'m>,
        minus: Option<Value<'m>>,
        bytes: Value<'m>,
    ) -> Value<'m> {
        let b = &self.b;
        let f64t = Ty::double(b.ctx());
        let n = b.udiv(bytes, self.c(8));
        let from = b.insert_block();
        let body = f.append_block("norm");
        let exit = f.append_block("normed");
        b.cond_br(
            b.icmp(LLVMIntPredicate::LLVMIntEQ, n, self.c(0)),
            exit,
            body,
        );
        b.position_at_end(body);
        let j = b.phi(self.i64t(), "j");
        let s = b.phi(f64t, "sum");
        let mut v = b.load(f64t, b.gep(f64t, a, &[j.as_value()]));
        if let Some(m) = minus {
            v = b.fsub(v, b.load(f64t, b.gep(f64t, m, &[j.as_value()])));
        }
        let s1 = b.fadd(s.as_value(), b.fmul(v, v));
        let j1 = b.add(j.as_value(), self.c(1));
        j.add_incoming(self.c(0), from);
        j.add_incoming(j1, body);
        s.add_incoming(acc, from);
        s.add_incoming(s1, body);
        b.cond_br(b.icmp(LLVMIntPredicate::LLVMIntULT, j1, n), body, exit);
        b.position_at_end(exit);
        let out = b.phi(f64t, "sum");
        out.add_incoming(acc, from);
        out.add_incoming(s1, body);
        out.as_value()
    }

    /// Calls the control function, if any, with `*cumul = value`: whether
    /// to go on (true without one). The builder ends after it.
    fn ask_control(
        &self,
        f: Function<'m>,
        fr: &Frame<'m>,
        slots: (Value<'m>, Value<'m>),
        value: Value<'m>,
        otherwise: Value<'m>,
    ) -> Value<'m> {
        let b = &self.b;
        let ctx = b.ctx();
        let (i32t, ptr) = (Ty::int(ctx, 32), Ty::ptr(ctx));
        let control = fr.primal(self.layout.reduction() + 2);
        let from = b.insert_block();
        let call = f.append_block("control");
        let after = f.append_block("controlled");
        let none = b.icmp(LLVMIntPredicate::LLVMIntEQ, control, b.zero(ptr));
        b.cond_br(none, after, call);
        b.position_at_end(call);
        b.store(value, slots.0);
        let cty = Ty::function(i32t, &[ptr, ptr], false);
        let r = b.call(cty, control, &[slots.0, slots.1]);
        let go = b.icmp(LLVMIntPredicate::LLVMIntNE, r.as_value(), b.zero(i32t));
        b.br(after);
        b.position_at_end(after);
        let out = b.phi(Ty::int(ctx, 1), "go_on");
        out.add_incoming(otherwise, from);
        out.add_incoming(go, call);
        out.as_value()
    }

    /// The slots `(cumul, reduction)` the control function is passed.
    fn control_slots(&self, fr: &Frame<'m>) -> (Value<'m>, Value<'m>) {
        let b = &self.b;
        let f64t = Ty::double(b.ctx());
        let cumul = b.alloca(f64t, "cumul");
        let red = b.alloca(f64t, "reduction");
        b.store(fr.primal(self.layout.reduction()), red);
        (cumul, red)
    }

    /// Whether to run another pass after pass `t.k` measured `c`.
    fn go_on(
        &self,
        f: Function<'m>,
        fr: &Frame<'m>,
        slots: (Value<'m>, Value<'m>),
        t: &Test<'m>,
        c: Value<'m>,
    ) -> (Value<'m>, Value<'m>) {
        use LLVMIntPredicate::*;
        use LLVMRealPredicate::*;
        let b = &self.b;
        let is_first = b.icmp(LLVMIntEQ, t.k, self.c(1));
        let first = b.select(is_first, c, t.first);
        let r = fr.primal(self.layout.reduction());
        let above = b.fcmp(LLVMRealOGT, c, b.fmul(r, first));
        let grows = b.and(
            b.icmp(LLVMIntUGT, t.k, self.c(5)),
            b.fcmp(LLVMRealOGT, c, t.prev),
        );
        let built_in = b.and(above, b.xor(grows, b.const_int(Ty::int(b.ctx(), 1), 1)));
        let go = self.ask_control(f, fr, slots, c, built_in);
        let max = fr.primal(self.layout.reduction() + 1);
        let limited = b.and(
            b.icmp(LLVMIntSGT, max, self.c(0)),
            b.icmp(LLVMIntSGE, t.k, max),
        );
        let go = b.and(go, b.xor(limited, b.const_int(Ty::int(b.ctx(), 1), 1)));
        (go, first)
    }

    /// The passes: `body` emits one (the builder in the pass's block) and
    /// returns c_k; the builder ends in the block after the last pass.
    fn passes(&self, f: Function<'m>, fr: &Frame<'m>, body: impl FnOnce() -> Value<'m>) {
        let b = &self.b;
        let f64t = Ty::double(b.ctx());
        let slots = self.control_slots(fr);
        let yes = b.const_int(Ty::int(b.ctx(), 1), 1);
        let go0 = self.ask_control(f, fr, slots, b.const_float(f64t, -1.0), yes);
        let from = b.insert_block();
        let pass = f.append_block("pass");
        let done = f.append_block("passes_done");
        b.cond_br(go0, pass, done);
        b.position_at_end(pass);
        let k = b.phi(self.i64t(), "pass");
        let first = b.phi(f64t, "first");
        let prev = b.phi(f64t, "prev");
        let t = Test {
            k: k.as_value(),
            first: first.as_value(),
            prev: prev.as_value(),
        };
        let c = body();
        let (go, first1) = self.go_on(f, fr, slots, &t, c);
        let end: Block<'m> = b.insert_block();
        k.add_incoming(self.c(1), from);
        k.add_incoming(b.add(t.k, self.c(1)), end);
        first.add_incoming(b.const_float(f64t, 0.0), from);
        first.add_incoming(first1, end);
        prev.add_incoming(b.const_float(f64t, 0.0), from);
        prev.add_incoming(c, end);
        b.cond_br(go, pass, done);
        b.position_at_end(done);
    }

    fn augmented(&self, f: Function<'m>, sig: &Signature<'m>) {
        let b = &self.b;
        let entry = f.append_block("entry");
        b.position_at_end(entry);
        let fr = Frame::new(f, sig);
        let last = self.primal_loop(f, &fr);
        let m = self.memory(&fr);
        let tape = b.malloc(b.add(m.total, self.c(8))).as_value();
        b.store(last, tape);
        self.copy(&m, b.byte_gep(tape, 8), true);
        super::loop_fn::return_tape(b, sig, tape);
    }

    fn reverse(
        &self,
        f: Function<'m>,
        sig: &Signature<'m>,
        skey: &Request<'m>,
        fns: Derivative<'m>,
    ) {
        let b = &self.b;
        let entry = f.append_block("entry");
        b.position_at_end(entry);
        let fr = Frame::new(f, sig);
        let tape = fr.get(Param::Tape).expect("a tape parameter");
        let last = b.load(self.i64t(), tape);
        let snapshot = b.byte_gep(tape, 8);
        let m = self.memory(&fr);
        let kept = b.malloc(b.add(m.total, self.c(1))).as_value();
        self.copy(&m, kept, true);
        let sums: Vec<(Field, Ty<'m>, Value<'m>)> = sig
            .fields()
            .iter()
            .map(|(fld, ty)| {
                let slot = b.alloca(*ty, "sum");
                b.store(b.zero(*ty), slot);
                (*fld, *ty, slot)
            })
            .collect();
        let asig = skey.signature(Kind::Augmented);
        let rsig = skey.signature(Kind::Reverse);
        let states = self.shadowed_states(&fr);
        let first = self.layout.first_arg();
        self.passes(f, &fr, || {
            self.copy(&m, snapshot, false);
            let aug = b.call(
                fns.forward.function_type(),
                fns.forward,
                &self.step_args(&asig, &fr, last, None),
            );
            let stape = asig
                .field_index(Field::Tape)
                .map(|k| b.extract_value(aug.as_value(), k));
            let res = b.call(
                fns.reverse.function_type(),
                fns.reverse,
                &self.step_args(&rsig, &fr, last, stape),
            );
            for (fld, ty, slot) in &sums {
                let Field::Adjoint(k) = *fld else { continue };
                if k < first {
                    continue;
                }
                let Some(at) = rsig.field_index(Field::Adjoint(k - first + 1)) else {
                    continue;
                };
                let v = b.extract_value(res.as_value(), at);
                b.store(b.fadd(b.load(*ty, *slot), v), *slot);
            }
            let mut c = b.const_float(Ty::double(b.ctx()), 0.0);
            for (_, shadow, bytes) in &states {
                c = self.sum_squares(f, c, *shadow, None, *bytes);
            }
            c
        });
        for (_, shadow, bytes) in &states {
            b.memset_zero(*shadow, *bytes);
        }
        self.copy(&m, kept, false);
        b.free(kept);
        b.free(tape);
        if sums.is_empty() {
            b.ret(None);
        } else {
            let mut agg = b.poison(sig.return_type());
            for (k, (_, ty, slot)) in sums.iter().enumerate() {
                agg = b.insert_value(agg, b.load(*ty, *slot), k as u32);
            }
            b.ret(Some(agg));
        }
    }

    fn tangent(
        &self,
        f: Function<'m>,
        sig: &Signature<'m>,
        skey: &Request<'m>,
        tangent: Function<'m>,
    ) {
        let b = &self.b;
        let entry = f.append_block("entry");
        b.position_at_end(entry);
        let fr = Frame::new(f, sig);
        let last = self.primal_loop(f, &fr);
        let m = self.memory(&fr);
        let states = self.shadowed_states(&fr);
        let mut tangent_bytes = self.c(0);
        for (_, _, bytes) in &states {
            tangent_bytes = b.add(tangent_bytes, *bytes);
        }
        let snapshot = b
            .malloc(b.add(b.add(m.total, tangent_bytes), self.c(1)))
            .as_value();
        self.copy(&m, snapshot, true);
        let old = b.gep(Ty::int(b.ctx(), 8), snapshot, &[m.total]);
        for (_, shadow, bytes) in &states {
            b.memset_zero(*shadow, *bytes);
        }
        let tsig = skey.signature(Kind::Forward { width: 1 });
        self.passes(f, &fr, || {
            self.copy(&m, snapshot, false);
            let mut at = old;
            let mut olds = Vec::new();
            for (_, shadow, bytes) in &states {
                b.memcpy(at, *shadow, *bytes);
                olds.push(at);
                at = b.gep(Ty::int(b.ctx(), 8), at, &[*bytes]);
            }
            b.call(
                tangent.function_type(),
                tangent,
                &self.step_args(&tsig, &fr, last, None),
            );
            let mut c = b.const_float(Ty::double(b.ctx()), 0.0);
            for ((_, shadow, bytes), o) in states.iter().zip(&olds) {
                c = self.sum_squares(f, c, *shadow, Some(*o), *bytes);
            }
            c
        });
        self.copy(&m, snapshot, false);
        b.free(snapshot);
        if sig.fields().is_empty() {
            b.ret(None);
        } else {
            let mut agg = b.poison(sig.return_type());
            for (k, (_, ty)) in sig.fields().iter().enumerate() {
                agg = b.insert_value(agg, b.zero(*ty), k as u32);
            }
            b.ret(Some(agg));
        }
    }
}
