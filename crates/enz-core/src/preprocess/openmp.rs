//! OpenMP reductions in a form the reverse sweep can follow. Clang ends a
//! region with `reduction(...)` by `r = __kmpc_reduce_nowait(...)` (or
//! `__kmpc_reduce`) and a switch: on 1 the thread combines its private
//! copy into the shared variable (under the runtime's lock, or after the
//! runtime combined other threads' copies into it through the combiner
//! function it was given), on 2 with atomic updates, on 0 the runtime has
//! already combined the thread's copy into another's. What the runtime's
//! combiner does is out of the reverse sweep's sight, so the preprocessed
//! clone combines in the threads' own code:
//!
//! - **sums** (the atomic path is `atomicrmw fadd` only) take the atomic
//!   path: `r` becomes 2. Each thread's reverse reads the shared adjoint
//!   back; the order does not matter.
//! - **anything else** (products, max, min: the atomic path is a
//!   compare-exchange loop) combines in thread order: `for k in 0..nt {
//!   barrier; if (k == tid) combine }` with the combine-under-the-lock
//!   path as `combine`. The reverse sweep reverses that loop like any
//!   other, its barriers mirrored, so the threads' reverse combines run
//!   in the reverse order, as a product's or an extremum's adjoint needs.
//!
//! The blocking form's end (`__kmpc_end_reduce`), where the team also
//! waits, becomes a barrier.

use crate::ir::{Block, Builder, Function, Inst, LLVMIntPredicate, LLVMOpcode, Ty};
use crate::names::{OmpReduce, BARRIER, NUM_THREADS, THREAD_NUM};

/// Rewrites every reduction of `func` (see the module documentation);
/// returns whether there was one.
pub(crate) fn reductions_in_thread_code(func: Function<'_>) -> bool {
    let calls: Vec<(Inst, OmpReduce)> = func
        .blocks()
        .into_iter()
        .flat_map(|b| b.instructions())
        .filter_map(|i| {
            let kind = OmpReduce::from_callee(&i.called_function()?.name())?;
            Some((i, kind))
        })
        .collect();
    let mut changed = false;
    for (call, kind) in calls {
        let Some(switch) = selecting_switch(call) else {
            continue;
        };
        let case = |v: i64| {
            let values = switch.switch_case_values();
            let k = values.iter().position(|c| c.const_int_sext() == Some(v))?;
            switch.parent_block().successors().get(k + 1).copied()
        };
        let atomic_sums = case(2).is_some_and(|b| adds_atomically_only(b));
        if atomic_sums {
            atomic_path(call, kind);
            changed = true;
        } else if let Some(combine) = case(1) {
            changed |= in_thread_order(call, kind, switch, combine);
        }
    }
    changed
}

/// The switch on reduction call `c`'s result.
fn selecting_switch<'m>(c: Inst<'m>) -> Option<Inst<'m>> {
    c.as_value()
        .users()
        .into_iter()
        .filter_map(|u| u.as_inst())
        .find(|s| s.opcode() == Some(LLVMOpcode::LLVMSwitch))
}

/// Whether the atomic path starting at `b` combines by `atomicrmw fadd`
/// alone (sums): no compare-exchange loop in the blocks it runs through
/// before leaving the path.
fn adds_atomically_only(b: Block<'_>) -> bool {
    let mut saw_add = false;
    for i in b.instructions() {
        match i.opcode() {
            Some(LLVMOpcode::LLVMAtomicCmpXchg) => return false,
            Some(LLVMOpcode::LLVMAtomicRMW) => saw_add = true,
            _ => {}
        }
    }
    // A compare-exchange loop lives in a block of its own after the path's
    // first block; a single block of atomic adds is the sums' path.
    saw_add
        && b.successors().iter().all(|s| {
            !s.instructions()
                .iter()
                .any(|i| i.opcode() == Some(LLVMOpcode::LLVMAtomicCmpXchg))
        })
}

