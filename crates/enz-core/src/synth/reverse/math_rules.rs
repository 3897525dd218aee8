//! Calls of math functions in the reverse sweep: the rule table's
//! elementwise rules (`Reverse::apply_rule`), rules over scalar components
//! (complex numbers, two results), and the second result some libm
//! functions write through a pointer (`frexp`'s exponent: an integer, no
//! derivative; `modf`'s integer part: a float whose derivative is zero, so
//! like a store of a constant the shadow it overwrites is zeroed).

use super::Reverse;
use crate::analysis::calls::math_written_pointer;
use crate::ir::{Inst, Value};
use crate::names::{MathFn, Written};
use crate::synth::components;
use crate::synth::emit::{emit, Operands};
use crate::synth::rules::{lookup, OpKey, PrimalUses, Rule, Shape};

impl<'m, 'a> Reverse<'m, 'a> {
    /// Reverse sweep of a call of math function `f`.
    pub(super) fn reverse_math_call(&mut self, i: Inst<'m>, f: MathFn) {
        if let Some((p, Written::ResultType)) = math_written_pointer(i, f) {
            if self.facts.act.is_shadowed(p) {
                let Some(s) = self.shadow_rev(p) else {
                    return self.unsupported(i, "the memory this call writes has no shadow");
                };
                self.b.store(self.b.zero(i.ty()), s);
            }
        }
        if !self.facts.act.is_active(i.as_value()) {
            return;
        }
        match lookup(OpKey::Math(f)) {
            Some(rule) if rule.shape == Shape::Components => self.apply_components_rule(i, rule),
            Some(rule) => self.apply_rule(i, rule, i.call_num_args()),
            None => self.no_rule_for_call(i),
        }
    }

    /// A rule over scalar components: operands and result taken apart,
    /// each active operand's adjoint put back together from its
    /// components' formulas.
    fn apply_components_rule(&mut self, i: Inst<'m>, rule: &Rule) {
        let ops: Vec<Value> = (0..i.call_num_args()).map(|k| i.operand(k)).collect();
        let tys: Vec<_> = ops.iter().map(|o| o.ty()).collect();
        let (Some(layout), Some(nret)) = (components::layout(&tys), components::count(i.ty()))
        else {
            return self.no_rule_for_call(i);
        };
        let needed: Vec<usize> = (0..layout.len())
            .filter(|c| {
                rule.adjoints.get(*c).is_some_and(Option::is_some)
                    && self.facts.act.is_active(ops[layout[*c].0])
            })
            .collect();
        let d = self.take_adjoint(i.as_value());
        if needed.is_empty() {
            return;
        }
        let mut uses = PrimalUses::default();
        for c in &needed {
            uses.collect(rule.adjoints[*c].as_ref().expect("checked"));
        }
        let mut args = Vec::new();
        for (k, o) in ops.iter().enumerate() {
            let read = (0..layout.len()).any(|c| layout[c].0 == k && uses.args.contains(&c));
            args.extend(if read {
                let v = self.primal(*o);
                components::split(&self.b, v)
            } else {
                components::unused(&self.b, *o)
            });
        }
        let rets = if uses.ret || !uses.rets.is_empty() {
            let r = self.primal(i.as_value());
            components::split(&self.b, r)
        } else {
            Vec::new()
        };
        let drets = components::split(&self.b, d);
        debug_assert_eq!(drets.len(), nret);
        let mut parts: Vec<Vec<Option<Value>>> = tys
            .iter()
            .map(|t| vec![None; components::count(*t).unwrap_or(1)])
            .collect();
        for c in needed {
            let o = Operands {
                args: &args,
                ret: rets.first().copied(),
                rets: &rets,
                dret: drets[0],
                drets: &drets,
                dargs: &[],
                ty: components::member_ty(i.ty(), 0),
                given: &[],
            };
            let v = emit(&self.b, rule.adjoints[c].as_ref().expect("checked"), &o);
            let (k, at) = layout[c];
            parts[k][at] = Some(v);
        }
        for (k, p) in parts.into_iter().enumerate() {
            if p.iter().any(Option::is_some) {
                let adj = components::join(&self.b, tys[k], &p);
                self.accumulate(ops[k], adj);
            }
        }
    }
}
