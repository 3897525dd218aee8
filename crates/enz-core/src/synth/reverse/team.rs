//! Reverse mode of an OpenMP parallel region (`__kmpc_fork_call`): the
//! forward sweep forks the microtask's augmented primal and keeps the
//! table of the threads' tapes; the reverse sweep forks its reverse
//! function over that table (`synth/openmp.rs`).

use super::calls::{AugmentedCall, ReverseTarget};
use super::Reverse;
use crate::ir::{Builder, Function, Inst, Ty, TyKind, Value};
use crate::names::OmpSync;
use crate::signature::{Field, Kind, Mode, Param, Request};
use crate::synth::openmp;
use crate::synth::registry::Registry;

/// An OpenMP microtask's tables of partial adjoint sums, one per combined
/// object (`analysis/team.rs`), by the primal pointer indexed.
#[derive(Default)]
pub(super) struct TeamState<'m> {
    combines: Vec<Combined<'m>>,
}

/// One combined object's table in the reverse function's frame.
#[derive(Copy, Clone)]
struct Combined<'m> {
    /// The primal pointer the accesses index.
    base: Value<'m>,
    /// The element type.
    ty: Ty<'m>,
    /// `[SLOTS x ty]` partial sums and `[SLOTS x i64]` tags (zeroed).
    values: Value<'m>,
    tags: Value<'m>,
    /// A stack slot holding the base's shadow, for the final flush.
    shadow: Value<'m>,
}

/// The fork's operand holding microtask parameter `k` (`k >= 2`: the
/// fork passes `loc, argc, microtask` before them, the runtime `&gtid,
/// &btid` to the microtask).
fn fork_operand(k: usize) -> u32 {
    k as u32 + 1
}

impl<'m, 'a> Reverse<'m, 'a> {
    /// Forward sweep of fork `i` (copied as `gi`) of `microtask`: fork its
    /// augmented primal instead, when any argument is shadowed.
    pub(super) fn augment_team_call(
        &mut self,
        i: Inst<'m>,
        gi: Inst<'m>,
        microtask: Function<'m>,
        registry: &mut Registry<'m>,
    ) {
        if self.req.width > 1 {
            return self.unsupported(
                i,
                "a parallel region in vector reverse mode (enzyme_width): differentiate it with width 1",
            );
        }
        let args = match openmp::team_activities(i, &self.facts.act) {
            Ok(Some(acts)) => acts,
            Ok(None) => return,
            Err(why) => return self.unsupported(i, why),
        };
        if let Some(d) = crate::synth::check_integer_arguments(i, &self.facts.act, self.req.name) {
            return self.diags.push(d);
        }
        let key = Request {
            function: microtask,
            args,
            ret_active: false,
            ret_shadowed: false,
            mode: Mode::Split,
        };
        let fns = match registry.split(&key) {
            Ok(f) => f,
            Err(d) => return self.diags.push(d),
        };
        for (f, wrapped) in [(fns.forward, true), (fns.reverse, false)] {
            if let Err(why) = openmp::check_microtask_derivative(f, wrapped) {
                return self.unsupported(
                    i,
                    &format!("cannot fork this parallel region's derivative: {why}"),
                );
            }
        }
        let sig = key.signature(Kind::Augmented);
        let call_args = sig.arguments(|p, t| match p {
            Param::Primal(0 | 1) => Ok(t.null_constant()),
            Param::Primal(k) => Ok(self.map.get(i.operand(fork_operand(k)))),
            Param::Shadow { of, .. } => self.shadows.forward(i.operand(fork_operand(of))).ok_or(of),
            Param::ReturnAdjoint | Param::Tape => {
                unreachable!("not parameters of an augmented function")
            }
        });
        let call_args = match call_args {
            Ok(a) => a,
            Err(k) => {
                return self.unsupported(
                    i,
                    &format!(
                    "argument {} of this parallel region needs a shadow that enz-rs cannot build",
                    fork_operand(k)
                ),
                )
            }
        };
        let fb = Builder::new(i.context());
        fb.position_after(gi);
        let tape_field = sig.field_index(Field::Tape).unwrap_or(0);
        let loc = self.map.get(i.operand(0));
        let table = openmp::fork_augmented(&fb, gi, loc, fns.forward, tape_field, &call_args[2..]);
        gi.erase();
        self.calls.augmented.insert(
            i.as_value(),
            AugmentedCall {
                tape: Some(table),
                reverse_sig: key.signature(Kind::Reverse),
                reverse: ReverseTarget::Team(fns.reverse),
            },
        );
    }