/// The atomic path always: the call's result becomes 2, the blocking
/// form's ends barriers.
fn atomic_path(call: Inst<'_>, kind: OmpReduce) {
    let func = call.parent_block().parent();
    let b = Builder::new(func.context());
    call.replace_all_uses_with(b.const_int(call.ty(), 2));
    call.erase();
    if kind == OmpReduce::Blocking {
        for e in calls_named(func, kind.end()) {
            barrier_instead(e);
        }
    }
}

/// `__kmpc_barrier(loc, gtid)` in place of `e(loc, gtid, ...)`.
fn barrier_instead(e: Inst<'_>) {
    let ctx = e.context();
    let b = Builder::new(ctx);
    b.position_before(e);
    b.call_named(BARRIER, barrier_type(ctx), &[e.operand(0), e.operand(1)]);
    e.erase();
}

fn barrier_type(ctx: crate::ir::Context<'_>) -> Ty<'_> {
    Ty::function(Ty::void(ctx), &[Ty::ptr(ctx), Ty::int(ctx, 32)], false)
}

fn calls_named<'m>(func: Function<'m>, name: &str) -> Vec<Inst<'m>> {
    func.blocks()
        .into_iter()
        .flat_map(|b| b.instructions())
        .filter(|i| i.called_function().is_some_and(|f| f.name() == name))
        .collect()
}

/// Combines in thread order (see the module documentation): `call`'s
/// block ends in `switch`, whose case 1 enters `combine`; the block
/// holding the end call leaves for the switch's default. Returns false,
/// changing nothing, when the form is not that.
fn in_thread_order<'m>(
    call: Inst<'m>,
    kind: OmpReduce,
    switch: Inst<'m>,
    combine: Block<'m>,
) -> bool {
    let func = call.parent_block().parent();
    let done = switch.parent_block().successors()[0];
    let ends: Vec<Inst> = calls_named(func, kind.end());
    // The end call on the combine path, its block leaving for `done`.
    let Some(end) = ends.iter().copied().find(|e| {
        let blk = e.parent_block();
        blk == combine || blk.successors() == vec![done]
    }) else {
        return false;
    };
    let tail = end.parent_block();
    if tail.successors() != vec![done]
        || done
            .instructions()
            .iter()
            .any(|i| i.opcode() == Some(LLVMOpcode::LLVMPHI))
    {
        return false;
    }
    let ctx = func.context();
    let (i32t, b) = (Ty::int(ctx, 32), Builder::new(ctx));
    let (loc, gtid) = (call.operand(0), call.operand(1));
    let head = switch.parent_block();
    let turn = head.insert_block_after("reduce.turn");
    let next = turn.insert_block_after("reduce.next");
    // Before the loop: the team's size and the thread's number.
    b.position_before(switch);
    let nt = b
        .call_named(NUM_THREADS, Ty::function(i32t, &[], false), &[])
        .as_value();
    let tid = b
        .call_named(THREAD_NUM, Ty::function(i32t, &[], false), &[])
        .as_value();
    b.br(turn);
    switch.erase();
    call.erase();
    // turn: k; barrier; k == tid ? combine : next
    b.position_at_end(turn);
    let k = b.phi(i32t, "reduce.k");
    b.call_named(BARRIER, barrier_type(ctx), &[loc, gtid]);
    let mine = b.icmp(LLVMIntPredicate::LLVMIntEQ, k.as_value(), tid);
    b.cond_br(mine, combine, next);
    // the combine path leaves for next
    let term = tail.terminator().expect("a terminated block");
    b.position_before(term);
    b.br(next);
    term.erase();
    end.erase();
    // next: k + 1 < nt ? turn : done
    b.position_at_end(next);
    let k1 = b.add(k.as_value(), b.i32(1));
    let more = b.icmp(LLVMIntPredicate::LLVMIntSLT, k1, nt);
    b.cond_br(more, turn, done);
    k.add_incoming(b.i32(0), head);
    k.add_incoming(k1, next);
    // The blocking form: the team waits at the end; other end calls (the
    // atomic path, now unreachable) too.
    for e in calls_named(func, kind.end()) {
        barrier_instead(e);
    }
    if kind == OmpReduce::Blocking {
        b.position_before(done.first_instruction().expect("a block"));
        b.call_named(BARRIER, barrier_type(ctx), &[loc, gtid]);
    }
    true
}
