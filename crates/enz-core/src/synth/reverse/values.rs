//! Primal values and shadows as the reverse sweep sees them, emitted as
//! the plan (`plan.rs`) decided: the forward value itself, an affine
//! induction variable, a recomputation (or re-read) from the operands, or a
//! load from the tape (a slot, or a loop buffer indexed by iteration).

use super::plan::{Availability, Placement, MAX_RECOMPUTE_DEPTH};
use super::Reverse;
use crate::analysis::loops::{AffineIv, LoopId};
use crate::ir::LLVMOpcode;
use crate::ir::{Block, Builder, Inst, Ty, Value};

impl<'m, 'a> Reverse<'m, 'a> {
    /// The primal value `v` as available at the reverse builder's position.
    pub(super) fn primal(&mut self, v: Value<'m>) -> Value<'m> {
        self.primal_at_depth(v, 0)
    }

    fn primal_at_depth(&mut self, v: Value<'m>, depth: u32) -> Value<'m> {
        if v.is_argument() {
            return self.sweep.rev_params[&v];
        }
        let Some(i) = v.as_inst() else {
            return v;
        };
        let blk = i.parent_block();
        let gv = self.map.inst(i);
        self.explain.uses.insert(v);
        match self.facts.plan.value(v) {
            Availability::Direct => gv.as_value(),
            Availability::Affine(l, iv) => self.affine_value(l, iv, depth),
            Availability::Recompute { .. } if depth < MAX_RECOMPUTE_DEPTH => {
                let ops: Vec<Value> = v
                    .operands()
                    .into_iter()
                    .map(|o| self.primal_at_depth(o, depth + 1))
                    .collect();
                self.reemit(gv, &ops)
            }
            // Planned for the tape, or a recomputation cut at the depth cap.
            Availability::Cache(placement) => self.cached_forward_in(gv.as_value(), placement),
            Availability::Recompute { .. } => self.cached_forward(gv.as_value(), blk),
        }
    }

    /// A clone of forward instruction `gv` at the reverse position, with
    /// operands `ops`.
    pub(super) fn reemit(&mut self, gv: Inst<'m>, ops: &[Value<'m>]) -> Value<'m> {
        let c = gv.clone_instruction();
        self.b.insert(c);
        for (k, o) in ops.iter().enumerate() {
            c.set_operand(k as u32, *o);
        }
        c.into()
    }

    /// A forward-sweep value `gv` (defined in primal block `blk`) usable in
    /// the reverse sweep: directly if it dominates every exit (combined
    /// mode), else through the tape.
    pub(super) fn cached_forward(&mut self, gv: Value<'m>, blk: Block<'m>) -> Value<'m> {
        self.cached_forward_in(gv, self.facts.plan.placement(blk))
    }

    /// Forward-sweep value `gv` through `placement`.
    fn cached_forward_in(&mut self, gv: Value<'m>, placement: Placement) -> Value<'m> {
        match placement {
            Placement::Direct => return gv,
            Placement::LoopBuffer(l) => return self.cache_in_loop(gv, l),
            Placement::Slot => {}
        }
        let slot = match self.caches.slots.get(&gv) {
            Some(s) => *s,
            None => {
                let s = self.sweep.tape.reserve(gv.ty());
                let fwd = Builder::new(gv.context());
                fwd.position_after(gv.as_inst().expect("a cached value is an instruction"));
                self.sweep.tape.store(&fwd, s, gv);
                self.caches.slots.insert(gv, s);
                self.explain_cache(None, gv);
                s
            }
        };
        let tape = self.sweep.rev_tape.unwrap_or(gv);
        self.sweep.tape.load(&self.b, tape, slot)
    }

    /// The shadow of primal pointer `p` at the reverse builder's position.
    pub(super) fn shadow_rev(&mut self, p: Value<'m>) -> Option<Value<'m>> {
        if p.is_argument() {
            return self.sweep.rev_shadow_params.get(&p).copied();
        }
        if let Some(s) = self.lazy_shadow_rev(p) {
            return Some(s);
        }
        let sv = self.shadows.forward(p)?;
        let Some(blk) = p.block_of() else {
            return Some(sv);
        };
        if self.facts.plan.placement(blk) == Placement::Direct {
            return Some(sv);
        }
        if matches!(
            p.opcode(),
            Some(
                LLVMOpcode::LLVMGetElementPtr
                    | LLVMOpcode::LLVMBitCast
                    | LLVMOpcode::LLVMAddrSpaceCast
            )
        ) {
            if let Some(base) = self.shadow_rev(p.operand(0)) {
                let mut ops = vec![base];
                for k in 1..p.num_operands() {
                    ops.push(self.primal(p.operand(k)));
                }
                // A shadow folded to a constant is available anywhere.
                let Some(si) = sv.as_inst() else {
                    return Some(sv);
                };
                return Some(self.reemit(si, &ops));
            }
        }
        Some(self.cached_forward(sv, blk))
    }
}

impl<'m, 'a> Reverse<'m, 'a> {
    /// `start + step * rev_iv` for an affine induction variable.
    fn affine_value(&mut self, l: LoopId, iv: AffineIv<'m>, depth: u32) -> Value<'m> {
        let start = self.primal_at_depth(iv.start, depth + 1);
        let k = self.rev_iv(l);
        let ty = match iv.gep_type {
            Some(_) => Ty::int(k.context(), 64),
            None => iv.phi.ty(),
        };
        let k = self.b.int_cast(k, ty);
        let step = self.b.const_int(ty, iv.step);
        let off = self.b.mul(k, step);
        match iv.gep_type {
            Some(elem) => self.b.gep(elem, start, &[off]),
            None => self.b.add(start, off),
        }
    }
}
