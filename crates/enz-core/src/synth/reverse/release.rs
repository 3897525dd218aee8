//! Release functions (`release_f`, for `__enzyme_fwdsplit`): a tape made
//! by `augmented_f` that no reverse sweep will read must still be freed,
//! with everything the reverse sweep would have freed: the shadows of the
//! function's allocations (and heap shadows of its allocas), the loop
//! cache buffers, the tape. `release_f` is `reverse_f` with nothing but
//! those frees: the same walk back through the blocks and loops (which
//! reads what it needs from the tape), no adjoints, no shadow memory
//! touched. It is built with the split pair, from the same forward sweep,
//! and has `reverse_f`'s signature (the adjoints it returns are zeros).

use super::Reverse;
use crate::analysis::calls::CallKind;
use crate::ir::{Block, Builder, Function, Inst};
use crate::ir::{LLVMIntPredicate, LLVMOpcode};
use std::collections::HashMap;

impl<'m, 'a> Reverse<'m, 'a> {
    /// Builds `rf`, the release function, after `reverse_f`.
    pub(super) fn build_release(&mut self, rf: Function<'m>, live: &[Block<'m>]) {
        let (rev_params, mut rev_shadows) =
            super::sweep::bind_params(&self.sweep.rev_sig, self.req.prep, rf);
        self.sweep.rev_params = rev_params;
        self.sweep.rev_shadow_params = rev_shadows.swap_remove(0);
        self.sweep.fns.reverse = rf;
        self.sweep.releasing = true;
        self.adjoints = HashMap::new();
        let entry = rf.append_block("entry");
        self.sweep.top.position_at_end(entry);
        let ret_block = self.reverse_blocks(live);
        self.enter_split_reverse();
        self.skip_null_tape(rf);
        self.new_reverse_counters();
        for blk in live {
            self.reverse_block(*blk, ret_block);
        }
        self.build_return(ret_block);
    }

    /// A null tape (a function that caches nothing may be given one) is
    /// not walked: the entry's dispatch moves to a block of its own, run
    /// only for a tape.
    fn skip_null_tape(&mut self, rf: Function<'m>) {
        let ctx = rf.context();
        let entry = self.sweep.top.insert_block();
        let Some(t) = entry.terminator() else { return };
        let dispatch = rf.append_block("dispatch");
        let db = Builder::new(ctx);
        db.position_at_end(dispatch);
        db.insert(t.clone_instruction());
        t.erase();
        let none = rf.append_block("null_tape");
        db.position_at_end(none);
        let rty = self.sweep.rev_sig.return_type();
        if rty.is_void() {
            db.ret(None);
        } else {
            db.ret(Some(db.zero(rty)));
        }
        let tape = self
            .sweep
            .rev_tape
            .expect("a split reverse function has a tape");
        self.sweep.top.position_at_end(entry);
        let null = self.sweep.top.zero(tape.ty());
        let is_null = self.sweep.top.icmp(LLVMIntPredicate::LLVMIntEQ, tape, null);
        self.sweep.top.cond_br(is_null, none, dispatch);
        let br = entry.terminator().expect("just built");
        self.sweep.top.position_before(br);
    }

    /// The release function's reverse block of `blk`: the frees of its
    /// instructions, backwards, then on to the predecessor it came from.
    pub(super) fn release_block(&mut self, blk: Block<'m>, ret_block: Block<'m>) {
        for i in blk.instructions().iter().rev() {
            if i.opcode() == Some(LLVMOpcode::LLVMPHI) || Some(*i) == blk.terminator() {
                continue;
            }
            self.release_instruction(*i);
        }
        if let Some(inv) = crate::synth::unwind::invoke_completed_into(&self.facts.cfg, blk) {
            self.release_instruction(inv);
        }
        self.reverse_phis_and_branch(blk, ret_block);
    }

    fn release_instruction(&mut self, i: Inst<'m>) {
        match i.opcode() {
            Some(LLVMOpcode::LLVMAlloca) => self.reverse_alloca(i),
            Some(LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke) => {
                if let CallKind::Memory(m) = self.facts.call_kinds.get(i.as_value()) {
                    if m.allocates() || m.allocates_through().is_some() {
                        self.reverse_memory_call(i, m);
                    }
                }
            }
            _ => {}
        }
    }
}
