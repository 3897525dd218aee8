//! Vector reverse mode (`enzyme_width N` with `__enzyme_autodiff`): one
//! forward sweep, then N reverse sweeps one after the other, each with its
//! own shadows (lane k's shadow arguments, and shadows of the memory the
//! function allocates made for each lane in the forward sweep) and its
//! own adjoints, all reading the same primal values and caches:
//!
//! ```text
//!   forward sweep (primal, shadows of every lane) ─► exit
//!   ─► reverse sweep, lane 0 ─► invert_return: lane 0's adjoints
//!   ─► reverse sweep, lane 1 (from the exit the forward sweep took) ─► …
//!   ─► last lane's invert_return: frees, {[N x T] adjoint of each out p}
//! ```
//!
//! Also the gradient's return (every lane's adjoints), which width 1
//! shares.

use super::Reverse;
use crate::ir::{Block, Value};
use crate::signature::Field;
use crate::synth::shadow::ShadowMap;
use std::collections::HashMap;

/// What one lane has of its own while another is being built.
pub(super) struct LaneShadows<'m> {
    /// Primal pointers to this lane's shadows in the forward sweep.
    pub(super) shadows: ShadowMap<'m>,
    /// This lane's shadow parameters in the reverse function.
    pub(super) rev_params: HashMap<Value<'m>, Value<'m>>,
}

/// Vector reverse mode: the lane being built, the others' shadows parked
/// meanwhile, and the adjoints each finished lane returns.
pub(super) struct Lanes<'m> {
    pub(super) current: usize,
    pub(super) parked: Vec<Option<LaneShadows<'m>>>,
    pub(super) outs: Vec<Vec<Value<'m>>>,
}

impl<'m> Lanes<'m> {
    /// Lane 0 current, the others `parked` (`None` at index 0).
    pub(super) fn new(parked: Vec<Option<LaneShadows<'m>>>) -> Lanes<'m> {
        Lanes {
            current: 0,
            parked,
            outs: Vec::new(),
        }
    }
}

impl<'m, 'a> Reverse<'m, 'a> {
    /// Makes `lane` the one whose shadows the synthesis uses.
    pub(super) fn switch_lane(&mut self, lane: usize) {
        if lane == self.lanes.current {
            return;
        }
        let next = self.lanes.parked[lane].take().expect("a parked lane");
        let shadows = std::mem::replace(&mut self.shadows, next.shadows);
        let rev_params = std::mem::replace(&mut self.sweep.rev_shadow_params, next.rev_params);
        self.lanes.parked[self.lanes.current] = Some(LaneShadows {
            shadows,
            rev_params,
        });
        self.lanes.current = lane;
    }

    /// The current lane's reverse block of every live block, and its
    /// `invert_return`.
    pub(super) fn reverse_blocks(&mut self, live: &[Block<'m>]) -> Block<'m> {
        let rf = self.sweep.fns.reverse;
        let prefix = match self.lanes.current {
            0 => "invert".to_string(),
            k => format!("invert{k}"),
        };
        self.cfg.rev = live
            .iter()
            .map(|b| (*b, rf.append_block(&format!("{prefix}_{}", b.name()))))
            .collect();
        rf.append_block(&format!("{prefix}_return"))
    }

    /// Where the current lane's reverse sweep starts: the reverse block of
    /// the exit the forward sweep took.
    pub(super) fn lane_start(&mut self) -> Block<'m> {
        let exits = self.cfg.live_exits.clone();
        let targets: Vec<Block> = exits.iter().map(|e| self.cfg.rev[e]).collect();
        let start = self
            .sweep
            .fns
            .reverse
            .append_block(&format!("lane{}_start", self.lanes.current));
        self.b.position_at_end(start);
        match (self.cfg.exit_taken, targets.as_slice()) {
            (_, []) => {
                self.b.unreachable();
            }
            (Some(slot), [first, rest @ ..]) if !rest.is_empty() => {
                let k = self.b.load(crate::ir::Ty::int(slot.context(), 32), slot);
                let cases: Vec<(Value, Block)> = rest
                    .iter()
                    .enumerate()
                    .map(|(i, b)| (self.b.i32(i as i64 + 1), *b))
                    .collect();
                self.b.switch(k, *first, &cases);
            }
            (_, [first, ..]) => {
                self.b.br(*first);
            }
        }
        start
    }

    /// The current lane's adjoint of each `out` parameter, at the reverse
    /// builder's position.
    pub(super) fn adjoint_outs(&mut self) -> Vec<Value<'m>> {
        let params = self.req.prep.params();
        let mut outs = Vec::new();
        for (field, _) in self.sweep.rev_sig.fields().to_vec() {
            if let Field::Adjoint(k) = field {
                let p = params[k];
                let ty = p.ty();
                let v = if self.facts.act.is_active(p) {
                    let slot = self.adjoint_slot(p);
                    self.b.load(ty, slot)
                } else {
                    self.b.zero(ty)
                };
                outs.push(v);
            }
        }
        outs
    }

    /// The end of the last reverse sweep: every lane's adjoints, the
    /// deferred frees, the caches and the tape freed, the return.
    pub(super) fn build_return(&mut self, ret_block: Block<'m>) {
        self.b.position_at_end(ret_block);
        self.finish_block_sums();
        self.flush_combined();
        let last = self.adjoint_outs();
        let outs = if self.req.width > 1 {
            self.lanes.outs.push(last);
            let lanes = std::mem::take(&mut self.lanes.outs);
            let tys: Vec<_> = self
                .sweep
                .rev_sig
                .fields()
                .iter()
                .map(|(_, t)| *t)
                .collect();
            tys.iter()
                .enumerate()
                .map(|(j, ty)| {
                    let mut arr = self.b.poison(*ty);
                    for (lane, outs) in lanes.iter().enumerate() {
                        arr = self.b.insert_value(arr, outs[j], lane as u32);
                    }
                    arr
                })
                .collect()
        } else {
            last
        };
        for st in std::mem::take(&mut self.deferred.stores) {
            // A copy of the primal's store (its alignment, TBAA and source
            // line) of the primal's value to the primal's address.
            let (v, p) = (self.primal(st.operand(0)), self.primal(st.operand(1)));
            let c = st.clone_instruction();
            self.b.insert(c);
            c.set_operand(0, v);
            c.set_operand(1, p);
        }
        for call in std::mem::take(&mut self.deferred.frees) {
            // Every argument: sized and aligned `operator delete` take the
            // size and alignment after the pointer.
            let args: Vec<Value> = (0..call.call_num_args())
                .map(|k| self.primal(call.operand(k)))
                .collect();
            let callee = call.called_value().expect("a call");
            self.b.call(call.call_function_type(), callee, &args);
        }
        self.free_buffers();
        if let Some(t) = self.sweep.rev_tape {
            self.b.free(t);
        }
        if outs.is_empty() {
            self.b.ret(None);
            return;
        }
        let sty = self.sweep.rev_sig.return_type();
        let mut agg = self.b.poison(sty);
        for (k, v) in outs.into_iter().enumerate() {
            agg = self.b.insert_value(agg, v, k as u32);
        }
        self.b.ret(Some(agg));
    }
}