    /// Reverse sweep of fork `i`: fork the reverse function over the table
    /// of tapes `table`.
    pub(super) fn reverse_team_call(
        &mut self,
        i: Inst<'m>,
        aug: &AugmentedCall<'m>,
        rev: Function<'m>,
        table: Value<'m>,
    ) {
        let args = aug.reverse_sig.arguments(|p, t| match p {
            Param::Primal(0 | 1) | Param::Tape => Ok(t.null_constant()),
            Param::Primal(k) => Ok(self.primal(i.operand(fork_operand(k)))),
            Param::Shadow { of, .. } => self.shadow_rev(i.operand(fork_operand(of))).ok_or(of),
            Param::ReturnAdjoint => unreachable!("a microtask returns nothing"),
        });
        let args = match args {
            Ok(a) => a,
            Err(k) => {
                return self.unsupported(
                    i,
                    &format!(
                        "argument {} of this parallel region has no shadow in the reverse sweep",
                        fork_operand(k)
                    ),
                )
            }
        };
        let loc = self.primal(i.operand(0));
        let n = args.len();
        openmp::fork_reverse(&self.b, i, loc, rev, &args[2..n - 1], table);
    }

    /// An OpenMP synchronisation call: its mirror image, with the same
    /// arguments (what came after a barrier is reversed before it; a
    /// critical section's reverse runs under the same lock).
    pub(super) fn reverse_omp_sync(&mut self, i: Inst<'m>, s: OmpSync) {
        if s == OmpSync::Critical {
            if let Err(store) = crate::analysis::team::critical_section_adds_only(i) {
                return self.unsupported(
                    store,
                    "a critical section that does more than add to shared memory (here a store of something other than *p + v): the threads' reverse sweeps would have to take its lock in the opposite order, which enz-rs does not do; make the update an addition, or use a reduction clause (reduction(*:p), max, min are supported)",
                );
            }
        }
        let n = s.mirror_arity().min(i.call_num_args());
        let args: Vec<Value> = (0..n).map(|k| self.primal(i.operand(k))).collect();
        let types: Vec<crate::ir::Ty> = args.iter().map(|a| a.ty()).collect();
        let fty = crate::ir::Ty::function(crate::ir::Ty::void(i.context()), &types, false);
        self.b.call_named(s.mirror(), fty, &args);
    }

    /// Adds `d` to the shadow `s` of `p = base[i]` through the thread's
    /// table of partial sums for `base` (made at the top of the reverse
    /// function on first use, flushed at its end); atomically when `p` is
    /// not such an element.
    pub(super) fn combine_into_shadow(&mut self, p: Value<'m>, s: Value<'m>, d: Value<'m>) {
        let element = crate::analysis::team::element_of(p);
        let base = element.map_or(p, |e| e.root);
        let index = element.map(|e| (e.index, e.offset));
        let dbase = self.shadow_rev(base);
        let lanes = match d.ty().kind() {
            TyKind::Vector => d.ty().len() as u32,
            _ => 1,
        };
        let elem = if lanes > 1 { d.ty().element() } else { d.ty() };
        let (Some((i, offset)), Some(dbase), true) = (index, dbase, elem.is_fp_scalar()) else {
            return crate::synth::gpu::atomic_add(&self.b, s, d);
        };
        let table = match self
            .team
            .combines
            .iter()
            .find(|c| c.base == base && c.ty == elem)
        {
            Some(c) => *c,
            None => {
                let ctx = self.b.ctx();
                let (i64t, slots) = (Ty::int(ctx, 64), openmp::COMBINE_SLOTS);
                let top = &self.sweep.top;
                let values = top.alloca(elem.array(slots), "combine_values");
                let tags = top.alloca(i64t.array(slots), "combine_tags");
                top.memset_zero(tags, top.const_int(i64t, (slots * 8) as i64));
                let shadow = top.alloca(Ty::ptr(ctx), "combine_shadow");
                let c = Combined {
                    base,
                    ty: elem,
                    values,
                    tags,
                    shadow,
                };
                self.team.combines.push(c);
                c
            }
        };
        self.b.store(dbase, table.shadow);
        let i64t = Ty::int(self.b.ctx(), 64);
        let i = self.primal(i);
        let i = self.b.signed_int_cast(i, i64t);
        let i = self.b.add(i, self.b.const_int(i64t, offset));
        for lane in 0..lanes {
            let (at, v) = if lanes > 1 {
                let at = self.b.add(i, self.b.const_int(i64t, i64::from(lane)));
                (at, self.b.extract_member(d, lane))
            } else {
                (i, d)
            };
            openmp::combine_add(&self.b, table.values, table.tags, at, dbase, v);
        }
    }

    /// At the end of the reverse function: every table of partial sums
    /// added to its shadow.
    pub(super) fn flush_combined(&mut self) {
        for c in std::mem::take(&mut self.team.combines) {
            let dbase = self.b.load(Ty::ptr(self.b.ctx()), c.shadow);
            openmp::combine_flush(&self.b, c.ty, c.values, c.tags, dbase);
        }
    }
}
