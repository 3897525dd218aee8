//! Calls of math functions in forward mode: the rule table's tangents,
//! elementwise or over scalar components (complex numbers, two results),
//! and the second result some libm functions write through a pointer
//! (`frexp`'s exponent: an integer, no tangent; `modf`'s integer part: a
//! float whose tangent is zero, stored to the shadow).

use super::Forward;
use crate::analysis::calls::math_written_pointer;
use crate::ir::{Builder, Inst, Value};
use crate::names::{MathFn, Written};
use crate::synth::components;
use crate::synth::emit::{emit, Operands};
use crate::synth::rules::{lookup, OpKey, Rule, Shape};

impl<'m, 'a> Forward<'m, 'a> {
    /// The tangent of a call of math function `f` (after `gi`, its clone,
    /// where `b` is positioned), and the zero tangent it writes through a
    /// pointer.
    pub(super) fn math_call(&mut self, i: Inst<'m>, gi: Inst<'m>, f: MathFn, b: &Builder<'m>) {
        if let Some((p, Written::ResultType)) = math_written_pointer(i, f) {
            if self.act.is_shadowed(p) {
                for lane in 0..self.lanes() {
                    match self.shadows[lane].forward(p) {
                        Some(s) => {
                            b.store(b.zero(i.ty()), s);
                        }
                        None => {
                            return self.unsupported(i, "the memory this call writes has no shadow")
                        }
                    }
                }
            }
        }
        if !self.act.is_active(i.into()) {
            return;
        }
        let Some(rule) = lookup(OpKey::Math(f)) else {
            return self
                .diags
                .push(crate::synth::undifferentiable_call(i, self.req.name));
        };
        let args: Vec<Value> = (0..i.call_num_args()).map(|k| i.operand(k)).collect();
        if rule.shape == Shape::Components && self.req.error {
            return self.unsupported(
                i,
                "error estimation of a math function over complex numbers or with two results is not supported",
            );
        }
        let lanes = if rule.shape == Shape::Components {
            match self.apply_components(b, i, gi, rule, &args) {
                Some(l) => l,
                None => {
                    return self
                        .diags
                        .push(crate::synth::undifferentiable_call(i, self.req.name))
                }
            }
        } else {
            let active: Vec<bool> = args.iter().map(|a| self.act.is_active(*a)).collect();
            let mapped: Vec<Value> = args.iter().map(|a| self.map.get(*a)).collect();
            self.apply(b, i.as_value(), gi, rule, &mapped, &active)
        };
        self.tangents.insert(i.into(), lanes);
    }

    /// The tangent of a rule over scalar components in every lane: each
    /// result component's tangent from the operands' component tangents,
    /// put back together in the result's type.
    fn apply_components(
        &self,
        b: &Builder<'m>,
        i: Inst<'m>,
        gi: Inst<'m>,
        rule: &Rule,
        args: &[Value<'m>],
    ) -> Option<Vec<Value<'m>>> {
        let tys: Vec<_> = args.iter().map(|a| a.ty()).collect();
        let layout = components::layout(&tys)?;
        let nret = components::count(i.ty())?;
        let active: Vec<bool> = layout
            .iter()
            .map(|(k, _)| self.act.is_active(args[*k]))
            .collect();
        let flat: Vec<Value> = args
            .iter()
            .flat_map(|a| components::split(b, self.map.get(*a)))
            .collect();
        let rets = components::split(b, gi.as_value());
        let ty = components::member_ty(i.ty(), 0);
        let lanes = (0..self.lanes())
            .map(|lane| {
                let dargs: Vec<Option<Value>> = args
                    .iter()
                    .flat_map(|a| {
                        let n = components::count(a.ty()).unwrap_or(1);
                        if self.act.is_active(*a) {
                            components::split(b, self.tangent(b, *a, lane))
                                .into_iter()
                                .map(Some)
                                .collect()
                        } else {
                            vec![None; n]
                        }
                    })
                    .collect();
                let parts: Vec<Option<Value>> = (0..nret)
                    .map(|j| {
                        let o = Operands {
                            args: &flat,
                            ret: rets.first().copied(),
                            rets: &rets,
                            dret: gi.as_value(),
                            drets: &[],
                            dargs: &dargs,
                            ty,
                            given: &[],
                        };
                        Some(emit(b, &rule.tangent_of_output(j, &active), &o))
                    })
                    .collect();
                components::join(b, i.ty(), &parts)
            })
            .collect();
        Some(lanes)
    }
}
