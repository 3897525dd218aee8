//! Primal values and shadows as the reverse sweep sees them: used directly,
//! recomputed, or read back from the tape.
//!
//! In the order tried:
//! 1. combined mode, outside loops, a block dominating every exit: the
//!    forward value is used as is;
//! 2. affine induction variables: `start + step * rev_iv`;
//! 3. cheap pure instructions (GEPs, casts, integer arithmetic, comparisons,
//!    `fadd`/`fsub`/`fmul`/`fneg`, thread ids on GPUs) are recomputed from
//!    their operands, and loads whose memory the function never writes
//!    (`analysis::writes`) are re-read, in combined mode only;
//! 4. everything else — other loads above all, since their memory may be
//!    overwritten later — is stored to the tape right after its definition
//!    (a stack slot, the heap tape, or a loop buffer indexed by iteration)
//!    and loaded where needed.

use super::{Mode, Reverse};
use crate::analysis::loops::{AffineIv, LoopId};
use crate::ir::LLVMOpcode;
use crate::ir::{Block, Builder, Ty, Value};

/// How deep recomputation may recurse before caching instead.
const MAX_RECOMPUTE_DEPTH: u32 = 6;

impl Reverse<'_> {
    /// The primal value `v` as available at the reverse builder's position.
    pub(super) fn primal(&mut self, v: Value) -> Value {
        self.primal_at_depth(v, 0)
    }

    fn primal_at_depth(&mut self, v: Value, depth: u32) -> Value {
        if v.is_argument() {
            return self.rev_params[&v];
        }
        if !v.is_instruction() {
            return v;
        }
        let blk = v.parent_block();
        let gv = self.map.get(v);
        if self.available_everywhere(blk) {
            return gv;
        }
        if let Some((l, iv)) = self.affine.get(&v).copied() {
            return self.affine_value(l, iv, depth);
        }
        let reread = self.req.mode == Mode::Combined
            && v.opcode() == Some(LLVMOpcode::LLVMLoad)
            && self.rereadable.contains(v);
        let recompute = is_recomputable(v) || reread || crate::analysis::gpu::is_thread_index(v);
        if depth < MAX_RECOMPUTE_DEPTH && recompute {
            let ops: Vec<Value> = v
                .operands()
                .into_iter()
                .map(|o| self.primal_at_depth(o, depth + 1))
                .collect();
            return self.reemit(gv, &ops);
        }
        self.cached_forward(gv, blk)
    }

    /// A clone of forward instruction `gv` at the reverse position, with
    /// operands `ops`.
    fn reemit(&mut self, gv: Value, ops: &[Value]) -> Value {
        let c = gv.clone_instruction();
        self.b.insert(c);
        c.clear_debug_loc();
        for (k, o) in ops.iter().enumerate() {
            c.set_operand(k as u32, *o);
        }
        c
    }

    /// A forward-sweep value `gv` (defined in primal block `blk`) usable in
    /// the reverse sweep: directly if it dominates every exit (combined
    /// mode), else through the tape.
    pub(super) fn cached_forward(&mut self, gv: Value, blk: Block) -> Value {
        if self.available_everywhere(blk) {
            return gv;
        }
        if let Some(l) = self.loops.innermost(blk) {
            return self.cache_in_loop(gv, l);
        }
        let slot = match self.cache_slots.get(&gv) {
            Some(s) => *s,
            None => {
                let s = self.tape.reserve(gv.ty());
                let fwd = Builder::new(gv.context());
                fwd.position_after(gv);
                self.tape.store(&fwd, s, gv);
                self.cache_slots.insert(gv, s);
                s
            }
        };
        let tape = self.rev_tape.unwrap_or(gv);
        self.tape.load(&self.b, tape, slot)
    }

    /// The shadow of primal pointer `p` at the reverse builder's position.
    pub(super) fn shadow_rev(&mut self, p: Value) -> Option<Value> {
        if p.is_argument() {
            return self.rev_shadow_params.get(&p).copied();
        }
        let sv = self.shadows.forward(p)?;
        if !p.is_instruction() {
            return Some(sv);
        }
        let blk = p.parent_block();
        if self.available_everywhere(blk) {
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
                return Some(self.reemit(sv, &ops));
            }
        }
        Some(self.cached_forward(sv, blk))
    }
}

impl Reverse<'_> {
    /// Whether a forward value of primal block `blk` can be used as is
    /// anywhere in the reverse sweep: combined mode, outside every loop,
    /// and dominating every exit (the reverse sweep is entered only there).
    fn available_everywhere(&self, blk: Block) -> bool {
        self.req.mode == Mode::Combined && !self.in_loop(blk) && self.cfg.dominates_all_exits(blk)
    }

    /// `start + step * rev_iv` for an affine induction variable.
    fn affine_value(&mut self, l: LoopId, iv: AffineIv, depth: u32) -> Value {
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

/// Pure, cheap instructions worth recomputing rather than caching: integer
/// and pointer arithmetic, casts and the cheapest float arithmetic (a loop
/// then caches only what it cannot recompute, typically its phis and loads).
fn is_recomputable(v: Value) -> bool {
    use LLVMOpcode::*;
    match v.opcode() {
        Some(
            LLVMGetElementPtr | LLVMBitCast | LLVMAddrSpaceCast | LLVMPtrToInt | LLVMIntToPtr
            | LLVMZExt | LLVMSExt | LLVMTrunc | LLVMAdd | LLVMSub | LLVMMul | LLVMShl | LLVMLShr
            | LLVMAShr | LLVMAnd | LLVMOr | LLVMXor | LLVMICmp | LLVMSIToFP | LLVMUIToFP
            | LLVMFPExt | LLVMFPTrunc | LLVMFNeg | LLVMFAdd | LLVMFSub | LLVMFMul,
        ) => true,
        Some(LLVMSelect) => !v.ty().carries_float(),
        _ => false,
    }
}
