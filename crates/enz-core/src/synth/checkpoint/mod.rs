//! Checkpointed loops: a loop whose caches could outgrow the cache budget
//! (`--cache-budget`) runs plainly in the forward sweep, saving its state
//! every k iterations, and each segment of k iterations runs again,
//! recording, just before its reverse; memory then holds one segment's
//! caches and the saved states instead of every iteration's caches.
//!
//! The loop was outlined (`outline.rs`) into `body` (one iteration),
//! `driver` (the loop calling it) and `ranges` (the bytes it may write).
//! The derivative of `driver`, built here, is the augmented primal and
//! reverse pair any call of it gets in reverse mode:
//!
//! ```text
//!   augmented_driver(args, shadows) -> {tape}
//!     iteration 0 through the body's augmented primal, measuring the
//!     bytes its caches take (`runtime::cache_bytes`); k = max(1,
//!     min(budget / 2, 128 MiB) / those bytes); the rest of the first segment (k
//!     iterations) recorded too, keeping their tapes; then the body,
//!     plainly, saving the state (the ranges' bytes) before every
//!     iteration that starts a segment
//!   reverse_driver(args, shadows, tape) -> {adjoints}
//!     for each segment, last first: restore its state and run its
//!     iterations again through the body's augmented primal (keeping
//!     their tapes), except the first, recorded already; then its
//!     reverse, last iteration first
//! ```
//!
//! A loop whose caches fit in one segment is thus recorded once, as
//! without checkpointing (one segment; the decision is made at run time,
//! from the actual trip count and bytes); past that, each later iteration
//! runs three times in all (plain, recording, and its reverse) against
//! two: a recomputation factor of 2 for the forward code. The recorded
//! first segment and one segment run again hold at most the budget.

use super::registry::Registry;
use super::reverse::new_function;
use super::runtime;
use crate::diag::Diagnostic;
use crate::explain::{Allocation, Explanation, LoopPlan, Strategy};
use crate::ir::{Builder, Function, LLVMIntPredicate, Ty, Value};
use crate::names::REALLOC;
use crate::options::CacheBudget;
use crate::signature::{Field, Kind, Mode, Param, Request, Signature};
use crate::transform::checkpoint::Outlined;

/// The fields of the tape `augmented_driver` returns.
const TAPE_ITERATIONS: u64 = 0;
const TAPE_SEGMENT: u64 = 8;
const TAPE_SAVED: u64 = 16;
const TAPE_BYTES: u64 = 24;
const TAPE_FIRST: u64 = 32;

/// The longest segment, in iterations.
const MAX_SEGMENT: i64 = 1 << 20;

/// The most the caches of one segment take, whatever the budget: past a
/// few hundred MB a longer segment saves little recomputation and costs
/// memory traffic and page faults (`scripts/bench-checkpoint.sh`, 10^5
/// steps of a 10^4-cell heat equation: 38.2 s and 7.6 GB peak with
/// segments of up to 6 GB, the machine's budget; 11.6 s and 272 MB with
/// 128 MB).
const MAX_SEGMENT_BYTES: i64 = 128 << 20;

/// Builds the augmented primal and reverse functions `fns` of the driver
/// of `outlined` for split request `key`, under cache budget `budget`.
pub(crate) fn synthesize<'m>(
    key: &Request<'m>,
    fns: super::reverse::Derivative<'m>,
    outlined: &Outlined<'m>,
    budget: CacheBudget,
    registry: &mut Registry<'m>,
) -> Result<(), Vec<Diagnostic>> {
    let body_key = Request {
        function: outlined.body,
        args: key.args.clone(),
        ret_active: false,
        ret_shadowed: false,
        mode: Mode::Split,
    };
    let body = registry.split(&body_key).map_err(|d| vec![d])?;
    let parts = Parts {
        outlined,
        aug_sig: body_key.signature(Kind::Augmented),
        rev_sig: body_key.signature(Kind::Reverse),
        aug_body: body.forward,
        rev_body: body.reverse,
        budget,
    };
    parts.augmented(fns.forward, &key.signature(Kind::Augmented));
    parts.reverse(fns.reverse, &key.signature(Kind::Reverse));
    registry.out.explanations.push(Explanation {
        function: outlined.function.clone(),
        made: format!(
            "augmented primal `{}` and reverse `{}` of a checkpointed loop",
            fns.forward.name(),
            fns.reverse.name()
        ),
        loops: vec![LoopPlan {
            id: 0,
            parent: None,
            location: outlined.location.clone(),
            strategy: Strategy::Checkpoint {
                budget: match budget {
                    CacheBudget::Bytes(n) => Some(n),
                    CacheBudget::Machine | CacheBudget::Off => None,
                },
                ranges: outlined.count,
                plain_bound: outlined.plain.as_ref().and_then(|(_, terms)| terms.clone()),
            },
            cached: Vec::new(),
            recomputed: 0,
            reread: 0,
            allocation: Allocation::None,
            exit_recomputed: false,
        }],
        slots: Vec::new(),
        notes: Vec::new(),
    });
    Ok(())
}

