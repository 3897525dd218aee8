//! The reverse sweep's control flow: a reverse block per live primal block,
//! the exits the reverse sweep starts from, and how it chooses the
//! predecessor to go back to (a "came from" phi recorded in the forward
//! sweep, a condition the plan recomputes, or a loop counter).

use super::{Mode, Reverse};
use crate::ir::LLVMOpcode;
use crate::ir::{Block, Builder, Inst, Ty, Value};
use crate::signature::Param;
use crate::synth::tape::Slot;
use std::collections::HashMap;

/// The reverse blocks and the choice among them.
#[derive(Default)]
pub(super) struct ReverseCfg<'m> {
    /// Each live primal block to its reverse block (current lane).
    pub(super) rev: HashMap<Block<'m>, Block<'m>>,
    /// Blocks with several predecessors to the forward-sweep phi saying
    /// which one control came from.
    pub(super) came_from: HashMap<Block<'m>, Value<'m>>,
    /// The exits the reverse sweep starts from, and (vector reverse mode
    /// with several) a slot saying which one the forward sweep took.
    pub(super) live_exits: Vec<Block<'m>>,
    pub(super) exit_taken: Option<Value<'m>>,
    /// Split mode with several exits: the tape slot saying which one.
    split_exit_slot: Option<Slot<'m>>,
}

