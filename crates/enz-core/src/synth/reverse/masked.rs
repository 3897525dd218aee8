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
//! - `masked.gather` / `masked.scatter` (one pointer per lane): the same,
//!   lane by lane, since two lanes may point to the same element: a
//!   gather's lanes each add into their element; a scatter's lanes are
//!   undone last to first, so where two lanes wrote the same element only
//!   the last one (whose value stayed) receives its adjoint.

use super::Reverse;
use crate::ir::{Inst, Ty, Value};
use crate::names::MaskedFn;
use crate::synth::masked;

impl<'m, 'a> Reverse<'m, 'a> {
    /// The reverse sweep of masked access `i`.
    pub(super) fn reverse_masked(&mut self, i: Inst<'m>, m: MaskedFn) {
        let p = i.operand(m.pointer_arg());
        let value = match masked::moved_floats(i, m, |p| self.facts.act.is_shadowed(p)) {
            Ok(Some(v)) => v,
            Ok(None) => return,
            Err(msg) => return self.unsupported(i, msg),
        };
        if !self.facts.act.is_shadowed(p) {
            // Inactive memory; a load's adjoint may still go to `pass`.
            if m.reads() && self.facts.act.is_active(value) {
                let d = self.take_adjoint(value);
                self.masked_passthru_adjoint(i, d);
            }
            return;
        }
        let Some(s) = self.shadow_rev(p) else {
            return self.unsupported(i, "the shadow of this masked access is not available");
        };
        let mask = self.primal(i.operand(m.pointer_arg() + 1));
        if m.per_lane_pointers() {
            return self.reverse_gather_scatter(i, m, value, s, mask);
        }
        let zero = self.b.zero(value.ty());
        let in_shadow = masked::load(&self.b, s, mask, zero);
        if m.reads() {
            let d = self.take_adjoint(value);
            let sum = self.b.fadd(in_shadow, d);
            masked::store(&self.b, sum, s, mask);
            self.masked_passthru_adjoint(i, d);
        } else {
            masked::store(&self.b, zero, s, mask);
            self.accumulate(value, in_shadow);
        }
    }

    /// A gather's or scatter's reverse, lane by lane on the shadow pointers
    /// `s`, each lane a one-lane masked access (no lane off the mask is
    /// dereferenced).
    fn reverse_gather_scatter(
        &mut self,
        i: Inst<'m>,
        m: MaskedFn,
        value: Value<'m>,
        s: Value<'m>,
        mask: Value<'m>,
    ) {
        let ctx = i.context();
        let n = value.ty().len() as u32;
        let elem = value.ty().element();
        let one = elem.vector(1);
        let one_mask = Ty::int(ctx, 1).vector(1);
        let zero1 = self.b.zero(one);
        let lane = |b: &crate::ir::Builder<'m>, v: Value<'m>, k: u32| {
            b.extract_element(v, b.i32(i64::from(k)))
        };
        let single = |b: &crate::ir::Builder<'m>, v: Value<'m>, ty: Ty<'m>| {
            b.insert_element(b.poison(ty), v, b.i32(0))
        };
        if m.reads() {
            let d = self.take_adjoint(value);
            for k in 0..n {
                let (p, mk) = (lane(&self.b, s, k), lane(&self.b, mask, k));
                let mk = single(&self.b, mk, one_mask);
                let old = masked::load(&self.b, p, mk, zero1);
                let sum = self.b.fadd(old, single(&self.b, lane(&self.b, d, k), one));
                masked::store(&self.b, sum, p, mk);
            }
            self.masked_passthru_adjoint(i, d);
        } else {
            let mut dv = self.b.zero(value.ty());
            for k in (0..n).rev() {
                let (p, mk) = (lane(&self.b, s, k), lane(&self.b, mask, k));
                let mk = single(&self.b, mk, one_mask);
                let held = masked::load(&self.b, p, mk, zero1);
                masked::store(&self.b, zero1, p, mk);
                let h = lane(&self.b, held, 0);
                dv = self.b.insert_element(dv, h, self.b.i32(i64::from(k)));
            }
            self.accumulate(value, dv);
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