/// Declares the derivative functions of a driver (named after it).
pub(crate) fn declare<'m>(key: &Request<'m>) -> super::reverse::Derivative<'m> {
    let d = key.function;
    let name = d.name();
    let forward = new_function(
        d,
        &format!("augmented_{name}"),
        key.signature(Kind::Augmented).function_type(),
    );
    let reverse = new_function(
        d,
        &format!("reverse_{name}"),
        key.signature(Kind::Reverse).function_type(),
    );
    super::reverse::Derivative { forward, reverse }
}

struct Parts<'m, 'a> {
    outlined: &'a Outlined<'m>,
    aug_sig: Signature<'m>,
    rev_sig: Signature<'m>,
    aug_body: Function<'m>,
    rev_body: Function<'m>,
    budget: CacheBudget,
}

/// The ranges the loop may write, computed by `ranges`: their starts and
/// lengths, and their total.
struct Ranges<'m> {
    starts: Vec<Value<'m>>,
    lengths: Vec<Value<'m>>,
    total: Value<'m>,
}

impl<'m, 'a> Parts<'m, 'a> {
    /// The primal arguments (the driver's and the body's parameters).
    fn primal_args(sig: &Signature<'m>, f: Function<'m>) -> Vec<Value<'m>> {
        sig.params()
            .iter()
            .zip(f.params())
            .filter(|((p, _), _)| matches!(p, Param::Primal(_)))
            .map(|(_, v)| v)
            .collect()
    }

    /// Primal arguments and shadows (without the tape), in signature order.
    fn args_and_shadows(sig: &Signature<'m>, f: Function<'m>) -> Vec<Value<'m>> {
        sig.params()
            .iter()
            .zip(f.params())
            .filter(|((p, _), _)| matches!(p, Param::Primal(_) | Param::Shadow { .. }))
            .map(|(_, v)| v)
            .collect()
    }

    fn ranges(&self, b: &Builder<'m>, primal: &[Value<'m>]) -> Ranges<'m> {
        let ctx = b.ctx();
        let ptr = Ty::ptr(ctx);
        let i64t = Ty::int(ctx, 64);
        let n = self.outlined.count;
        let out = b.alloca(ptr.array(u64::from(2 * n)), "ranges");
        let mut args = primal.to_vec();
        args.push(out);
        let f = self.outlined.ranges;
        b.call(f.function_type(), f, &args);
        let mut starts = Vec::new();
        let mut lengths = Vec::new();
        let mut total = b.const_int(i64t, 0);
        for r in 0..n {
            let at = |k: u32| b.gep(ptr, out, &[b.const_int(i64t, i64::from(k))]);
            let lo = b.load(ptr, at(2 * r));
            let hi = b.load(ptr, at(2 * r + 1));
            let len = b.sub(b.ptr_to_int(hi, i64t), b.ptr_to_int(lo, i64t));
            total = b.add(total, len);
            starts.push(lo);
            lengths.push(len);
        }
        Ranges {
            starts,
            lengths,
            total,
        }
    }

    /// Copies the ranges' bytes to (`save`) or from the saved state at
    /// `at`.
    fn copy(b: &Builder<'m>, r: &Ranges<'m>, at: Value<'m>, save: bool) {
        let i8t = Ty::int(b.ctx(), 8);
        let mut off = b.const_int(Ty::int(b.ctx(), 64), 0);
        for (lo, len) in r.starts.iter().zip(&r.lengths) {
            let there = b.gep(i8t, at, &[off]);
            if save {
                b.memcpy(there, *lo, *len);
            } else {
                b.memcpy(*lo, there, *len);
            }
            off = b.add(off, *len);
        }
    }

    /// Sets the pointer fields of the state's shadow from the state: the
    /// shadow of the input each pointer equals (null if none, or if that
    /// input has no shadow). The body keeps them in step when it records;
    /// the plain run and a restored state need them set.
    /// `state`, when given, stands for the state parameter (the reverse
    /// driver's private copy).
    fn sync_shadow_pointers(
        &self,
        b: &Builder<'m>,
        sig: &Signature<'m>,
        f: Function<'m>,
        state: Option<Value<'m>>,
    ) {
        use LLVMIntPredicate::*;
        let ps = f.params();
        let param = |want: Param| {
            sig.params()
                .iter()
                .zip(&ps)
                .find(|((p, _), _)| *p == want)
                .map(|(_, v)| *v)
        };
        let primal_count = sig
            .params()
            .iter()
            .filter(|(p, _)| matches!(p, Param::Primal(_)))
            .count();
        let state_index = primal_count - 1;
        let (Some(state), Some(d_state)) = (
            state.or_else(|| param(Param::Primal(state_index))),
            param(Param::Shadow {
                of: state_index,
                lane: 0,
            }),
        ) else {
            return;
        };
        let ctx = f.context();
        let (ptr, i32t) = (Ty::ptr(ctx), Ty::int(ctx, 32));
        let ty = self.outlined.state_ty;
        for k in &self.outlined.pointer_fields {
            let at = |base: Value<'m>| {
                b.gep(
                    ty,
                    base,
                    &[b.const_int(i32t, 0), b.const_int(i32t, i64::from(*k))],
                )
            };
            let p = b.load(ptr, at(state));
            let mut s = b.zero(ptr);
            for r in &self.outlined.pointer_inputs {
                let (Some(root), shadow) = (
                    param(Param::Primal(*r)),
                    param(Param::Shadow { of: *r, lane: 0 }),
                ) else {
                    continue;
                };
                let shadow = shadow.unwrap_or_else(|| b.zero(ptr));
                s = b.select(b.icmp(LLVMIntEQ, p, root), shadow, s);
            }
            b.store(s, at(d_state));
        }
    }

    /// One recorded iteration: the body's augmented primal on `all`, its
    /// tape kept at `tapes[at]`; whether the loop goes on.
    fn record(
        &self,
        b: &Builder<'m>,
        all: &[Value<'m>],
        tapes: Value<'m>,
        at: Value<'m>,
    ) -> Value<'m> {
        let r = b.call(self.aug_body.function_type(), self.aug_body, all);
        let tape = Self::field(b, &self.aug_sig, r.as_value(), Field::Tape);
        b.store(tape, b.gep(Ty::ptr(b.ctx()), tapes, &[at]));
        Self::field(b, &self.aug_sig, r.as_value(), Field::Return)
    }

    /// The field `field` of the struct `agg` a call returned (per `sig`).
    fn field(b: &Builder<'m>, sig: &Signature<'m>, agg: Value<'m>, field: Field) -> Value<'m> {
        let k = sig
            .fields()
            .iter()
            .position(|(f, _)| *f == field)
            .expect("the signature has the field");
        b.extract_value(agg, k as u32)
    }

    fn augmented(&self, f: Function<'m>, sig: &Signature<'m>) {
        use LLVMIntPredicate::*;
        let ctx = f.context();
        let (i64t, ptr) = (Ty::int(ctx, 64), Ty::ptr(ctx));
        let b = Builder::new(ctx);
        let entry = f.append_block("entry");
        let record = f.append_block("record");
        let iterate = f.append_block("iterate");
        let save = f.append_block("save");
        let run = f.append_block("run");
        let done = f.append_block("done");
        b.position_at_end(entry);
        let primal = Self::primal_args(sig, f);
        let all = Self::args_and_shadows(sig, f);
        let c = |v: i64| b.const_int(i64t, v);
        let ranges = self.ranges(&b, &primal);
        // Iteration 0 recorded, measuring what an iteration caches.
        let counter = runtime::cache_bytes(&b);
        let before = b.load(i64t, counter);
        let first = b.call(self.aug_body.function_type(), self.aug_body, &all);
        let after = b.load(i64t, counter);
        let tape0 = Self::field(&b, &self.aug_sig, first.as_value(), Field::Tape);
        let go_on0 = Self::field(&b, &self.aug_sig, first.as_value(), Field::Return);
        // Tape and bookkeeping of an iteration: at least 64 bytes.
        let per = b.add(b.sub(after, before), c(64));
        let half = match self.budget {
            CacheBudget::Bytes(n) => c((n / 2).min(i64::MAX as u64) as i64),
            // (Off never gets here: nothing is outlined without a budget.)
            CacheBudget::Machine | CacheBudget::Off => {
                b.udiv(crate::transform::choose::machine_cache_budget(&b), c(2))
            }
        };
        let cap = c(MAX_SEGMENT_BYTES);
        let half = b.select(b.icmp(LLVMIntUGT, half, cap), cap, half);
        let k = b.udiv(half, per);
        let k = b.select(b.icmp(LLVMIntEQ, k, c(0)), c(1), k);
        // At most 2^20 iterations a segment (8 MiB of tape pointers).
        let k = b.select(b.icmp(LLVMIntUGT, k, c(MAX_SEGMENT)), c(MAX_SEGMENT), k);
        let tapes = b.malloc(b.mul(k, c(8))).as_value();
        b.store(tape0, tapes);
        let more0 = b.icmp(LLVMIntULT, c(1), k);
        // Go on recording while the first segment lasts, then plainly.
        let to_record = b.select(go_on0, more0, b.const_int(Ty::int(ctx, 1), 0));
        let rec_or_plain = f.append_block("after_first");
        b.cond_br(to_record, record, rec_or_plain);
        b.position_at_end(rec_or_plain);
        b.cond_br(go_on0, iterate, done);

        // Recording, iterations 1..k of the first segment.
        b.position_at_end(record);
        let tr = b.phi(i64t, "t");
        let go_on_r = self.record(&b, &all, tapes, tr.as_value());
        let tr1 = b.add(tr.as_value(), c(1));
        let in_first = b.icmp(LLVMIntULT, tr1, k);
        let again = b.select(go_on_r, in_first, b.const_int(Ty::int(ctx, 1), 0));
        let leave_rec = f.append_block("after_record");
        b.cond_br(again, record, leave_rec);
        tr.add_incoming(c(1), entry);
        tr.add_incoming(tr1, record);
        b.position_at_end(leave_rec);
        b.cond_br(go_on_r, iterate, done);

        // Plainly, saving the state before every iteration that starts a
        // segment (at index s of the saved states; the first segment was
        // recorded and is not saved).
        b.position_at_end(iterate);
        let t = b.phi(i64t, "t");
        let room = b.phi(i64t, "room");
        let saved = b.phi(ptr, "saved");
        let q = b.udiv(t.as_value(), k);
        let boundary = b.icmp(LLVMIntEQ, b.mul(q, k), t.as_value());
        b.cond_br(boundary, save, run);

        b.position_at_end(save);
        let need = b.add(q, c(1));
        let full = b.icmp(LLVMIntUGT, need, room.as_value());
        let twice = b.mul(b.add(room.as_value(), c(2)), c(2));
        let room2 = b.select(full, twice, room.as_value());
        let rty = Ty::function(ptr, &[ptr, i64t], false);
        let grown = b.call_named(
            REALLOC,
            rty,
            &[saved.as_value(), b.mul(room2, ranges.total)],
        );
        let at = b.gep(Ty::int(ctx, 8), grown.as_value(), &[b.mul(q, ranges.total)]);
        Self::copy(&b, &ranges, at, true);
        b.br(run);

        b.position_at_end(run);
        let room3 = b.phi(i64t, "room");
        room3.add_incoming(room.as_value(), iterate);
        room3.add_incoming(room2, save);
        let saved3 = b.phi(ptr, "saved");
        saved3.add_incoming(saved.as_value(), iterate);
        saved3.add_incoming(grown.as_value(), save);
        let go_on = b.call(
            self.outlined.body.function_type(),
            self.outlined.body,
            &primal,
        );
        let next = b.add(t.as_value(), c(1));
        b.cond_br(go_on.as_value(), iterate, done);
        t.add_incoming(c(1), rec_or_plain);
        t.add_incoming(tr1, leave_rec);
        t.add_incoming(next, run);
        room.add_incoming(c(0), rec_or_plain);
        room.add_incoming(c(0), leave_rec);
        room.add_incoming(room3.as_value(), run);
        saved.add_incoming(b.zero(ptr), rec_or_plain);
        saved.add_incoming(b.zero(ptr), leave_rec);
        saved.add_incoming(saved3.as_value(), run);

        b.position_at_end(done);
        let n = b.phi(i64t, "iterations");
        n.add_incoming(c(1), rec_or_plain);
        n.add_incoming(tr1, leave_rec);
        n.add_incoming(next, run);
        let saved_end = b.phi(ptr, "saved");
        saved_end.add_incoming(b.zero(ptr), rec_or_plain);
        saved_end.add_incoming(b.zero(ptr), leave_rec);
        saved_end.add_incoming(saved3.as_value(), run);
        self.sync_shadow_pointers(&b, sig, f, None);
        let tape = b.malloc(c(40)).as_value();
        b.store(n.as_value(), b.byte_gep(tape, TAPE_ITERATIONS));
        b.store(k, b.byte_gep(tape, TAPE_SEGMENT));
        b.store(saved_end.as_value(), b.byte_gep(tape, TAPE_SAVED));
        b.store(ranges.total, b.byte_gep(tape, TAPE_BYTES));
        b.store(tapes, b.byte_gep(tape, TAPE_FIRST));
        let ret_ty = sig.return_type();
        let r = b.insert_value(b.poison(ret_ty), tape, 0);
        b.ret(Some(r));
    }

    fn reverse(&self, f: Function<'m>, sig: &Signature<'m>) {
        use LLVMIntPredicate::*;
        let ctx = f.context();
        let (i64t, ptr) = (Ty::int(ctx, 64), Ty::ptr(ctx));
        let b = Builder::new(ctx);
        let entry = f.append_block("entry");
        let segment = f.append_block("segment");
        let again = f.append_block("again");
        let record = f.append_block("record");
        let back = f.append_block("reverse");
        let next = f.append_block("next");
        let done = f.append_block("done");
        b.position_at_end(entry);
        let c = |v: i64| b.const_int(i64t, v);
        // The state struct of the caller may be gone (freed by a combined
        // gradient's forward sweep): segments run again in a private one.
        let mut primal = Self::primal_args(sig, f);
        let state_param = primal.pop().expect("the state parameter");
        let state_size = self.outlined.state_ty.alloc_size(f.global_parent()).max(1);
        let state = b.malloc(c(state_size as i64)).as_value();
        primal.push(state);
        let private = |v: Value<'m>| if v == state_param { state } else { v };
        let all: Vec<Value<'m>> = Self::args_and_shadows(sig, f)
            .into_iter()
            .map(private)
            .collect();
        let tape = *f.params().last().expect("the tape parameter");
        let iterations = b.load(i64t, b.byte_gep(tape, TAPE_ITERATIONS));
        let k = b.load(i64t, b.byte_gep(tape, TAPE_SEGMENT));
        let saved = b.load(ptr, b.byte_gep(tape, TAPE_SAVED));
        let first = b.load(ptr, b.byte_gep(tape, TAPE_FIRST));
        let ranges = self.ranges(&b, &primal);
        let segments = b.udiv(b.add(iterations, b.sub(k, c(1))), k);
        // Segments after the first run again into these tapes.
        let tapes = b.malloc(b.mul(k, c(8))).as_value();
        // The adjoints of the `out` arguments, summed over iterations.
        let sums: Vec<(Field, Value<'m>)> = sig
            .fields()
            .iter()
            .map(|(fld, ty)| {
                let slot = b.alloca(*ty, "sum");
                b.store(b.zero(*ty), slot);
                (*fld, slot)
            })
            .collect();
        let last = b.sub(segments, c(1));
        // Segments run again overwrite the loop's memory: what it holds now
        // (the primal's final values) is put back at the end.
        let multi = b.icmp(LLVMIntUGT, segments, c(1));
        let kept = b.malloc(b.select(multi, ranges.total, c(1))).as_value();
        let keep = f.append_block("keep");
        let start = f.append_block("start");
        b.cond_br(multi, keep, start);
        b.position_at_end(keep);
        Self::copy(&b, &ranges, kept, true);
        b.br(start);
        b.position_at_end(start);
        b.br(segment);

        // Segment s: the first was recorded by the forward sweep; a later
        // one starts from its saved state and runs again.
        b.position_at_end(segment);
        let s = b.phi(i64t, "segment");
        s.add_incoming(last, start);
        let t0 = b.mul(s.as_value(), k);
        let left = b.sub(iterations, t0);
        let len = b.select(b.icmp(LLVMIntULT, left, k), left, k);
        let is_first = b.icmp(LLVMIntEQ, s.as_value(), c(0));
        let these = b.select(is_first, first, tapes);
        b.cond_br(is_first, back, again);

        b.position_at_end(again);
        let at = b.gep(Ty::int(ctx, 8), saved, &[b.mul(s.as_value(), ranges.total)]);
        Self::copy(&b, &ranges, at, false);
        self.sync_shadow_pointers(&b, sig, f, Some(state));
        b.br(record);

        b.position_at_end(record);
        let j = b.phi(i64t, "j");
        j.add_incoming(c(0), again);
        self.record(&b, &all, tapes, j.as_value());
        let j1 = b.add(j.as_value(), c(1));
        j.add_incoming(j1, record);
        b.cond_br(b.icmp(LLVMIntULT, j1, len), record, back);

        b.position_at_end(back);
        let jr = b.phi(i64t, "j");
        jr.add_incoming(len, segment);
        jr.add_incoming(len, record);
        let jm = b.sub(jr.as_value(), c(1));
        let mut rargs = all.clone();
        rargs.push(b.load(ptr, b.gep(ptr, these, &[jm])));
        let a = b.call(self.rev_body.function_type(), self.rev_body, &rargs);
        for (fld, slot) in &sums {
            let ty = sig
                .fields()
                .iter()
                .find(|(g, _)| g == fld)
                .map(|(_, t)| *t)
                .expect("a field");
            let v = Self::field(&b, &self.rev_sig, a.as_value(), *fld);
            let sum = b.fadd(b.load(ty, *slot), v);
            b.store(sum, *slot);
        }
        jr.add_incoming(jm, back);
        b.cond_br(b.icmp(LLVMIntEQ, jm, c(0)), next, back);

        b.position_at_end(next);
        s.add_incoming(b.sub(s.as_value(), c(1)), next);
        b.cond_br(is_first, done, segment);

        b.position_at_end(done);
        let put_back = f.append_block("put_back");
        let finish = f.append_block("finish");
        b.cond_br(multi, put_back, finish);
        b.position_at_end(put_back);
        Self::copy(&b, &ranges, kept, false);
        b.br(finish);
        b.position_at_end(finish);
        b.free(kept);
        b.free(state);
        b.free(tapes);
        b.free(first);
        b.free(saved);
        b.free(tape);
        if sums.is_empty() {
            b.ret(None);
        } else {
            let ret_ty = sig.return_type();
            let mut r = b.poison(ret_ty);
            for (k, (fld, slot)) in sums.iter().enumerate() {
                let ty = sig.fields()[k].1;
                debug_assert!(sig.fields()[k].0 == *fld);
                r = b.insert_value(r, b.load(ty, *slot), k as u32);
            }
            b.ret(Some(r));
        }
    }
}