impl<'m, 'a> Reverse<'m, 'a> {
    /// For blocks with several predecessors, a phi in the forward sweep
    /// saying which one control came from.
    pub(super) fn record_came_from(&mut self, live: &[Block<'m>]) {
        let i32t = Ty::int(self.req.prep.context(), 32);
        for blk in live {
            let preds = self.facts.cfg.unique_preds(*blk);
            // Loop headers are left by counting, not by recording.
            if preds.len() < 2 || self.facts.loops.header_of(*blk).is_some() {
                continue;
            }
            let gb = self.map.block(*blk);
            let fb = Builder::new(self.req.prep.context());
            match gb.first_instruction() {
                Some(i) => fb.position_before(i),
                None => fb.position_at_end(gb),
            }
            let phi = fb.phi(i32t, "came_from");
            for p in self.facts.cfg.preds(*blk) {
                let idx = preds.iter().position(|q| q == p).unwrap_or(0);
                phi.add_incoming(fb.i32(idx as i64), self.map.block(*p));
            }
            self.cfg.came_from.insert(*blk, phi.into());
        }
    }

    /// Replaces each `ret` of the forward sweep: in combined mode by a
    /// branch into the reverse sweep; in split mode by recording the exit
    /// in the tape and returning `{tape, ret, shadow ret}`.
    pub(super) fn finish_exits(&mut self) {
        let exits: Vec<Block> = self
            .facts
            .cfg
            .blocks
            .iter()
            .filter(|b| b.terminator().and_then(|t| t.opcode()) == Some(LLVMOpcode::LLVMRet))
            .copied()
            .collect();
        let live_exits: Vec<Block> = exits
            .iter()
            .filter(|e| self.cfg.rev.contains_key(e))
            .copied()
            .collect();
        let fb = Builder::new(self.req.prep.context());
        let exit_slot = (self.req.mode == Mode::Split && live_exits.len() > 1).then(|| {
            self.sweep
                .tape
                .reserve(Ty::int(self.req.prep.context(), 32))
        });
        self.cfg.live_exits = live_exits.clone();
        if self.req.width > 1 && live_exits.len() > 1 {
            let i32t = Ty::int(self.req.prep.context(), 32);
            self.cfg.exit_taken = Some(self.sweep.top.alloca(i32t, "exit_taken"));
        }
        for blk in exits {
            let t = blk.terminator().expect("exit");
            let gt = self.map.inst(t);
            fb.position_before(gt);
            match (self.req.mode, self.cfg.rev.get(&blk)) {
                (_, None) => {
                    fb.unreachable();
                }
                (Mode::Combined, Some(rb)) => {
                    self.check_budget(&fb);
                    if let Some(slot) = self.cfg.exit_taken {
                        let k = live_exits.iter().position(|e| *e == blk).unwrap_or(0);
                        fb.store(fb.i32(k as i64), slot);
                    }
                    fb.br(*rb);
                }
                (Mode::Split, Some(_)) => {
                    self.check_budget(&fb);
                    if let Some(slot) = exit_slot {
                        let k = live_exits.iter().position(|e| *e == blk).unwrap_or(0);
                        self.sweep.tape.store(&fb, slot, fb.i32(k as i64));
                    }
                    let sty = self.sweep.fns.forward.function_type().return_type();
                    let mut agg = fb.poison(sty);
                    agg = fb.insert_value(agg, self.sweep.tape.pointer(), 0);
                    let mut field = 1;
                    if t.num_operands() == 1 {
                        let r = t.operand(0);
                        agg = fb.insert_value(agg, self.map.get(r), field);
                        field += 1;
                        if r.ty().kind() == crate::ir::TyKind::Pointer {
                            let s = self.shadows.forward(r).unwrap_or_else(|| fb.zero(r.ty()));
                            agg = fb.insert_value(agg, s, field);
                        }
                    }
                    fb.ret(Some(agg));
                }
            }
            gt.erase();
        }
        if self.req.mode == Mode::Split {
            self.cfg.split_exit_slot = exit_slot;
            self.enter_split_reverse();
        }
    }

    /// The entry of a split reverse function (`self.sweep.fns.reverse`, whose
    /// entry block `self.sweep.top` builds in): read the tape and branch to the
    /// reverse block of the exit the augmented function left by.
    pub(super) fn enter_split_reverse(&mut self) {
        let tape_param = self.rev_param(Param::Tape);
        tape_param.set_name("tape");
        self.sweep.rev_tape = Some(tape_param);
        let targets: Vec<Block> = self
            .cfg
            .live_exits
            .iter()
            .map(|e| self.cfg.rev[e])
            .collect();
        let entry = self.sweep.top.insert_block();
        let eb = Builder::new(self.req.prep.context());
        eb.position_at_end(entry);
        match self.cfg.split_exit_slot {
            Some(slot) if targets.len() > 1 => {
                let k = self.sweep.tape.load(&eb, tape_param, slot);
                let cases: Vec<(Value, Block)> = targets
                    .iter()
                    .enumerate()
                    .skip(1)
                    .map(|(i, b)| (eb.i32(i as i64), *b))
                    .collect();
                eb.switch(k, targets[0], &cases);
            }
            _ => match targets.first() {
                Some(t) => {
                    eb.br(*t);
                }
                None => {
                    eb.unreachable();
                }
            },
        }
        let first = entry.terminator().expect("just built");
        self.sweep.top.position_before(first);
    }

    /// Adjoints of the phis of `blk` go to the incoming values of the edge
    /// control came along; then branch to that predecessor's reverse block.
    pub(super) fn reverse_phis_and_branch(&mut self, blk: Block<'m>, ret_block: Block<'m>) {
        let phis: Vec<Inst> = blk
            .instructions()
            .into_iter()
            .take_while(|i| i.opcode() == Some(LLVMOpcode::LLVMPHI))
            .filter(|p| self.facts.act.is_active(p.as_value()))
            .collect();
        let ds: Vec<Value> = phis
            .iter()
            .map(|p| self.take_adjoint(p.as_value()))
            .collect();
        let preds: Vec<Block> = self
            .facts
            .cfg
            .unique_preds(blk)
            .into_iter()
            .filter(|p| self.cfg.rev.contains_key(p))
            .collect();
        if preds.is_empty() {
            self.b.br(ret_block);
            return;
        }
        if let Some(l) = self.facts.loops.header_of(blk) {
            let ((pre_edge, pre), (latch_edge, latch)) = self.header_branch(l);
            for (eb, p) in [(pre_edge, pre), (latch_edge, latch)] {
                self.b.position_at_end(eb);
                for (phi, d) in phis.iter().zip(&ds) {
                    if let Some((v, _)) = phi.incoming().into_iter().find(|(_, b)| *b == p) {
                        self.accumulate(v, *d);
                    }
                }
                self.b.br(self.cfg.rev[&p]);
            }
            return;
        }
        let edge_blocks: Vec<Block> = if preds.len() == 1 {
            vec![self.b.insert_block()]
        } else {
            let all_preds = self.facts.cfg.unique_preds(blk);
            let came = match self.facts.plan.came_from(blk) {
                Some(d) => {
                    let index = |p: Block<'m>| all_preds.iter().position(|q| *q == p).unwrap_or(0);
                    let (t, f) = (index(d.pred_if_true), index(d.pred_if_false));
                    let c = self.primal(d.cond);
                    self.b.select(c, self.b.i32(t as i64), self.b.i32(f as i64))
                }
                None => self.cached_forward(self.cfg.came_from[&blk], blk),
            };
            let blocks: Vec<Block> = preds
                .iter()
                .map(|p| {
                    self.sweep.fns.reverse.append_block(&format!(
                        "invert_{}_from_{}",
                        blk.name(),
                        p.name()
                    ))
                })
                .collect();
            let cases: Vec<(Value, Block)> = preds
                .iter()
                .zip(&blocks)
                .skip(1)
                .map(|(p, eb)| {
                    let idx = all_preds.iter().position(|q| q == p).unwrap_or(0);
                    (self.b.i32(idx as i64), *eb)
                })
                .collect();
            self.b.switch(came, blocks[0], &cases);
            blocks
        };
        for (p, eb) in preds.iter().zip(edge_blocks) {
            self.b.position_at_end(eb);
            for (phi, d) in phis.iter().zip(&ds) {
                if let Some((v, _)) = phi.incoming().into_iter().find(|(_, b)| b == p) {
                    self.accumulate(v, *d);
                }
            }
            self.enter_loops(blk, *p);
            self.b.br(self.cfg.rev[p]);
        }
    }
}
