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
//!
//! Also, in the function that forks a region: a float the fork passes by
//! value (a `firstprivate` double, bits in an `i64`) is passed through a
//! pointer to a slot of the forking function instead, to a microtask
//! that loads it there and calls the original
//! ([`floats_by_reference`]): the fork's arguments are then pointers, whose
//! shadows carry the float's adjoint (every thread's adds to the slot's
//! shadow, atomically), and no float travels inside an integer.

use crate::analysis::calls::team_microtask;
use crate::ir::{add_internal_function, named_function, TyKind, Value};
use crate::ir::{Block, Builder, Function, Inst, LLVMIntPredicate, LLVMOpcode, Ty};
use crate::names::{by_reference_name, OmpReduce, BARRIER, NUM_THREADS, THREAD_NUM};

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

/// Rewrites every fork of `func` that passes a float by value (`bitcast
/// double %v to i64`) to pass a pointer to a slot holding `%v`, to the
/// microtask [`by_reference_name`] (see the module documentation);
/// returns whether there was one.
pub(crate) fn floats_by_reference(func: Function<'_>) -> bool {
    let forks: Vec<Inst> = func
        .blocks()
        .into_iter()
        .flat_map(|b| b.instructions())
        .filter(|i| team_microtask(i.as_value()).is_some())
        .collect();
    let mut changed = false;
    for fork in forks {
        let by_value: Vec<u32> = (3..fork.call_num_args())
            .filter(|k| float_bits(fork, fork.operand(*k)).is_some())
            .collect();
        if by_value.is_empty() {
            continue;
        }
        let microtask = team_microtask(fork.as_value()).expect("a fork");
        let Some(wrapper) = by_reference_microtask(microtask, &by_value) else {
            continue;
        };
        let b = Builder::new(func.context());
        for k in &by_value {
            let slot = match float_bits(fork, fork.operand(*k)).expect("checked") {
                FloatBits::Slot(p) => p,
                FloatBits::Value(float) => {
                    b.position_before(func.entry_block().first_instruction().expect("an entry"));
                    let slot = b.alloca(float.ty(), "firstprivate");
                    b.position_before(fork);
                    b.store(float, slot);
                    slot
                }
            };
            fork.set_operand(*k, slot);
        }
        fork.set_operand(2, wrapper.as_value());
        changed = true;
    }
    changed
}

/// Where the bits of a double passed as an `i64` come from.
enum FloatBits<'m> {
    /// `bitcast double %f to i64`: the double.
    Value(Value<'m>),
    /// `load i64, ptr %p` of a stack slot a double was stored to, just
    /// before the fork (-O0): the slot.
    Slot(Value<'m>),
}

/// The double whose bits `v`, an argument of `fork`, is, if it is.
fn float_bits<'m>(fork: Inst<'m>, v: Value<'m>) -> Option<FloatBits<'m>> {
    if v.ty().int_width() != Some(64) {
        return None;
    }
    match v.opcode()? {
        LLVMOpcode::LLVMBitCast => {
            let f = v.operand(0);
            (f.ty().kind() == TyKind::Double).then_some(FloatBits::Value(f))
        }
        LLVMOpcode::LLVMLoad => {
            let slot = v.operand(0);
            let load = v.as_inst()?;
            let holds_double = slot.opcode() == Some(LLVMOpcode::LLVMAlloca)
                && slot.users().into_iter().any(|u| {
                    u.opcode() == Some(LLVMOpcode::LLVMStore)
                        && u.operand(1) == slot
                        && u.operand(0).ty().kind() == TyKind::Double
                });
            // Nothing between the load and the fork may change the slot.
            let insts = fork.parent_block().instructions();
            let (at, from) = (
                insts.iter().position(|i| *i == fork)?,
                insts.iter().position(|i| *i == load)?,
            );
            let untouched = insts[from + 1..at].iter().all(|i| {
                !matches!(
                    i.opcode(),
                    Some(LLVMOpcode::LLVMStore | LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke)
                )
            });
            (holds_double && untouched).then_some(FloatBits::Slot(slot))
        }
        _ => None,
    }
}

/// `m.floats_by_reference(&gtid, &btid, ...)`: `microtask` with the
/// parameters at fork operands `by_value` (parameter = operand - 1) taken
/// as pointers to the float whose bits they were.
fn by_reference_microtask<'m>(microtask: Function<'m>, by_value: &[u32]) -> Option<Function<'m>> {
    let module = microtask.global_parent();
    let suffix: Vec<String> = by_value.iter().map(|k| (k - 1).to_string()).collect();
    let name = by_reference_name(&format!("{}.{}", microtask.name(), suffix.join("_")));
    if let Some(f) = named_function(module, &name) {
        return Some(f);
    }
    let ctx = microtask.context();
    let fty = microtask.function_type();
    let params = microtask.params();
    let by_reference = |k: usize| by_value.contains(&(k as u32 + 1));
    let mut types = Vec::new();
    for (k, p) in params.iter().enumerate() {
        if by_reference(k) {
            if p.ty().int_width() != Some(64) {
                return None;
            }
            types.push(Ty::ptr(ctx));
        } else {
            types.push(p.ty());
        }
    }
    if !fty.return_type().is_void() {
        return None;
    }
    let f = add_internal_function(module, &name, Ty::function(Ty::void(ctx), &types, false));
    let b = Builder::new(ctx);
    b.position_at_end(f.append_block("entry"));
    let args: Vec<Value> = f
        .params()
        .iter()
        .enumerate()
        .map(|(k, p)| {
            if by_reference(k) {
                let double = Ty::double(ctx);
                b.bit_cast(b.load(double, *p), params[k].ty())
            } else {
                *p
            }
        })
        .collect();
    b.call(fty, microtask.as_value(), &args);
    b.ret(None);
    debug_assert!(f
        .params()
        .iter()
        .all(|p| p.ty().kind() == TyKind::Pointer || p.ty().is_integer()));
    Some(f)
}
