//! BLAS calls in forward mode: right after the primal call, its tangent
//! on the shadows, as BLAS calls (the rules are in `synth/blas.rs`),
//! lane by lane under `enzyme_width`. A call whose arrays have no shadow
//! and whose result is inactive needs nothing.

use super::Forward;
use crate::ir::{Builder, Inst};
use crate::names::BlasFn;
use crate::synth::blas::{self as rules, Arrays, Emit};

impl<'m, 'a> Forward<'m, 'a> {
    /// BLAS call `i` (`gi` its copy, `b` just after it).
    pub(super) fn blas_call(&mut self, i: Inst<'m>, gi: Inst<'m>, f: BlasFn, b: &Builder<'m>) {
        let carries = rules::any_shadowed(i, f, &|v| self.act.is_shadowed(v))
            || self.act.is_active(i.as_value());
        if !carries {
            return;
        }
        if let Some(msg) = rules::refusal(i, f) {
            return self.unsupported(i, &msg);
        }
        let BlasFn::Rule(_, prec, _) = f else {
            return;
        };
        let active_scalar = crate::analysis::blas::scalars(i, f)
            .into_iter()
            .any(|s| self.act.is_active(s) || self.act.is_shadowed(s));
        if active_scalar {
            let name = i.called_function().map(|f| f.name()).unwrap_or_default();
            let msg = format!("`{name}`: its alpha or beta is active; enz-rs differentiates BLAS calls with respect to their arrays only (make the scalars constants)");
            return self.unsupported(i, &msg);
        }
        // A triangular product's tangent reads what the call overwrites:
        // made before it.
        let before = Builder::new(i.context());
        before.position_before(gi);
        let b = match f {
            BlasFn::Rule(r, _, _) if rules::tangent_before(r) => &before,
            _ => b,
        };
        let map = &self.map;
        let Some(args) = rules::read(b, i, f, &mut |v| map.get(v)) else {
            return;
        };
        let arrays = crate::analysis::blas::arrays(i, f);
        let result = gi.ty().carries_float().then(|| gi.as_value());
        let mut tangents = Vec::new();
        for lane in 0..self.lanes() {
            let mut arr = Arrays::new(args.v.len());
            for (k, a, _) in &arrays {
                if self.act.is_shadowed(*a) {
                    let Some(s) = self.shadows[lane].forward(*a) else {
                        return self.unsupported(
                            i,
                            "an array of this BLAS call has no shadow enz-rs can build",
                        );
                    };
                    arr.shadow[*k as usize] = Some(s);
                }
            }
            let e = Emit { b, prec };
            if let Some(t) = rules::tangent(&e, &args, &arr, result) {
                tangents.push(t);
            }
        }
        if self.act.is_active(i.as_value()) && tangents.len() == self.lanes() {
            self.tangents.insert(i.as_value(), tangents);
        }
    }
}
