//! Reverse derivatives of checkpointed time loops (`__enzyme_checkpoint_for`
//! and `__enzyme_checkpoint_while`, lowered by the front end to a loop
//! function marked [`CHECKPOINT_LOOP`] with layout [`CheckpointLayout`]).
//! A user-supplied scheme (`EnzymeCheckpointScheme` of
//! `runtime/include/enzyme/checkpoint.h`) decides, action by action, which
//! states to snapshot, which steps to recompute and when to turn; the
//! derivatives built here are the driver of that protocol, and keep the
//! tape of one step at a time.
//!
//! ```text
//!   augmented_loop(params, shadows) -> {tape}
//!     state = scheme.init(data, n (while: -1), snapshot bytes)
//!     loop on scheme.next_action:
//!       STORE k         scheme.store(k, the snapshot's regions)
//!       RESTORE k       scheme.restore(k, ...) (a while loop that ended)
//!       FORWARD a..b    steps a .. b-1, plainly (while: a step returning 0
//!                       ends the loop: scheme.set_nsteps(its index + 1))
//!       FIRSTUTURN b    store slot -2; step b-1 plainly; stop
//!       DONE            (no steps) stop
//!     tape: {state, b-1 (or -1 after DONE)}
//!   reverse_loop(params, shadows, tape) -> {adjoints}
//!     store slot -1 (the state the reverse sweep starts from); restore
//!     slot -2; step b-1's augmented primal then its reverse; loop on
//!     scheme.next_action:
//!       STORE k / RESTORE k / FORWARD a..b   as above (restore: load)
//!       UTURN b         step b-1's augmented primal then its reverse
//!       DONE            restore slot -1; stop
//!     scheme.finalize; the adjoints of the steps' scalar arguments summed
//! ```
//!
//! A snapshot holds the listed regions and every writable global the step
//! reaches that has a size ([`super::loop_fn::step_globals`]), passed to
//! the scheme as an `EnzymeCkptRegion` array. Any other action, and a
//! scheme without the function an action needs, traps. Forward mode
//! differentiates the loop function's body, the plain loop.

use super::loop_fn::{step_globals, step_of, step_request, Frame};
use super::registry::Registry;
use super::reverse::{new_function, Derivative};
use crate::diag::Diagnostic;
use crate::ir::{Block, Builder, Function, LLVMIntPredicate, Ty, Value};
use crate::names::{
    ActionFlag, CheckpointLayout, SchemeField, ACTION_BYTES, ACTION_ITERATION, ACTION_SLOT,
    ACTION_START, REGION_BYTES, SLOT_LAST_STEP, SLOT_REVERSE_START,
};
use crate::signature::{Field, Kind, Mode, Param, Request, Signature};

pub(crate) use crate::analysis::calls::checkpoint_layout as layout_of;

/// The augmented primal and reverse of checkpointed loop `key.function`.
pub(crate) fn split<'m>(
    key: &Request<'m>,
    layout: CheckpointLayout,
    registry: &mut Registry<'m>,
) -> Result<Derivative<'m>, Diagnostic> {
    let f = key.function;
    let step = step_of(f)?;
    let globals = step_globals(step);
    registry.seed_globals(globals.iter().copied());
    let skey = step_request(key, layout.first_arg(), step, Mode::Split);
    let fns = registry.split(&skey)?;
    let name = f.name();
    let asig = key.signature(Kind::Augmented);
    let rsig = key.signature(Kind::Reverse);
    let forward = new_function(f, &format!("augmented_{name}"), asig.function_type());
    let reverse = new_function(f, &format!("reverse_{name}"), rsig.function_type());
    let module = f.global_parent();
    let globals = globals
        .into_iter()
        .filter_map(|g| {
            let bytes = g.global_value_type().layout_size(module)?;
            (bytes > 0).then_some((g, bytes))
        })
        .collect();
    let g = Gen {
        layout,
        step,
        globals,
        b: Builder::new(f.context()),
        ptr_bytes: Ty::ptr(f.context()).alloc_size(module),
    };
    g.augmented(forward, &asig);
    g.reverse(reverse, &rsig, &skey, fns);
    Ok(Derivative { forward, reverse })
}

