//! Invokes in derivatives: the forward sweep (or tangent function) is built
//! on calls, and each call that was an `invoke` in the primal unwinds to
//! its landing pad again once the derivative is complete.
//!
//! ```text
//!   primal:   P: invoke g() to N unwind U        N: one predecessor (P)
//!   building: P': call g'() ; br N'               U' kept, no predecessor
//!   done:     P': invoke g'() to cont unwind U'   cont: what followed the call
//! ```
//!
//! A call that throws thus runs the primal's cleanups and handlers in the
//! forward sweep. The reverse sweep of an invoke belongs to its normal
//! edge (preprocessing gives every invoke a normal destination of its
//! own): coming back from the landing pad, the call threw, and it has no
//! reverse sweep. An exception that leaves the function leaves the
//! derivative too: its reverse sweep is not run.

use crate::analysis::cfg::Cfg;
use crate::ir::{Block, Function, Inst, ValueMap};

/// A forward call that was an invoke: the call, the block it was built in
/// (the landing pad's phis name it) and the landing pad.
pub(crate) type Detached<'m> = (Inst<'m>, Block<'m>, Block<'m>);

/// Turns the invokes of `prep`'s clone (through `map`) into calls, mapping
/// each primal invoke to its call.
pub(crate) fn detach_invokes<'m>(prep: Function<'m>, map: &mut ValueMap<'m>) -> Vec<Detached<'m>> {
    let mut out = Vec::new();
    for b in prep.blocks() {
        let Some(inv) = b.terminator().filter(|t| t.is_invoke()) else {
            continue;
        };
        let (call, unwind) = map.inst(inv).detach_unwind_edge();
        map.insert(inv, call);
        out.push((call, call.parent_block(), unwind));
    }
    out
}

/// The forward call `old` was replaced by `new` (a call of a derivative).
pub(crate) fn replaced_call<'m>(detached: &mut [Detached<'m>], old: Inst<'m>, new: Inst<'m>) {
    for d in detached.iter_mut().filter(|d| d.0 == old) {
        d.0 = new;
    }
}

/// A detached call made an invoke again: the call (erased: a key for
/// comparison only), the invoke, and the block of what followed the call.
pub(crate) struct Reattached<'m> {
    pub(crate) call: Inst<'m>,
    pub(crate) invoke: Inst<'m>,
    pub(crate) cont: Block<'m>,
}

/// Makes each detached call an invoke of its landing pad again.
pub(crate) fn reattach_invokes<'m>(detached: Vec<Detached<'m>>) -> Vec<Reattached<'m>> {
    let mut out = Vec::new();
    for (call, built_in, unwind) in detached {
        let now_in = call.parent_block();
        let invoke = call.call_into_invoke(unwind);
        if now_in != built_in {
            unwind.redirect_phi_incoming(built_in, now_in);
        }
        let cont = invoke.normal_dest();
        out.push(Reattached { call, invoke, cont });
    }
    out
}

/// Maps each invoke of `prep` whose clone (through `map`) was a detached
/// call to the invoke that call became; the blocks made by
/// [`reattach_invokes`] (what followed each call), by the block of their
/// invoke.
pub(crate) fn remap_reattached<'m>(
    prep: Function<'m>,
    map: &mut ValueMap<'m>,
    reattached: &[Reattached<'m>],
) -> std::collections::HashMap<Block<'m>, Block<'m>> {
    let mut conts = std::collections::HashMap::new();
    for r in reattached {
        conts.insert(r.invoke.parent_block(), r.cont);
    }
    for b in prep.blocks() {
        let Some(inv) = b.terminator().filter(|t| t.is_invoke()) else {
            continue;
        };
        if let Some(r) = reattached
            .iter()
            .find(|r| map.get(inv) == r.call.as_value())
        {
            map.insert(inv, r.invoke);
        }
    }
    conts
}

/// The primal invoke whose normal edge is `blk` (its only predecessor
/// ends with an invoke to it).
pub(crate) fn invoke_completed_into<'m>(cfg: &Cfg<'m>, blk: Block<'m>) -> Option<Inst<'m>> {
    match cfg.unique_preds(blk).as_slice() {
        [p] => p
            .terminator()
            .filter(|t| t.is_invoke() && t.normal_dest() == blk),
        _ => None,
    }
}
