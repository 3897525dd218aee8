//! BLAS calls in reverse mode (the rules are in `synth/blas.rs`).
//!
//! The forward sweep keeps what the adjoint needs: a Fortran call's
//! pointed-to integers, transposes and scalars are loaded right after the
//! call (the reverse sweep gets them through the plan's caches, as any
//! forward value), and each array whose primal values the adjoint reads
//! (`A` and `x` of a `gemv` whose `x` and `A` have shadows, ...) is
//! copied to a heap block right after the call (its span through the
//! increment or leading dimension), unless, in combined mode, nothing
//! the function does after the call may write that memory (the test the
//! plan uses to re-read loads, `analysis::writes`): then the reverse
//! sweep reads the primal's memory. The reverse sweep frees its copies.

use super::Reverse;
use crate::analysis::blas::arrays;
use crate::ir::{Builder, Inst, Value};
use crate::names::{BlasArg, BlasFn, BlasInterface, BlasRoutine};
use crate::synth::blas::{self as rules, Args, Arrays, Emit};

/// What the forward sweep kept of one BLAS call for its adjoint.
#[derive(Clone, Default)]
pub(super) struct BlasTape<'m> {
    /// A Fortran call's arguments in CBLAS form (forward values).
    pub(super) args: Vec<Value<'m>>,
    /// Copies of arrays the adjoint reads: (CBLAS argument, copy).
    pub(super) copies: Vec<(u32, Value<'m>)>,
}

impl<'m, 'a> Reverse<'m, 'a> {
    /// Whether BLAS call `i` carries derivatives: any of its arrays has a
    /// shadow or its result is active.
    fn blas_carries(&self, i: Inst<'m>, f: BlasFn) -> bool {
        rules::any_shadowed(i, f, &|v| self.facts.act.is_shadowed(v))
            || self.facts.act.is_active(i.as_value())
    }

    /// Whether BLAS call `i` is differentiated; says why not when it
    /// cannot be.
    fn blas_rule(&mut self, i: Inst<'m>, f: BlasFn) -> bool {
        if !self.blas_carries(i, f) {
            return false;
        }
        if let Some(msg) = rules::refusal(i, f) {
            self.unsupported(i, &msg);
            return false;
        }
        let name = i.called_function().map(|f| f.name()).unwrap_or_default();
        if self.req.width > 1 {
            let msg = format!("`{name}`: BLAS calls with derivatives are not supported with enzyme_width in reverse mode");
            self.unsupported(i, &msg);
            return false;
        }
        let active_scalar = crate::analysis::blas::scalars(i, f)
            .into_iter()
            .any(|s| self.facts.act.is_active(s) || self.facts.act.is_shadowed(s));
        if active_scalar {
            let msg = format!("`{name}`: its alpha or beta is active; enz-rs differentiates BLAS calls with respect to their arrays only (make the scalars constants)");
            self.unsupported(i, &msg);
            return false;
        }
        true
    }

    /// The forward sweep's part of BLAS call `i` (`gi` its copy): keeps
    /// what its adjoint reads.
    pub(super) fn augment_blas_call(&mut self, i: Inst<'m>, gi: Inst<'m>, f: BlasFn) {
        let BlasFn::Rule(r, _, iface) = f else {
            return;
        };
        if !self.blas_carries(i, f) || rules::refusal(i, f).is_some() {
            return;
        }
        // Read before the call: what a triangular product overwrites is
        // copied there; the rest is copied after it.
        let fb = Builder::new(i.context());
        fb.position_before(gi);
        let map = &self.map;
        let Some(args) = rules::read(&fb, i, f, &mut |v| map.get(v)) else {
            return;
        };
        let after = Builder::new(i.context());
        after.position_after(gi);
        let arrays = arrays(i, f);
        let shadowed = |k: u32| {
            arrays
                .iter()
                .any(|(j, a, _)| *j == k && self.facts.act.is_shadowed(*a))
        };
        let mut tape = BlasTape::default();
        for k in rules::needed_in_reverse(r, &shadowed) {
            let spared = arrays
                .iter()
                .find(|(j, _, _)| *j == k)
                .is_some_and(|(_, a, _)| {
                    self.req.mode == super::Mode::Combined
                        && self.facts.rereadable.spares_blas_read(i.as_value(), *a)
                });
            if !spared {
                let at = if rules::copied_before(r, k) {
                    &fb
                } else {
                    &after
                };
                tape.copies.push((k, rules::copy_array(at, &args, k)));
            }
        }
        if iface == BlasInterface::Fortran {
            tape.args = args.v;
        }
        self.calls.blas.insert(i.as_value(), tape);
    }

    /// The reverse sweep of BLAS call `i`.
    pub(super) fn reverse_blas_call(&mut self, i: Inst<'m>, f: BlasFn) {
        if !self.blas_rule(i, f) {
            return;
        }
        let BlasFn::Rule(r, prec, iface) = f else {
            return;
        };
        let tape = self
            .calls
            .blas
            .get(&i.as_value())
            .cloned()
            .unwrap_or_default();
        let blk = i.parent_block();
        let ops = crate::analysis::blas::arrays(i, f);
        let mut v: Vec<Value<'m>> = Vec::new();
        if iface == BlasInterface::Fortran {
            if tape.args.len() != r.args().len() {
                return self.unsupported(i, "the forward sweep did not keep this BLAS call's arguments (this is a bug in enz-rs)");
            }
            for (k, x) in tape.args.iter().enumerate() {
                let x = match ops.iter().find(|(j, _, _)| *j as usize == k) {
                    Some((_, a, _)) => self.primal(*a),
                    // LAPACK's pivots: read from the forward sweep's copy.
                    None if r.args()[k] == BlasArg::Pivots => x.ty().null_constant(),
                    None if x.is_instruction() => self.cached_forward(*x, blk),
                    None => *x,
                };
                v.push(x);
            }
        } else {
            for k in 0..i.call_num_args() {
                let o = i.operand(k);
                if r.args().get(k as usize) == Some(&BlasArg::Pivots) {
                    v.push(o.ty().null_constant());
                    continue;
                }
                v.push(self.primal(o));
            }
        }
        let args = Args {
            routine: r,
            prec,
            v,
        };
        let mut arr = Arrays::new(args.v.len());
        for (k, a, _) in &ops {
            if self.facts.act.is_shadowed(*a) {
                let Some(s) = self.shadow_rev(*a) else {
                    return self.unsupported(
                        i,
                        "an array of this BLAS call has no shadow enz-rs can build",
                    );
                };
                arr.shadow[*k as usize] = Some(s);
            }
        }
        let mut copies = Vec::new();
        for (k, c) in &tape.copies {
            let c = self.cached_forward(*c, blk);
            arr.primal[*k as usize] = Some(c);
            copies.push(c);
        }
        let float_result = r.returns_float() && self.facts.act.is_active(i.as_value());
        let dr = float_result.then(|| self.take_adjoint(i.as_value()));
        let res = (float_result && r == BlasRoutine::Nrm2).then(|| self.primal(i.as_value()));
        let e = Emit { b: &self.b, prec };
        rules::reverse(&e, &args, &arr, dr, res);
        for c in copies {
            self.b.free(c);
        }
    }
}
