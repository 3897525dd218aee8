//! Calls in reverse mode.
//!
//! Calls are taken by their `CallKind` (`analysis/calls.rs`, classified
//! once per derivative): math functions use their rule; memory functions
//! are in `memory`; MPI calls in `mpi`; barriers are mirrored; known-inactive and user-inactive
//! calls are skipped. A call to another function of the module that carries
//! derivatives (what preprocessing did not inline: recursion, everything
//! under `--no-inline`) or to a function with a registered custom gradient
//! is differentiated interprocedurally: the forward sweep calls its
//! augmented primal, which returns `{tape, ret, shadow ret}`, and the
//! reverse sweep calls its reverse function with that tape. A call through
//! a function pointer with active data does the same through the
//! pointer's shadow, a table of the callee's derivatives on the canonical
//! ABI (`synth/function_shadow.rs`).

use super::Reverse;
use crate::analysis::calls::CallKind;
use crate::analysis::types::TypeTree;
use crate::diag::Diagnostic;
use crate::ir::{Block, Builder, Function, Inst, TyKind, Value};
use crate::signature::{ArgActivity, Canonical, Field, Kind, Mode, Param, Request, Signature};
use crate::synth::function_shadow::{load_entry, Entry};
use crate::synth::registry::Registry;
use std::collections::{HashMap, HashSet};

/// A call whose forward sweep called an augmented primal: what its
/// reverse sweep needs.
#[derive(Clone, Debug)]
pub(super) struct AugmentedCall<'m> {
    /// The tape the augmented primal returned (a forward-sweep value).
    pub(super) tape: Option<Value<'m>>,
    /// The signature of the reverse function.
    pub(super) reverse_sig: Signature<'m>,
    /// Where the reverse function comes from.
    pub(super) reverse: ReverseTarget<'m>,
}

/// A call in vector reverse mode of a function of its scalar arguments
/// (it reads and writes no memory but its own stack and errno):
/// each lane's reverse sweep runs its augmented primal again and then its
/// reverse function, with that lane's shadows and adjoint (running it
/// again changes nothing the program can see).
#[derive(Clone, Debug)]
pub(super) struct LaneCall<'m> {
    key: Request<'m>,
    fns: crate::synth::reverse::Derivative<'m>,
}

/// The reverse function of an augmented call.
#[derive(Copy, Clone, Debug)]
pub(super) enum ReverseTarget<'m> {
    /// A known function (a direct call).
    Known(Function<'m>),
    /// The reverse of an OpenMP region's microtask, forked over the table
    /// of the threads' tapes (`reverse/team.rs`).
    Team(Function<'m>),
    /// Entry 1 of the shadow table of the called pointer (an indirect
    /// call).
    Table,
}

/// The calls of the primal that are differentiated as calls.
#[derive(Default)]
pub(super) struct CallBook<'m> {
    /// Forward-sweep calls to augmented primals: primal call -> (tape in
    /// the forward sweep, signature, reverse function).
    pub(super) augmented: HashMap<Value<'m>, AugmentedCall<'m>>,
    /// Vector reverse mode: calls of functions that write no memory, left
    /// as they are in the forward sweep and differentiated lane by lane in
    /// the reverse sweeps.
    pub(super) by_lane: HashMap<Value<'m>, LaneCall<'m>>,
    /// `MPI_Allreduce` with `MPI_MAX`/`MPI_MIN`: the weights the forward
    /// sweep computed after it (`synth/mpi/extremum.rs`).
    pub(super) extremum_weights: HashMap<Value<'m>, Value<'m>>,
    /// Blocking MPI receives whose source or tag may be a wildcard: the
    /// actual source and tag, read from the status by the forward sweep.
    pub(super) mpi_sources: HashMap<Value<'m>, (Value<'m>, Value<'m>)>,
    /// BLAS calls: what the forward sweep kept for their adjoints.
    pub(super) blas: HashMap<Value<'m>, super::blas::BlasTape<'m>>,
    /// The augmented calls whose reverse function the reverse sweep calls
    /// (each must be among them: [`Reverse::check_reversed_calls`]).
    pub(super) reversed: HashSet<Value<'m>>,
}

