//! The frees and stores a combined-mode gradient may make at the end of its
//! reverse sweep instead of where the primal makes them.
//!
//! A function that ends by writing its result through an output pointer,
//! `*err = s`, may write memory it read before (the compiler cannot tell
//! `err` from the inputs): then none of those reads can be repeated in the
//! reverse sweep, and every one is cached. Made after the reverse sweep,
//! the store changes nothing anyone sees, provided nothing after it in the
//! primal reads or writes what it may write: the final memory is the same,
//! and the reverse sweep reads memory as the primal left it before the
//! store, which is what the loads it repeats read. `writes::Rereadable`
//! then does not count it, as it does not count the deferred frees.
//!
//! A store qualifies when it is simple (neither volatile nor atomic), its
//! block is in no loop and dominates every exit (it runs exactly once on
//! every path to the reverse sweep), and whatever may run after it neither
//! loads from nor stores to memory it may write, and calls nothing but
//! functions that touch no memory but `errno` (math) or the deferred frees.

use super::calls::{CallFacts, CallKind, Direction};
use super::cfg::Cfg;
use super::loops::LoopNest;
use super::writes::{may_alias_pointers, written_by, Order};
use crate::ir::LLVMOpcode;
use crate::ir::{Function, Inst, Value};
use crate::names::MemFn;
use std::collections::HashSet;

/// The instructions of `func` that run exactly once on every path to the
/// reverse sweep: in blocks in no loop that dominate every exit.
fn once_on_every_path<'m, 'a>(
    func: Function<'m>,
    cfg: &'a Cfg<'m>,
    loops: &'a LoopNest<'m>,
) -> impl Iterator<Item = Inst<'m>> + 'a {
    func.blocks()
        .into_iter()
        .filter(|b| cfg.dominates_all_exits(*b) && loops.innermost(*b).is_none())
        .flat_map(|b| b.instructions())
}

/// The frees that run on every path, outside loops, which can wait until
/// the reverse sweep is done (combined mode): then the memory they free may
/// be re-read rather than cached.
pub(crate) fn deferrable_frees<'m>(
    func: Function<'m>,
    cfg: &Cfg<'m>,
    loops: &LoopNest<'m>,
    calls: CallFacts<'m, '_>,
) -> HashSet<Value<'m>> {
    once_on_every_path(func, cfg, loops)
        .filter(|i| {
            i.opcode() == Some(LLVMOpcode::LLVMCall)
                && matches!(
                    calls.classify(i.as_value(), Direction::Reverse),
                    CallKind::Memory(MemFn::Free | MemFn::Delete)
                )
        })
        .map(Inst::as_value)
        .collect()
}

/// What a combined-mode gradient makes at the end of its reverse sweep
/// instead of where the primal makes it: the deferrable frees and stores.
pub(crate) fn deferred_to_the_end<'m>(
    func: Function<'m>,
    cfg: &Cfg<'m>,
    loops: &LoopNest<'m>,
    calls: CallFacts<'m, '_>,
) -> HashSet<Value<'m>> {
    let frees = deferrable_frees(func, cfg, loops, calls);
    let stores = deferrable_stores(func, cfg, loops, calls, &frees);
    frees.union(&stores).copied().collect()
}

/// The stores of `func` that may be made at the end of the reverse sweep
/// (combined mode), given the calls already deferred there (`frees`).
pub(crate) fn deferrable_stores<'m>(
    func: Function<'m>,
    cfg: &Cfg<'m>,
    loops: &LoopNest<'m>,
    calls: CallFacts<'m, '_>,
    frees: &HashSet<Value<'m>>,
) -> HashSet<Value<'m>> {
    let candidates: Vec<Inst> = once_on_every_path(func, cfg, loops)
        .filter(|i| i.opcode() == Some(LLVMOpcode::LLVMStore) && i.is_simple_access())
        .collect();
    if candidates.is_empty() {
        return HashSet::new();
    }
    let order = Order::new(func);
    let insts: Vec<Inst> = func
        .blocks()
        .into_iter()
        .flat_map(|b| b.instructions())
        .collect();
    candidates
        .into_iter()
        .filter(|st| {
            let p = st.operand(1);
            insts
                .iter()
                .filter(|i| order.may_follow(*st, **i))
                .all(|i| untouched_by(*i, p, calls, frees))
        })
        .map(Inst::as_value)
        .collect()
}

/// Whether `i`, running after a store to `p`, neither reads nor writes
/// what the store may write.
fn untouched_by<'m>(
    i: Inst<'m>,
    p: Value<'m>,
    calls: CallFacts<'m, '_>,
    frees: &HashSet<Value<'m>>,
) -> bool {
    match i.opcode() {
        Some(LLVMOpcode::LLVMLoad) => !may_alias_pointers(i.operand(0), p),
        Some(LLVMOpcode::LLVMStore) => !may_alias_pointers(i.operand(1), p),
        Some(LLVMOpcode::LLVMCall) => {
            if frees.contains(&i.as_value()) {
                return true;
            }
            let kind = calls.classify(i.as_value(), Direction::Reverse);
            let reads_nothing = matches!(kind, CallKind::Math(_))
                || i.called_function().is_some_and(|f| f.accesses_only_errno());
            reads_nothing && written_by(i, || kind).spares(p)
        }
        Some(
            LLVMOpcode::LLVMInvoke
            | LLVMOpcode::LLVMAtomicRMW
            | LLVMOpcode::LLVMAtomicCmpXchg
            | LLVMOpcode::LLVMFence
            | LLVMOpcode::LLVMVAArg,
        ) => false,
        _ => true,
    }
}
