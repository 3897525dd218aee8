//! Masked vector loads and stores (`llvm.masked.load/store`, made by the
//! loop vectoriser for conditional accesses and loop tails) in the reverse
//! sweep. The shadow access uses the primal's mask, so lanes the primal
//! never touched are never touched in the shadow either:
//!
//! - `x = masked.load(p, m, pass)`: `shadow(p)[m] += d(x)[m]` (a masked
//!   load, an `fadd`, a masked store); `d(pass) += d(x)` in the lanes off
//!   the mask.
//! - `masked.store(v, p, m)`: `d(v) += shadow(p)[m]` (zero off the mask),
//!   then `shadow(p)[m] = 0`.

use super::Reverse;
use crate::ir::{Inst, TyKind, Value};
use crate::names::MaskedFn;
use crate::synth::masked;

impl<'m, 'a> Reverse<'m, 'a> {
    /// The reverse sweep of masked access `i`.
    pub(super) fn reverse_masked(&mut self, i: Inst<'m>, m: MaskedFn) {
        let p = i.operand(m.pointer_arg());
        let value = match m {
            MaskedFn::Load => i.as_value(),
            MaskedFn::Store => i.operand(0),
        };
        if !value.ty().carries_float() {
            if value.ty().element().kind() == TyKind::Pointer && self.facts.act.is_shadowed(p) {
                self.unsupported(i, "masked accesses of shadowed pointers are not supported");
            }
            return;
        }
        if !self.facts.act.is_shadowed(p) {
            // Inactive memory; a load's adjoint may still go to `pass`.
            if m == MaskedFn::Load && self.facts.act.is_active(value) {
                let d = self.take_adjoint(value);
                self.masked_passthru_adjoint(i, d);
            }
            return;
        }
        let Some(s) = self.shadow_rev(p) else {
            return self.unsupported(i, "the shadow of this masked access is not available");
        };
        let mask = self.primal(i.operand(m.pointer_arg() + 1));
        let zero = self.b.zero(value.ty());
        let in_shadow = masked::load(&self.b, s, mask, zero);
        match m {
            MaskedFn::Load => {
                let d = self.take_adjoint(value);
                let sum = self.b.fadd(in_shadow, d);
                masked::store(&self.b, sum, s, mask);
                self.masked_passthru_adjoint(i, d);
            }
            MaskedFn::Store => {
                masked::store(&self.b, zero, s, mask);
                self.accumulate(value, in_shadow);
            }
        }
    }

    /// `d(pass) += d` in the lanes off the mask of masked load `i`.
    fn masked_passthru_adjoint(&mut self, i: Inst<'m>, d: Value<'m>) {
        let pass = i.operand(2);
        if !self.facts.act.is_active(pass) {
            return;
        }
        let mask = self.primal(i.operand(1));
        let off = self.b.select(mask, self.b.zero(d.ty()), d);
        self.accumulate(pass, off);
    }
}