impl<'m, 'a> Reverse<'m, 'a> {
    /// The activity signature a call passes to its callee.
    fn call_signature(&self, i: Inst<'m>) -> (Vec<ArgActivity>, bool, bool) {
        let args: Vec<ArgActivity> = (0..i.call_num_args())
            .map(|k| {
                let a = i.operand(k);
                if a.ty().kind() == TyKind::Pointer && self.facts.act.is_shadowed(a) {
                    ArgActivity::Dup
                } else if a.ty().carries_float() && self.facts.act.is_active(a) {
                    ArgActivity::Out
                } else {
                    ArgActivity::Const
                }
            })
            .collect();
        let ret_active = i.ty().carries_float() && self.facts.act.is_active(i.as_value());
        let ret_shadowed =
            i.ty().kind() == TyKind::Pointer && self.facts.act.is_shadowed(i.as_value());
        (args, ret_active, ret_shadowed)
    }

    /// Whether anything about call `i` is active (else it stays as is).
    fn call_is_active(args: &[ArgActivity], ret_active: bool, ret_shadowed: bool) -> bool {
        ret_active || ret_shadowed || args.iter().any(|a| *a != ArgActivity::Const)
    }

    /// Forward sweep of a call to a user function: call its augmented
    /// primal instead, when anything about the call is active.
    pub(super) fn augment_user_call(
        &mut self,
        i: Inst<'m>,
        gi: Inst<'m>,
        callee: Function<'m>,
        registry: &mut Registry<'m>,
    ) {
        if let Some(d) = crate::synth::check_integer_arguments(i, &self.facts.act, self.req.name) {
            return self.diags.push(d);
        }
        let (args, ret_active, ret_shadowed) = self.call_signature(i);
        if !Self::call_is_active(&args, ret_active, ret_shadowed)
            && !self.facts.act.moves_global_derivatives(callee)
        {
            return;
        }
        let key = Request {
            function: callee,
            args,
            ret_active,
            ret_shadowed,
            mode: Mode::Split,
        };
        let seeds: Vec<(usize, TypeTree)> = (0..i.call_num_args() as usize)
            .map(|k| (k, i.operand(k as u32)))
            .filter(|(_, a)| a.ty().kind() == TyKind::Pointer)
            .map(|(k, a)| (k, self.facts.types.tree(a)))
            .filter(|(_, t)| t.first_level().next().is_some())
            .collect();
        registry.seed_parameter_types(callee, &seeds);
        if self.req.width > 1 {
            // Run again per lane when that gives the same and changes
            // nothing: no memory read or written but the callee's stack
            // (and errno), no shadow returned, no user code in between.
            let again =
                crate::analysis::writes::touches_only_its_stack(callee, registry.call_facts())
                    && !ret_shadowed
                    && registry.custom_gradient(callee).is_none();
            if !again {
                return self.not_inlined_in_vector_mode(i);
            }
            match registry.split(&key) {
                Ok(fns) => {
                    self.calls
                        .by_lane
                        .insert(i.as_value(), LaneCall { key, fns });
                }
                Err(d) => self.diags.push(d),
            }
            return;
        }
        let fns = match registry.split(&key) {
            Ok(f) => f,
            Err(d) => return self.diags.push(d),
        };
        self.call_augmented(
            i,
            gi,
            key.signature(Kind::Augmented),
            |_| fns.forward.as_value(),
            AugmentedCall {
                tape: None,
                reverse_sig: key.signature(Kind::Reverse),
                reverse: ReverseTarget::Known(fns.reverse),
            },
        );
    }