/// The scheme's per-call values the driver passes around.
struct Driver<'m> {
    /// `void *` returned by `init`.
    state: Value<'m>,
    /// The `EnzymeCkptRegion` array, and its length.
    regions: Value<'m>,
    nregions: Value<'m>,
    /// The `EnzymeCkptAction` `next_action` fills in.
    action: Value<'m>,
}

/// One action as read back: flag, iteration, startiteration, cpnum.
struct Action<'m> {
    flag: Value<'m>,
    iteration: Value<'m>,
    start: Value<'m>,
    slot: Value<'m>,
}

struct Gen<'m> {
    layout: CheckpointLayout,
    step: Function<'m>,
    /// The writable globals the step reaches, with their sizes.
    globals: Vec<(Value<'m>, u64)>,
    b: Builder<'m>,
    ptr_bytes: u64,
}

impl<'m> Gen<'m> {
    fn i64t(&self) -> Ty<'m> {
        Ty::int(self.b.ctx(), 64)
    }

    fn c(&self, v: i64) -> Value<'m> {
        self.b.const_int(self.i64t(), v)
    }

    fn param(&self, fr: &Frame<'m>, k: usize) -> Value<'m> {
        fr.primal(self.layout.scheme() + k)
    }

    /// `scheme`, `data`, `start`, `n` of the call.
    fn scheme(&self, fr: &Frame<'m>) -> Value<'m> {
        self.param(fr, 0)
    }

    /// The function pointer in field `field` of the scheme.
    fn scheme_fn(&self, fr: &Frame<'m>, field: SchemeField) -> Value<'m> {
        let b = &self.b;
        let at = b.byte_gep(self.scheme(fr), field as u64 * self.ptr_bytes);
        b.load(Ty::ptr(b.ctx()), at)
    }

    /// Traps unless `v` (a function pointer) is set; the builder continues
    /// in a new block.
    fn require(&self, f: Function<'m>, v: Value<'m>) {
        let b = &self.b;
        let ok = f.append_block("scheme_fn");
        let bad = f.append_block("no_scheme_fn");
        let null = b.icmp(LLVMIntPredicate::LLVMIntEQ, v, b.zero(Ty::ptr(b.ctx())));
        b.cond_br(null, bad, ok);
        b.position_at_end(bad);
        b.call_intrinsic("llvm.trap", &[], &[]);
        b.unreachable();
        b.position_at_end(ok);
    }

    /// Emits the region array and the scheme's `init` call.
    fn start(&self, fr: &Frame<'m>, init: bool, f: Function<'m>) -> (Driver<'m>, Value<'m>) {
        let b = &self.b;
        let ctx = b.ctx();
        let (ptr, i32t) = (Ty::ptr(ctx), Ty::int(ctx, 32));
        let mut parts: Vec<(Value<'m>, Value<'m>)> = (0..self.layout.regions)
            .map(|j| (fr.primal(2 * j), fr.primal(2 * j + 1)))
            .collect();
        parts.extend(self.globals.iter().map(|(g, n)| (*g, self.c(*n as i64))));
        let words = (REGION_BYTES / 8) * parts.len().max(1) as u64;
        let regions = b.array_alloca(self.i64t(), self.c(words as i64));
        let action = b.array_alloca(self.i64t(), self.c((ACTION_BYTES / 8) as i64));
        let mut total = self.c(0);
        for (k, (p, n)) in parts.iter().enumerate() {
            let at = REGION_BYTES * k as u64;
            b.store(*p, b.byte_gep(regions, at));
            b.store(*n, b.byte_gep(regions, at + 8));
            b.store(b.zero(i32t), b.byte_gep(regions, at + 16));
            b.store(b.zero(i32t), b.byte_gep(regions, at + 20));
            total = b.add(total, *n);
        }
        let nregions = self.c(parts.len() as i64);
        let state = if init {
            let n = self.param(fr, 3);
            let nsteps = if self.layout.while_loop {
                self.c(-1)
            } else {
                let neg = b.icmp(LLVMIntPredicate::LLVMIntSLT, n, self.c(0));
                b.select(neg, self.c(0), n)
            };
            let init = self.scheme_fn(fr, SchemeField::Init);
            self.require(f, init);
            let ty = Ty::function(ptr, &[ptr, self.i64t(), self.i64t()], false);
            b.call(ty, init, &[self.param(fr, 1), nsteps, total])
                .as_value()
        } else {
            b.zero(ptr)
        };
        let d = Driver {
            state,
            regions,
            nregions,
            action,
        };
        (d, total)
    }

    /// `store` or `restore` of slot `slot` (the step `step`).
    fn transfer(
        &self,
        f: Function<'m>,
        fr: &Frame<'m>,
        d: &Driver<'m>,
        field: SchemeField,
        slot: Value<'m>,
        step: Value<'m>,
    ) {
        let b = &self.b;
        let ptr = Ty::ptr(b.ctx());
        let i64t = self.i64t();
        let fun = self.scheme_fn(fr, field);
        self.require(f, fun);
        let ty = Ty::function(Ty::void(b.ctx()), &[ptr, i64t, i64t, ptr, i64t], false);
        b.call(ty, fun, &[d.state, slot, step, d.regions, d.nregions]);
    }

    /// Calls `next_action` and reads the action back.
    fn next_action(&self, f: Function<'m>, fr: &Frame<'m>, d: &Driver<'m>) -> Action<'m> {
        let b = &self.b;
        let ptr = Ty::ptr(b.ctx());
        let fun = self.scheme_fn(fr, SchemeField::NextAction);
        self.require(f, fun);
        let ty = Ty::function(Ty::void(b.ctx()), &[ptr, ptr], false);
        b.call(ty, fun, &[d.state, d.action]);
        let i64t = self.i64t();
        Action {
            flag: b.load(Ty::int(b.ctx(), 32), d.action),
            iteration: b.load(i64t, b.byte_gep(d.action, ACTION_ITERATION)),
            start: b.load(i64t, b.byte_gep(d.action, ACTION_START)),
            slot: b.load(i64t, b.byte_gep(d.action, ACTION_SLOT)),
        }
    }

    /// A block that traps (an action the sweep does not expect).
    fn trap_block(&self, f: Function<'m>) -> Block<'m> {
        let b = &self.b;
        let here = b.insert_block();
        let bad = f.append_block("bad_action");
        b.position_at_end(bad);
        b.call_intrinsic("llvm.trap", &[], &[]);
        b.unreachable();
        b.position_at_end(here);
        bad
    }

    /// Switches on `a.flag` to the given blocks, anything else trapping.
    fn dispatch(&self, f: Function<'m>, a: &Action<'m>, cases: &[(ActionFlag, Block<'m>)]) {
        let b = &self.b;
        let i32t = Ty::int(b.ctx(), 32);
        let bad = self.trap_block(f);
        let cases: Vec<_> = cases
            .iter()
            .map(|(flag, to)| (b.const_int(i32t, *flag as i64), *to))
            .collect();
        b.switch(a.flag, bad, &cases);
    }

    /// Calls the primal step with counter `start + j`.
    fn call_step(&self, fr: &Frame<'m>, j: Value<'m>) -> Value<'m> {
        let b = &self.b;
        let i = b.add(self.param(fr, 2), j);
        let mut args = vec![b.signed_int_cast(i, self.step.params()[0].ty())];
        args.extend(fr.primal_args(self.layout.first_arg(), self.step));
        b.call(self.step.function_type(), self.step, &args)
            .as_value()
    }

    /// Steps `from .. to - 1`, plainly, then a branch to `next`. With
    /// `ended`, a step returning zero calls `ended(j)` instead (the builder
    /// in a block of its own, which `ended` must end).
    fn run_steps(
        &self,
        f: Function<'m>,
        fr: &Frame<'m>,
        (from, to): (Value<'m>, Value<'m>),
        next: Block<'m>,
        ended: Option<&dyn Fn(Value<'m>)>,
    ) {
        let b = &self.b;
        let pre = b.insert_block();
        let cond = f.append_block("steps");
        let body = f.append_block("step");
        b.br(cond);
        b.position_at_end(cond);
        let j = b.phi(self.i64t(), "j");
        let more = b.icmp(LLVMIntPredicate::LLVMIntSLT, j.as_value(), to);
        b.cond_br(more, body, next);
        b.position_at_end(body);
        let r = self.call_step(fr, j.as_value());
        let j1 = b.add(j.as_value(), self.c(1));
        match ended {
            Some(ended) if !r.ty().is_void() => {
                let stop = f.append_block("loop_ended");
                let go = f.append_block("step_done");
                let zero = b.icmp(LLVMIntPredicate::LLVMIntEQ, r, b.zero(r.ty()));
                b.cond_br(zero, stop, go);
                b.position_at_end(stop);
                ended(j.as_value());
                b.position_at_end(go);
            }
            _ => {}
        }
        let latch = b.insert_block();
        b.br(cond);
        j.add_incoming(from, pre);
        j.add_incoming(j1, latch);
    }

    /// The forward sweep: the schedule up to its first turn.
    fn augmented(&self, f: Function<'m>, sig: &Signature<'m>) {
        let b = &self.b;
        let entry = f.append_block("entry");
        b.position_at_end(entry);
        let fr = Frame::new(f, sig);
        let (d, _) = self.start(&fr, true, f);
        let next = f.append_block("next_action");
        let store = f.append_block("store");
        let restore = f.append_block("restore");
        let forward = f.append_block("forward");
        let turn = f.append_block("first_turn");
        let done = f.append_block("no_steps");
        let out = f.append_block("forward_sweep_done");
        b.br(next);
        b.position_at_end(next);
        let a = self.next_action(f, &fr, &d);
        self.dispatch(
            f,
            &a,
            &[
                (ActionFlag::Store, store),
                (ActionFlag::Restore, restore),
                (ActionFlag::Forward, forward),
                (ActionFlag::FirstUturn, turn),
                (ActionFlag::Done, done),
            ],
        );
        b.position_at_end(store);
        self.transfer(f, &fr, &d, SchemeField::Store, a.slot, a.iteration);
        b.br(next);
        b.position_at_end(restore);
        self.transfer(f, &fr, &d, SchemeField::Restore, a.slot, a.iteration);
        b.br(next);
        b.position_at_end(forward);
        let set_nsteps = |j: Value<'m>| {
            let fun = self.scheme_fn(&fr, SchemeField::SetNsteps);
            self.require(f, fun);
            let ptr = Ty::ptr(b.ctx());
            let ty = Ty::function(Ty::void(b.ctx()), &[ptr, self.i64t()], false);
            b.call(ty, fun, &[d.state, b.add(j, self.c(1))]);
            b.br(next);
        };
        let ended: Option<&dyn Fn(Value<'m>)> = if self.layout.while_loop {
            Some(&set_nsteps)
        } else {
            None
        };
        self.run_steps(f, &fr, (a.start, a.iteration), next, ended);
        b.position_at_end(turn);
        let last = b.sub(a.iteration, self.c(1));
        self.transfer(f, &fr, &d, SchemeField::Store, self.c(SLOT_LAST_STEP), last);
        self.call_step(&fr, last);
        let turned = b.insert_block();
        b.br(out);
        b.position_at_end(done);
        b.br(out);
        b.position_at_end(out);
        let phi = b.phi(self.i64t(), "last_step");
        phi.add_incoming(last, turned);
        phi.add_incoming(self.c(-1), done);
        let tape = b.malloc(self.c(16)).as_value();
        b.store(d.state, tape);
        b.store(phi.as_value(), b.byte_gep(tape, 8));
        super::loop_fn::return_tape(b, sig, tape);
    }

    /// The reverse sweep: the rest of the schedule, from the first turn.
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
        let sums: Vec<(Field, Ty<'m>, Value<'m>)> = sig
            .fields()
            .iter()
            .map(|(fld, ty)| {
                let slot = b.alloca(*ty, "sum");
                b.store(b.zero(*ty), slot);
                (*fld, *ty, slot)
            })
            .collect();
        let (mut d, _) = self.start(&fr, false, f);
        d.state = b.load(Ty::ptr(b.ctx()), tape);
        let last = b.load(self.i64t(), b.byte_gep(tape, 8));
        let first_turn = f.append_block("first_turn");
        let turn = f.append_block("turn");
        let next = f.append_block("next_action");
        let store = f.append_block("store");
        let restore = f.append_block("restore");
        let forward = f.append_block("forward");
        let done = f.append_block("schedule_done");
        let finish = f.append_block("finish");
        let none = b.icmp(LLVMIntPredicate::LLVMIntSLT, last, self.c(0));
        b.cond_br(none, finish, first_turn);
        b.position_at_end(first_turn);
        let steps = b.add(last, self.c(1));
        let start_slot = self.c(SLOT_REVERSE_START);
        self.transfer(f, &fr, &d, SchemeField::Store, start_slot, steps);
        let last_slot = self.c(SLOT_LAST_STEP);
        self.transfer(f, &fr, &d, SchemeField::Restore, last_slot, last);
        let restored = b.insert_block();
        b.br(turn);
        b.position_at_end(next);
        let a = self.next_action(f, &fr, &d);
        let switched = b.insert_block();
        self.dispatch(
            f,
            &a,
            &[
                (ActionFlag::Store, store),
                (ActionFlag::Restore, restore),
                (ActionFlag::Forward, forward),
                (ActionFlag::Uturn, turn),
                (ActionFlag::Done, done),
            ],
        );
        b.position_at_end(store);
        self.transfer(f, &fr, &d, SchemeField::Store, a.slot, a.iteration);
        b.br(next);
        b.position_at_end(restore);
        self.transfer(f, &fr, &d, SchemeField::Restore, a.slot, a.iteration);
        b.br(next);
        b.position_at_end(forward);
        self.run_steps(f, &fr, (a.start, a.iteration), next, None);
        b.position_at_end(turn);
        let at = b.phi(self.i64t(), "turn_at");
        at.add_incoming(steps, restored);
        at.add_incoming(a.iteration, switched);
        self.gradient_step(&fr, skey, fns, b.sub(at.as_value(), self.c(1)), &sums);
        b.br(next);
        b.position_at_end(done);
        self.transfer(f, &fr, &d, SchemeField::Restore, start_slot, steps);
        b.br(finish);
        b.position_at_end(finish);
        let fin = self.scheme_fn(&fr, SchemeField::Finalize);
        self.require(f, fin);
        let ptr = Ty::ptr(b.ctx());
        b.call(
            Ty::function(Ty::void(b.ctx()), &[ptr], false),
            fin,
            &[d.state],
        );
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

    /// Step `j`'s augmented primal then its reverse, the adjoints of its
    /// scalar arguments added to `sums`.
    fn gradient_step(
        &self,
        fr: &Frame<'m>,
        skey: &Request<'m>,
        fns: Derivative<'m>,
        j: Value<'m>,
        sums: &[(Field, Ty<'m>, Value<'m>)],
    ) {
        let b = &self.b;
        let first = self.layout.first_arg();
        let i = b.add(self.param(fr, 2), j);
        let asig = skey.signature(Kind::Augmented);
        let rsig = skey.signature(Kind::Reverse);
        let aug = b.call(
            fns.forward.function_type(),
            fns.forward,
            &fr.step_args(b, &asig, first, i, None),
        );
        let stape = asig
            .field_index(Field::Tape)
            .map(|k| b.extract_value(aug.as_value(), k));
        let res = b.call(
            fns.reverse.function_type(),
            fns.reverse,
            &fr.step_args(b, &rsig, first, i, stape),
        );
        for (fld, ty, slot) in sums {
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
    }
}
