//! Forward error estimation (`__enzyme_error_estimate`): forward mode whose
//! "tangent" of a value is a bound on its floating-point rounding error.
//!
//! For an operation `r = f(x₁ … xₙ)` whose operands carry errors `e₁ … eₙ`,
//!
//! ```text
//!   e(r) = max( ulp(r), Σₖ |∂f/∂xₖ · xₖ / r · eₖ| )
//! ```
//!
//! the operands' errors propagated through the operation's condition
//! numbers, and at least the rounding of `r` itself (one unit in its last
//! place). This is the propagation of Enzyme's forward error mode (after
//! Lam, Menon et al., "Floating-point precision tuning using
//! blame analysis", PLDI 2020 error semantics); `∂f/∂xₖ · t` is the rule
//! table's tangent of operand `k` alone, so every operation with a tangent
//! rule has an error rule. Operations that move values without rounding
//! (loads, stores, phis, selects, aggregates, memory copies) move errors as
//! forward mode moves tangents. An operand whose type differs from the
//! result's (a conversion) passes its error through the rule unscaled.
//!
//! When the module has a function named `enzymeLogError` (and/or
//! `enzymeLogValue`), each operation's error (value) is also reported to
//! it, in whichever of the two argument layouts it declares (see
//! [`crate::names::error_log`]).

use super::Forward;
use crate::ir::{functions, named_function, Builder, Function, Inst, Module, Ty, TyKind, Value};
use crate::names::error_log::{self, ErrorLogger, VALUE_LOGGER};
use crate::synth::rules::Rule;

impl<'m, 'a> Forward<'m, 'a> {
    /// The error bound of `i` (clone `gi`, result of `rule` over `args`
    /// with operands `active`), emitted after `gi` with `b`; `None` when
    /// the result is not a float or vector of floats (then the tangent
    /// rule applies unchanged).
    pub(super) fn error_bound(
        &self,
        b: &Builder<'m>,
        i: Value<'m>,
        gi: Inst<'m>,
        rule: &Rule,
        args: &[Value<'m>],
        active: &[bool],
    ) -> Option<Value<'m>> {
        let ty = gi.ty();
        let int_ty = ty.same_bits_int()?;
        let r = gi.as_value();
        let mut sum: Option<Value<'m>> = None;
        for k in (0..args.len()).filter(|k| active[*k]) {
            let e = self.tangent(b, i.as_inst()?.operand(k as u32), 0);
            let scaled = if args[k].ty() == ty {
                b.fdiv(b.fmul(e, args[k]), r)
            } else {
                e
            };
            let only: Vec<bool> = (0..args.len()).map(|j| j == k).collect();
            let dargs: Vec<Option<Value>> = (0..args.len())
                .map(|j| (j == k).then_some(scaled))
                .collect();
            let t = super::emit_tangent(b, &rule.tangent_over(&only), args, gi, &dargs);
            if t.ty() != ty {
                return None;
            }
            let term = fabs(b, t);
            sum = Some(match sum {
                None => term,
                Some(s) => b.fadd(s, term),
            });
        }
        let ulp = ulp(b, r, int_ty);
        let err = match sum {
            None => ulp,
            Some(s) => b.call_intrinsic("llvm.maxnum", &[ty], &[ulp, s]).as_value(),
        };
        self.log_error(b, i, gi, args, err);
        Some(err)
    }