    /// Forward sweep of a call through a function pointer with active
    /// data: the augmented primal is entry 0 of the pointer's shadow table,
    /// on the canonical ABI of the call's function type.
    pub(super) fn augment_indirect_call(&mut self, i: Inst<'m>, gi: Inst<'m>) {
        if let Some(d) = crate::synth::check_integer_arguments(i, &self.facts.act, self.req.name) {
            return self.diags.push(d);
        }
        if self.req.width > 1 {
            return self.not_inlined_in_vector_mode(i);
        }
        let (args, ret_active, ret_shadowed) = self.call_signature(i);
        if !Self::call_is_active(&args, ret_active, ret_shadowed) {
            return;
        }
        if crate::synth::is_undifferentiable_callee(i) {
            let d = crate::synth::undifferentiable_call(i, self.req.name);
            return self.diags.push(d);
        }
        let callee = i.called_value().expect("a call");
        let Some(table) = self.shadows.forward(callee) else {
            return self.unsupported(
                i,
                "the function called through this pointer needs a shadow (its table of derivatives), and enz-rs cannot tell where the pointer comes from: pass it with enzyme_dup (the function itself as its shadow), or call the function directly",
            );
        };
        let fty = i.call_function_type();
        self.call_augmented(
            i,
            gi,
            Canonical::signature(fty, Mode::Split, Kind::Augmented),
            |fb| load_entry(fb, table, Entry::Augmented),
            AugmentedCall {
                tape: None,
                reverse_sig: Canonical::signature(fty, Mode::Split, Kind::Reverse),
                reverse: ReverseTarget::Table,
            },
        );
    }

