//! The primal's calls of math functions, indexed once per derivative by
//! (function, operands), with each instruction's position in its block:
//! the reverse sweep reuses a primal `cos(x)` for the adjoint of `sin(x)`
//! by looking it up here instead of rescanning the function (which made
//! synthesis quadratic in the size of a function), and the substitution
//! of those calls into an adjoint formula.

use crate::analysis::calls::{CallKind, CallKinds};
use crate::analysis::cfg::Cfg;
use crate::analysis::loops::LoopNest;
use crate::ir::{Function, Inst, Value};
use crate::names::MathFn;
use crate::synth::rules::Expr;
use std::collections::HashMap;

/// Math calls of the primal by (function, operands), in program order.
pub(super) struct PrimalMathCalls<'m> {
    calls: HashMap<(MathFn, Vec<Value<'m>>), Vec<Inst<'m>>>,
    /// Position of every instruction in its block.
    position: HashMap<Inst<'m>, usize>,
}

impl<'m> PrimalMathCalls<'m> {
    /// Indexes the calls `kinds` classifies as math functions of the rule
    /// table (a function with a registered derivative is not one).
    pub(super) fn new(prep: Function<'m>, kinds: &CallKinds<'m>) -> PrimalMathCalls<'m> {
        let mut calls: HashMap<(MathFn, Vec<Value>), Vec<Inst>> = HashMap::new();
        let mut position = HashMap::new();
        for b in prep.blocks() {
            for (k, i) in b.instructions().into_iter().enumerate() {
                position.insert(i, k);
                let CallKind::Math(f) = kinds.get(i.as_value()) else {
                    continue;
                };
                let operands = (0..i.call_num_args()).map(|k| i.operand(k)).collect();
                calls.entry((f, operands)).or_default().push(i);
            }
        }
        PrimalMathCalls { calls, position }
    }

    /// A call of `f` on exactly `operands` that ran before `at` in the same
    /// iteration of the same loops: its block dominates `at`'s and, in
    /// `at`'s block, it comes first.
    pub(super) fn before(
        &self,
        f: MathFn,
        operands: &[Value<'m>],
        at: Inst<'m>,
        cfg: &Cfg<'m>,
        loops: &LoopNest<'m>,
    ) -> Option<Value<'m>> {
        let blk = at.parent_block();
        let found = self.calls.get(&(f, operands.to_vec()))?;
        found
            .iter()
            .copied()
            .find(|c| {
                let cb = c.parent_block();
                (cb != blk || self.position.get(c) < self.position.get(&at))
                    && cfg.dominates(cb, blk)
                    && loops.innermost(cb) == loops.innermost(blk)
            })
            .map(Inst::as_value)
    }
}

impl<'m, 'a> super::Reverse<'m, 'a> {
    /// `expr` with each `f(operands…)` it computes replaced by the primal's
    /// own call of `f` on the same operands, when one dominates `i` (so
    /// `d sin(x)` uses the primal's `cos(x)` instead of calling cos again).
    pub(super) fn reuse_primal_math(
        &mut self,
        i: Inst<'m>,
        ops: &[Value<'m>],
        expr: &Expr,
        given: &mut Vec<Value<'m>>,
    ) -> Expr {
        let sub = |e: &Expr, this: &mut Self, given: &mut Vec<Value<'m>>| {
            this.reuse_primal_math(i, ops, e, given)
        };
        match expr {
            Expr::Math(f, args) => {
                let operands: Option<Vec<Value>> = args
                    .iter()
                    .map(|a| match a {
                        Expr::Arg(k) => Some(ops[*k]),
                        _ => None,
                    })
                    .collect();
                if let Some(found) = operands.and_then(|o| {
                    self.facts
                        .math_calls
                        .before(*f, &o, i, &self.facts.cfg, &self.facts.loops)
                }) {
                    let v = self.primal(found);
                    given.push(v);
                    return Expr::Given(given.len() - 1);
                }
                Expr::Math(*f, args.iter().map(|a| sub(a, self, given)).collect())
            }
            Expr::Add(a, b) => {
                Expr::Add(Box::new(sub(a, self, given)), Box::new(sub(b, self, given)))
            }
            Expr::Sub(a, b) => {
                Expr::Sub(Box::new(sub(a, self, given)), Box::new(sub(b, self, given)))
            }
            Expr::Mul(a, b) => {
                Expr::Mul(Box::new(sub(a, self, given)), Box::new(sub(b, self, given)))
            }
            Expr::Div(a, b) => {
                Expr::Div(Box::new(sub(a, self, given)), Box::new(sub(b, self, given)))
            }
            Expr::Neg(a) => Expr::Neg(Box::new(sub(a, self, given))),
            other => other.clone(),
        }
    }
}
