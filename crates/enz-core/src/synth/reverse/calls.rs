//! Calls in reverse mode.
//!
//! Calls are taken by their `CallKind` (`analysis/calls.rs`, classified
//! once per derivative): math functions use their rule; memory functions
//! are in `memory`; barriers are mirrored; known-inactive and user-inactive
//! calls are skipped. A call to another function of the module that carries
//! derivatives (what preprocessing did not inline: recursion, everything
//! under `--no-inline`) or to a function with a registered custom gradient
//! is differentiated interprocedurally: the forward sweep calls its
//! augmented primal, which returns `{tape, ret, shadow ret}`, and the
//! reverse sweep calls its reverse function with that tape.

use super::Reverse;
use crate::analysis::calls::CallKind;
use crate::ir::{Builder, Function, Inst, TyKind, Value};
use crate::signature::{ArgActivity, Field, Kind, Mode, Param, Request};
use crate::synth::registry::Registry;
use crate::synth::rules::{lookup, OpKey};

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
        if !ret_active && !ret_shadowed && args.iter().all(|a| *a == ArgActivity::Const) {
            return;
        }
        let key = Request {
            function: callee,
            args,
            ret_active,
            ret_shadowed,
            mode: Mode::Split,
        };
        let fns = match registry.split(&key) {
            Ok(f) => f,
            Err(d) => return self.diags.push(d),
        };
        let fb = Builder::new(i.context());
        fb.position_after(gi);
        let sig = key.signature(Kind::Augmented);
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
        let res = fb.call(fns.forward.function_type(), fns.forward, &call_args);
        let field = |f: Field| {
            sig.field_index(f)
                .expect("the augmented function returns it")
        };
        let tape = fb.extract_value(res.as_value(), field(Field::Tape));
        if !i.ty().is_void() {
            let primal = fb.extract_value(res.as_value(), field(Field::Return));
            gi.replace_all_uses_with(primal);
            self.map.insert(i, primal);
            if i.ty().kind() == TyKind::Pointer {
                let s = fb.extract_value(res.as_value(), field(Field::ReturnShadow { lane: 0 }));
                self.shadows.insert(i.as_value(), s);
            }
        }
        gi.erase();
        self.aug_calls
            .insert(i.as_value(), (tape, key, fns.reverse));
    }

    fn no_shadow_arg(&mut self, i: Inst<'m>, k: usize) {
        self.unsupported(
            i,
            &format!("argument {k} of this call needs a shadow that enz-rs cannot build"),
        );
    }

    /// Reverse sweep of any call.
    pub(super) fn reverse_call(&mut self, i: Inst<'m>) {
        if let Some((tape, key, rev)) = self.aug_calls.get(&i).cloned() {
            return self.reverse_user_call(i, tape, &key, rev);
        }
        match self.facts.call_kinds.get(i.as_value()) {
            // Mirrored: what came after the barrier is reversed before it.
            CallKind::Barrier => crate::synth::gpu::barrier(&self.b),
            CallKind::Memory(m) => self.reverse_memory_call(i, m),
            _ if !self.facts.act.is_active(i.as_value()) => {}
            CallKind::Math(f) => match lookup(OpKey::Math(f)) {
                Some(rule) => self.apply_rule(i, rule, i.call_num_args()),
                None => self.no_rule_for_call(i),
            },
            _ => self.no_rule_for_call(i),
        }
    }

    fn reverse_user_call(
        &mut self,
        i: Inst<'m>,
        tape: Value<'m>,
        key: &crate::signature::Request<'m>,
        rev: Function<'m>,
    ) {
        let blk = i.parent_block();
        let sig = key.signature(Kind::Reverse);
        let args = sig.arguments(|p, _| match p {
            Param::Primal(k) => Ok(self.primal(i.operand(k as u32))),
            Param::Shadow { of, .. } => self.shadow_rev(i.operand(of as u32)).ok_or(of),
            Param::ReturnAdjoint => Ok(self.take_adjoint(i.as_value())),
            Param::Tape => Ok(self.cached_forward(tape, blk)),
        });
        let args = match args {
            Ok(a) => a,
            Err(k) => return self.no_shadow_arg(i, k),
        };
        let res = self.b.call(rev.function_type(), rev, &args);
        for (j, (field, _)) in sig.fields().iter().enumerate() {
            if let Field::Adjoint(k) = *field {
                let d = self.b.extract_value(res.as_value(), j as u32);
                self.accumulate(i.operand(k as u32), d);
            }
        }
    }

    fn no_rule_for_call(&mut self, i: Inst<'m>) {
        let d = crate::synth::undifferentiable_call(i, self.req.name);
        self.diags.push(d);
    }
}