    /// Reports `err`, the error of `i` (clone `gi`), and its value and
    /// operands, to the module's `enzymeLogError` / `enzymeLogValue`
    /// when it has them (scalars only).
    fn log_error(
        &self,
        b: &Builder<'m>,
        i: Value<'m>,
        gi: Inst<'m>,
        args: &[Value<'m>],
        err: Value<'m>,
    ) {
        if !gi.ty().is_fp_scalar() {
            return;
        }
        let Some(inst) = i.as_inst() else { return };
        let module = gi.parent_block().parent().global_parent();
        let dbl = Ty::double(b.ctx());
        let widen = |v: Value<'m>| match v.ty().kind() {
            TyKind::Double => v,
            _ => b.fp_cast(v, dbl),
        };
        let site = Site::of(inst, self.req.name);
        if let Some(f) = logger(module, VALUE_LOGGER) {
            if error_log::is_value_logger(f.function_type()) {
                let floats: Vec<Value> = args
                    .iter()
                    .copied()
                    .filter(|a| a.ty().is_fp_scalar())
                    .collect();
                let n = floats.len() as u64;
                let buf = entry_alloca(gi, dbl.array(n.max(1)));
                for (k, v) in floats.iter().enumerate() {
                    let slot = b.gep(dbl, buf, &[b.const_int(Ty::int(b.ctx(), 64), k as i64)]);
                    b.store(widen(*v), slot);
                }
                let id = b.global_string(&site.id(), "error_site");
                let n32 = b.const_int(Ty::int(b.ctx(), 32), n as i64);
                call(b, f, &[id, widen(gi.as_value()), n32, buf]);
            }
        }
        let Some(f) = logger(module, error_log::ERROR_LOGGER) else {
            return;
        };
        match error_log::error_logger(f.function_type()) {
            Some(ErrorLogger::ById) => {
                let id = b.global_string(&site.id(), "error_site");
                call(b, f, &[id, widen(err)]);
            }
            Some(ErrorLogger::Described) => {
                let texts = [
                    site.opcode.clone(),
                    site.callee.clone(),
                    crate::ir::module_identifier(module),
                    site.function.clone(),
                    site.block.clone(),
                ];
                let mut a = vec![widen(gi.as_value()), widen(err)];
                a.extend(texts.iter().map(|t| b.global_string(t, "error_site_text")));
                call(b, f, &a);
            }
            None => {}
        }
    }
}

/// Where an operation is, for the loggers.
struct Site {
    opcode: String,
    callee: String,
    function: String,
    block: String,
    index: usize,
}

impl Site {
    fn of(i: Inst<'_>, function: &str) -> Site {
        let blk = i.parent_block();
        let index = blk.instructions().iter().position(|x| *x == i).unwrap_or(0);
        let opcode = i
            .opcode()
            .map(|op| format!("{op:?}").trim_start_matches("LLVM").to_lowercase())
            .unwrap_or_default();
        let callee = i
            .as_value()
            .called_function_of_call_or_invoke()
            .map(|f| f.name())
            .unwrap_or_else(|| "<N/A>".to_string());
        let block = match blk.name() {
            n if n.is_empty() => {
                let k = blk.parent().blocks().iter().position(|x| *x == blk);
                format!("bb{}", k.unwrap_or(0))
            }
            n => n,
        };
        Site {
            opcode,
            callee,
            function: function.to_string(),
            block,
            index,
        }
    }

    /// A name unique to the operation in its function.
    fn id(&self) -> String {
        format!(
            "{}:{}:{}:{}",
            self.function, self.block, self.index, self.opcode
        )
    }
}

/// One unit in the last place of float (or float vector) `r`: the
/// distance to the float whose bits differ in the lowest one.
fn ulp<'m>(b: &Builder<'m>, r: Value<'m>, int_ty: Ty<'m>) -> Value<'m> {
    let bits = b.bit_cast(r, int_ty);
    let one = match int_ty.kind() {
        TyKind::Vector => {
            let lane = b.const_int(int_ty.element(), 1);
            int_ty.const_aggregate(&vec![lane; int_ty.len() as usize])
        }
        _ => b.const_int(int_ty, 1),
    };
    let neighbour = b.bit_cast(b.xor(bits, one), r.ty());
    fabs(b, b.fsub(r, neighbour))
}

/// The module's logger spelled `(c, c++ prefix)`, if it has one.
fn logger<'m>(module: Module<'m>, (c, cxx): (&str, &str)) -> Option<Function<'m>> {
    named_function(module, c).or_else(|| {
        functions(module)
            .into_iter()
            .find(|f| f.name().starts_with(cxx))
    })
}

fn fabs<'m>(b: &Builder<'m>, v: Value<'m>) -> Value<'m> {
    b.call_intrinsic("llvm.fabs", &[v.ty()], &[v]).as_value()
}

fn call<'m>(b: &Builder<'m>, f: Function<'m>, args: &[Value<'m>]) {
    b.call(f.function_type(), f, args);
}

/// A stack slot of type `ty` at the top of the function holding `gi`.
fn entry_alloca<'m>(gi: Inst<'m>, ty: Ty<'m>) -> Value<'m> {
    let top = Builder::new(gi.context());
    crate::synth::shadow::position_at_top(&top, gi.parent_block().parent().entry_block());
    top.alloca(ty, "error_operands")
}