    /// Replaces forward-sweep call `gi` by a call of the augmented primal
    /// with signature `sig` (made by `callee` at the call's position), and
    /// records what its reverse sweep needs.
    fn call_augmented(
        &mut self,
        i: Inst<'m>,
        gi: Inst<'m>,
        sig: Signature<'m>,
        callee: impl FnOnce(&Builder<'m>) -> Value<'m>,
        mut aug: AugmentedCall<'m>,
    ) {
        let fb = Builder::new(i.context());
        fb.position_after(gi);
        let call_args = sig.arguments(|p, _| match p {
            Param::Primal(k) => Ok(self.map.get(i.operand(k as u32))),
            Param::Shadow { of, .. } => self.shadows.forward(i.operand(of as u32)).ok_or(of),
            Param::ReturnAdjoint | Param::Tape => {
                unreachable!("not parameters of an augmented function")
            }
        });
        let call_args = match call_args {
            Ok(a) => a,
            Err(k) => return self.no_shadow_arg(i, k),
        };
        let callee = callee(&fb);
        let call = fb.call(sig.function_type(), callee, &call_args);
        self.replaced_call(gi, call);
        let res = call.as_value();
        let field = |f: Field| {
            sig.field_index(f)
                .expect("the augmented function returns it")
        };
        aug.tape = Some(fb.extract_value(res, field(Field::Tape)));
        if !i.ty().is_void() {
            let primal = fb.extract_value(res, field(Field::Return));
            gi.replace_all_uses_with(primal);
            self.map.insert(i, primal);
            if i.ty().kind() == TyKind::Pointer {
                let s = fb.extract_value(res, field(Field::ReturnShadow { lane: 0 }));
                self.shadows.insert(i.as_value(), s);
            }
        }
        gi.erase();
        self.calls.augmented.insert(i.as_value(), aug);
    }

    /// Vector reverse mode has no vector derivatives of callees: a call
    /// with active data must have been inlined, unless the callee is a
    /// function of its scalar arguments ([`LaneCall`]).
    fn not_inlined_in_vector_mode(&mut self, i: Inst<'m>) {
        let callee = i
            .called_function_of_call_or_invoke()
            .map(|f| format!("`{}`", f.name()))
            .unwrap_or_else(|| "a function pointer".to_string());
        self.unsupported(
            i,
            &format!("with enzyme_width in reverse mode, a call with active data must be inlined or call a function of its scalar arguments (one that reads and writes no memory but its own stack), and this call of {callee} is neither (recursive, through a pointer, with a custom derivative, or --no-inline; the callee may read or write memory through pointers or globals, or returns a pointer)"),
        );
    }

    fn no_shadow_arg(&mut self, i: Inst<'m>, k: usize) {
        self.unsupported(
            i,
            &format!("argument {k} of this call needs a shadow that enz-rs cannot build"),
        );
    }

    /// Reverse sweep of any call.
    pub(super) fn reverse_call(&mut self, i: Inst<'m>) {
        if let Some(aug) = self.calls.augmented.get(&i.as_value()).cloned() {
            return self.reverse_augmented_call(i, aug);
        }
        if let Some(lc) = self.calls.by_lane.get(&i.as_value()).cloned() {
            return self.reverse_lane_call(i, lc);
        }
        match self.facts.call_kinds.get(i.as_value()) {
            // Mirrored: what came after the barrier is reversed before it.
            CallKind::Barrier => crate::synth::gpu::barrier(&self.b),
            CallKind::OmpSync(s) => self.reverse_omp_sync(i, s),
            CallKind::OmpOrdering => self.unsupported(
                i,
                "an ordered region (#pragma omp ordered) in a parallel region with derivatives: its reverse would have to run in the opposite iteration order, which enz-rs does not do; take the ordered part out of the parallel loop (forward mode, __enzyme_fwddiff, differentiates it)",
            ),
            CallKind::Mpi(f) => self.reverse_mpi_call(i, f),
            CallKind::Blas(f) => self.reverse_blas_call(i, f),
            CallKind::Memory(m) => self.reverse_memory_call(i, m),
            CallKind::Masked(m) => self.reverse_masked(i, m),
            CallKind::Math(f) => self.reverse_math_call(i, f),
            CallKind::Linear => self.reverse_linear_call(i),
            // Vector reverse mode: said by the forward sweep.
            CallKind::Defined(_) | CallKind::Custom(_) | CallKind::Indirect
                if self.req.width > 1 => {}
            // A function with no body that may write memory holding
            // derivatives (or pointers to it): what it writes there, and
            // so the shadow, is unknown.
            CallKind::External(f) if !f.writes_no_memory() && self.passes_shadowed_pointer(i) => {
                self.no_rule_for_call(i)
            }
            _ if !self.facts.act.is_active(i.as_value()) => {}
            _ => self.no_rule_for_call(i),
        }
    }

    /// The reverse sweep of a call whose forward sweep called an augmented
    /// primal: its reverse function, with the tape.
    fn reverse_augmented_call(&mut self, i: Inst<'m>, aug: AugmentedCall<'m>) {
        self.calls.reversed.insert(i.as_value());
        let tape = aug.tape.expect("set by the forward sweep");
        let tape = self.cached_forward(tape, i.parent_block());
        let rev = match aug.reverse {
            ReverseTarget::Known(f) => f.as_value(),
            ReverseTarget::Team(f) => return self.reverse_team_call(i, &aug, f, tape),
            ReverseTarget::Table => {
                let callee = i.called_value().expect("a call");
                let Some(t) = self.shadow_rev(callee) else {
                    return self.unsupported(
                        i,
                        "the shadow of this function pointer is not available in the reverse sweep",
                    );
                };
                load_entry(&self.b, t, Entry::Reverse)
            }
        };
        self.call_reverse(i, &aug.reverse_sig, rev, tape);
    }

    /// Every augmented call of a block in `live` whose reverse sweep runs
    /// (an invoke's: along its normal edge) got its reverse call: one left
    /// out would leave every adjoint it passes on at zero, silently (an
    /// invoke whose normal edge a later `simplifycfg` had merged did). An
    /// internal error otherwise.
    pub(super) fn check_reversed_calls(&mut self, live: &[Block<'m>]) {
        if self.req.width > 1 {
            return;
        }
        let mut missing: Vec<Value<'m>> = Vec::new();
        for b in live {
            for i in b.instructions() {
                let v = i.as_value();
                let reaches = !i.is_invoke() || live.contains(&i.normal_dest());
                if reaches
                    && self.calls.augmented.contains_key(&v)
                    && !self.calls.reversed.contains(&v)
                {
                    missing.push(v);
                }
            }
        }
        for v in missing {
            self.diags.push(
                Diagnostic::internal(
                    "the reverse sweep of this call was not made (this is a bug in enz-rs)",
                )
                .in_function(self.req.name)
                .at(v),
            );
        }
    }

    /// Calls `rev`, the reverse function (signature `sig`) of call `i`,
    /// with `tape` and the adjoint of `i`'s result, and accumulates the
    /// adjoints it returns into `i`'s arguments.
    fn call_reverse(&mut self, i: Inst<'m>, sig: &Signature<'m>, rev: Value<'m>, tape: Value<'m>) {
        let args = sig.arguments(|p, _| match p {
            Param::Primal(k) => Ok(self.primal(i.operand(k as u32))),
            Param::Shadow { of, .. } => self.shadow_rev(i.operand(of as u32)).ok_or(of),
            Param::ReturnAdjoint => Ok(self.take_adjoint(i.as_value())),
            Param::Tape => Ok(tape),
        });
        let args = match args {
            Ok(a) => a,
            Err(k) => return self.no_shadow_arg(i, k),
        };
        let res = self.b.call(sig.function_type(), rev, &args);
        for (j, (field, _)) in sig.fields().iter().enumerate() {
            if let Field::Adjoint(k) = *field {
                let d = self.b.extract_value(res.as_value(), j as u32);
                self.accumulate(i.operand(k as u32), d);
            }
        }
    }

    /// The reverse sweep of this lane for a [`LaneCall`]: the augmented
    /// primal with this lane's shadows, then the reverse function with its
    /// tape and this lane's adjoint of the result.
    fn reverse_lane_call(&mut self, i: Inst<'m>, lc: LaneCall<'m>) {
        let aug_sig = lc.key.signature(Kind::Augmented);
        let args = aug_sig.arguments(|p, _| match p {
            Param::Primal(k) => Ok(self.primal(i.operand(k as u32))),
            Param::Shadow { of, .. } => self.shadow_rev(i.operand(of as u32)).ok_or(of),
            Param::ReturnAdjoint | Param::Tape => {
                unreachable!("not parameters of an augmented function")
            }
        });
        let args = match args {
            Ok(a) => a,
            Err(k) => return self.no_shadow_arg(i, k),
        };
        let res = self
            .b
            .call(aug_sig.function_type(), lc.fns.forward.as_value(), &args);
        let tape_at = aug_sig
            .field_index(Field::Tape)
            .expect("the augmented function returns its tape");
        let tape = self.b.extract_value(res.as_value(), tape_at);
        let sig = lc.key.signature(Kind::Reverse);
        self.call_reverse(i, &sig, lc.fns.reverse.as_value(), tape);
    }

    /// Mixed mode's `y = __enz_linear(y, J_1, x_1, ..., J_n, x_n)`: adds
    /// `J_k · dy` to the adjoint of each active `x_k`.
    fn reverse_linear_call(&mut self, i: Inst<'m>) {
        if !self.facts.act.is_active(i.as_value()) {
            return;
        }
        let dy = self.take_adjoint(i.as_value());
        let n = (i.call_num_args() - 1) / 2;
        for k in 0..n {
            let x = i.operand(2 + 2 * k);
            if !self.facts.act.is_active(x) {
                continue;
            }
            let j = self.primal(i.operand(1 + 2 * k));
            let d = self.b.fmul(j, dy);
            self.accumulate(x, d);
        }
    }

    /// Whether call `i` passes a pointer whose memory has a shadow.
    fn passes_shadowed_pointer(&self, i: Inst<'m>) -> bool {
        (0..i.call_num_args()).any(|k| {
            let a = i.operand(k);
            a.ty().kind() == TyKind::Pointer && self.facts.act.is_shadowed(a)
        })
    }

    pub(super) fn no_rule_for_call(&mut self, i: Inst<'m>) {
        let d = crate::synth::undifferentiable_call(i, self.req.name);
        self.diags.push(d);
    }
}
