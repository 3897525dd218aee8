//! Loops that repeat one computation: every iteration computes the same
//! values from memory the loop does not change and writes them to the
//! same places, so running the body `n >= 1` times leaves what running it
//! once leaves (LULESH's `EvalEOSForElems` repeats its equation of state
//! `rep` times to model an expensive material).
//!
//! For the derivative only the last iteration counts: what the earlier
//! ones write is written again by it before anything reads it, and what
//! it reads it wrote itself or nobody in the loop writes. The transform
//! (`transform/repeated.rs`) runs the earlier iterations as primal code
//! only, and differentiates one iteration, caching nothing per repetition.
//!
//! A loop qualifies when, by induction over iterations, each computes the
//! same as the first:
//! - its only exit is the latch, with an exact trip count, and its only
//!   header phi is that induction variable, used by nothing but the
//!   increment and the exit test (no value is carried from one iteration
//!   to the next, and none depends on which iteration it is);
//! - it holds only arithmetic, memory accesses, branches and calls of
//!   maths, `malloc`/`free` and `memset`/`memcpy` (no other call, no
//!   volatile or atomic access, no stack allocation);
//! - every write goes into an object from before the loop that a value it
//!   reads points to (so a function taking those values can make the
//!   writes) or into a block allocated in the loop that does not escape
//!   (only addressed and freed), and what it frees was allocated in it;
//! - every read is of memory nothing in the loop writes, of a block the
//!   same iteration allocated, or of an address a store earlier in the
//!   same iteration wrote: a store dominating it in the same innermost
//!   loop through the same pointer, or a store on every iteration of an
//!   earlier sibling loop that writes `base[iv]` where the reading loop
//!   reads `base[iv']` (same base, same trips, induction variables of the
//!   same start and step).

use crate::analysis::addresses::{
    address_uses, is_marker_intrinsic, memory_fn, precedes, AddressUse,
};
use crate::analysis::calls::{classify_callee, CallKind, Direction};
use crate::analysis::cfg::Cfg;
use crate::analysis::loops::{LoopId, LoopNest};
use crate::analysis::sibling_loops::{
    indexed, matching_ivs, same_gep_type, same_trips, siblings, unique_exit,
};
use crate::analysis::trips::ExactExit;
use crate::analysis::writes::{may_alias_pointers, roots};
use crate::ir::{Block, Function, Inst, LLVMOpcode, Value};
use std::collections::{HashMap, HashSet};

/// A loop whose iterations all compute the same (see the module
/// documentation).
pub(crate) struct Repeated<'m> {
    pub(crate) lp: LoopId,
    /// Its exact exit (the trip count the earlier iterations take).
    pub(crate) exit: ExactExit<'m>,
    /// Its induction variable.
    pub(crate) iv: Inst<'m>,
    /// The block its latch leaves to.
    pub(crate) exit_block: Block<'m>,
}

/// The outermost loops of `func` that repeat one computation.
pub(crate) fn repeated_loops<'m>(
    func: Function<'m>,
    cfg: &Cfg<'m>,
    loops: &LoopNest<'m>,
) -> Vec<Repeated<'m>> {
    let mut found: Vec<Repeated<'m>> = Vec::new();
    let mut ids: Vec<LoopId> = loops.ids().collect();
    ids.sort_by_key(|l| loops.chain(loops.get(*l).header).len());
    let escaping = Escapes::new(func);
    for l in ids {
        let header = loops.get(l).header;
        if found.iter().any(|r| loops.contains(r.lp, header)) {
            continue;
        }
        if let Some(r) = check(cfg, loops, l, &escaping) {
            found.push(r);
        }
    }
    found
}

/// Which allocations of a function do not escape: their address is only
/// used to access, compare, set, copy or free memory.
struct Escapes<'m> {
    kept: HashSet<Value<'m>>,
}

impl<'m> Escapes<'m> {
    fn new(func: Function<'m>) -> Escapes<'m> {
        let mut kept = HashSet::new();
        for b in func.blocks() {
            for i in b.instructions() {
                let is_alloc = memory_fn(i).is_some_and(|m| {
                    m.allocates()
                        && m != crate::names::MemFn::Realloc
                        && m.allocates_through().is_none()
                });
                if is_alloc && !escapes(i.as_value()) {
                    kept.insert(i.as_value());
                }
            }
        }
        Escapes { kept }
    }

    /// Whether pointers with these roots may point into the same object.
    fn may_alias(&self, a: &HashSet<Value<'m>>, b: &HashSet<Value<'m>>) -> bool {
        a.iter().any(|x| {
            b.iter().any(|y| {
                if x == y {
                    return true;
                }
                // A block whose address never escapes is reached only
                // through that address.
                if self.kept.contains(x) || self.kept.contains(y) {
                    return false;
                }
                may_alias_pointers(*x, *y)
            })
        })
    }
}

/// Whether pointer `p` (an allocation) may be stored, passed on or
/// turned into an integer: any use but as the address of an access, in a
/// comparison, or as the pointer a memory function sets, copies or frees.
fn escapes(p: Value<'_>) -> bool {
    let Some(uses) = address_uses(p, true) else {
        return true;
    };
    uses.iter()
        .any(|AddressUse { user, address }| match user.opcode() {
            Some(LLVMOpcode::LLVMLoad | LLVMOpcode::LLVMICmp) => false,
            Some(LLVMOpcode::LLVMStore) => user.operand(0) == *address,
            Some(LLVMOpcode::LLVMCall) => {
                !(memory_fn(*user).is_some_and(|m| m.frees() || m.sets() || m.transfers())
                    || user
                        .called_function()
                        .is_some_and(|f| is_marker_intrinsic(&f.name())))
            }
            _ => true,
        })
}

/// What one instruction of the loop does to memory.
enum Access<'m> {
    None,
    /// Reads through the pointer.
    Read(Value<'m>),
    /// Writes through the pointer.
    Write(Value<'m>),
    /// Copies: writes the first, reads the second.
    Copy(Value<'m>, Value<'m>),
    /// Allocates a block.
    Allocate,
    /// Frees what the pointer points to.
    Free(Value<'m>),
}

/// What instruction `i` does to memory; `None` for what the loop may not
/// hold.
fn access<'m>(i: Inst<'m>) -> Option<Access<'m>> {
    use LLVMOpcode::*;
    Some(match i.opcode()? {
        LLVMLoad if i.is_simple_access() => Access::Read(i.operand(0)),
        LLVMStore if i.is_simple_access() => Access::Write(i.operand(1)),
        LLVMCall => {
            let f = i.called_function()?;
            let name = f.name();
            if is_marker_intrinsic(&name) {
                return Some(Access::None);
            }
            if let Some(m) = memory_fn(i) {
                if m.allocates()
                    && m != crate::names::MemFn::Realloc
                    && m.allocates_through().is_none()
                {
                    return Some(Access::Allocate);
                }
                if m.frees() && m != crate::names::MemFn::Realloc {
                    return Some(Access::Free(i.operand(0)));
                }
                if m.sets() {
                    return Some(Access::Write(i.operand(0)));
                }
                if m.transfers() {
                    return Some(Access::Copy(i.operand(0), i.operand(1)));
                }
                return None;
            }
            let no_rules = HashMap::new();
            let none = HashSet::new();
            // Functions of their scalar arguments (frexp's exponent,
            // sincos's results go through pointers: not these).
            let scalars = (0..i.call_num_args())
                .all(|k| i.operand(k).ty().kind() != crate::ir::TyKind::Pointer);
            let pure = match classify_callee(f, Direction::Reverse, &none, &no_rules) {
                CallKind::Math(_) => scalars,
                CallKind::Intrinsic(g) | CallKind::External(g) => {
                    scalars && g.accesses_only_errno()
                }
                _ => false,
            };
            if !pure {
                return None;
            }
            Access::None
        }
        LLVMLoad | LLVMStore | LLVMAlloca | LLVMInvoke | LLVMAtomicRMW | LLVMAtomicCmpXchg
        | LLVMFence | LLVMVAArg | LLVMLandingPad | LLVMResume | LLVMCallBr | LLVMIndirectBr
        | LLVMCatchPad | LLVMCleanupPad | LLVMCatchSwitch | LLVMCatchRet | LLVMCleanupRet
        | LLVMRet => return None,
        _ => Access::None,
    })
}

/// Loop `l` if it repeats one computation.
fn check<'m>(
    cfg: &Cfg<'m>,
    loops: &LoopNest<'m>,
    l: LoopId,
    escaping: &Escapes<'m>,
) -> Option<Repeated<'m>> {
    let lp = loops.get(l);
    let exit = loops.exact_exit(l)?;
    let exit_block = unique_exit(loops, l)?;
    if exit.step == 0 {
        return None;
    }
    // The header's only phi: the induction variable, used by its
    // increment and the exit test alone.
    let phis: Vec<Inst> = lp
        .header
        .instructions()
        .into_iter()
        .take_while(|i| i.opcode() == Some(LLVMOpcode::LLVMPHI))
        .collect();
    let [iv] = phis[..] else {
        return None;
    };
    let next = iv
        .incoming()
        .into_iter()
        .find(|(_, b)| *b == lp.latch)
        .map(|(v, _)| v)?;
    let test = lp.latch.terminator()?.operand(0);
    let only_counts =
        |v: Value<'m>, allowed: &[Value<'m>]| v.users().iter().all(|u| allowed.contains(u));
    if !only_counts(iv.as_value(), &[next, test]) || !only_counts(next, &[iv.as_value(), test]) {
        return None;
    }
    if test.users().len() != 1 {
        return None;
    }
    let inside = |v: Value<'m>| v.block_of().is_some_and(|b| lp.blocks.contains(&b));
    let live_in = |v: Value<'m>| v.is_argument() || v.is_instruction() && !inside(v);

    let mut allocated: HashSet<Value<'m>> = HashSet::new();
    let mut accesses: Vec<(Inst<'m>, Access<'m>)> = Vec::new();
    for b in &lp.ordered {
        for i in b.instructions() {
            let a = access(i)?;
            if let Access::Allocate = a {
                if !escaping.kept.contains(&i.as_value()) {
                    return None;
                }
                allocated.insert(i.as_value());
            }
            accesses.push((i, a));
        }
    }
    // What the loop writes, by root.
    let mut written: Vec<HashSet<Value<'m>>> = Vec::new();
    for (_, a) in &accesses {
        let dest = match a {
            Access::Write(p) | Access::Copy(p, _) => *p,
            Access::Free(p) => {
                if !roots(*p).iter().all(|r| allocated.contains(r)) {
                    return None;
                }
                continue;
            }
            _ => continue,
        };
        let rs = roots(dest);
        if !rs.iter().all(|r| allocated.contains(r) || live_in(*r)) {
            return None;
        }
        written.push(rs);
    }
    for (i, a) in &accesses {
        let src = match a {
            Access::Read(p) | Access::Copy(_, p) => *p,
            _ => continue,
        };
        let rs = roots(src);
        if rs.iter().all(|r| allocated.contains(r)) {
            continue;
        }
        if !written.iter().any(|w| escaping.may_alias(&rs, w)) {
            continue;
        }
        let covered = matches!(a, Access::Read(_))
            && (covered(cfg, loops, l, *i, &accesses)
                || fresh_block_written_only_here(loops, l, &rs, escaping));
        if !covered {
            return None;
        }
    }
    Some(Repeated {
        lp: l,
        exit,
        iv,
        exit_block,
    })
}

/// Whether load `ld` reads an address a store of the same iteration of
/// loop `l` wrote before it (see the module documentation).
fn covered<'m>(
    cfg: &Cfg<'m>,
    loops: &LoopNest<'m>,
    l: LoopId,
    ld: Inst<'m>,
    accesses: &[(Inst<'m>, Access<'m>)],
) -> bool {
    let lb = ld.parent_block();
    let Some(inner) = loops.innermost(lb) else {
        return false;
    };
    let stores = accesses.iter().filter_map(|(i, a)| match a {
        Access::Write(_) if i.opcode() == Some(LLVMOpcode::LLVMStore) => Some(*i),
        _ => None,
    });
    for st in stores {
        if st.operand(0).ty() != ld.ty() {
            continue;
        }
        let sb = st.parent_block();
        // Earlier in the same iteration of the same innermost loop.
        if st.operand(1) == ld.operand(0) && loops.innermost(sb) == Some(inner) {
            let before = if sb == lb {
                precedes(st, ld)
            } else {
                cfg.dominates(sb, lb)
            };
            if before {
                return true;
            }
        }
        // On every iteration of an earlier sibling loop, at the same index.
        let Some(ls) = loops.innermost(sb) else {
            continue;
        };
        if ls == inner || ls == l || !loops.contains(l, loops.get(ls).header) {
            continue;
        }
        if !siblings(loops, ls).contains(&inner) || !cfg.dominates(sb, loops.get(ls).latch) {
            continue;
        }
        let (Some(trips), Some(exit)) = (loops.exact_exit(ls), unique_exit(loops, ls)) else {
            continue;
        };
        if !same_trips(loops.exact_exit(inner), trips)
            || !cfg.dominates(exit, loops.get(inner).preheader)
        {
            continue;
        }
        let (Some((base_s, iv_s)), Some((base_l, iv_l))) = (
            indexed(loops, ls, st.operand(1)),
            indexed(loops, inner, ld.operand(0)),
        ) else {
            continue;
        };
        if base_s != base_l || !same_gep_type(st.operand(1), ld.operand(0)) {
            continue;
        }
        if matching_ivs(loops, ls, inner).get(&iv_s) == Some(&iv_l) {
            return true;
        }
    }
    false
}

/// Whether the load's only root is a block allocated uninitialised
/// before loop `l` (`malloc`, `new`), whose address does not escape, and
/// that nothing but `l` writes. The first iteration can read of it only
/// what it wrote itself earlier (else it would read uninitialised
/// memory); every iteration takes the same path and writes the same
/// addresses, so each later one reads what it wrote itself too, whatever
/// the shape of the loops doing it (unrolled, with remainders).
fn fresh_block_written_only_here<'m>(
    loops: &LoopNest<'m>,
    l: LoopId,
    rs: &HashSet<Value<'m>>,
    escaping: &Escapes<'m>,
) -> bool {
    let [block] = rs.iter().copied().collect::<Vec<_>>()[..] else {
        return false;
    };
    let Some(alloc) = block.as_inst() else {
        return false;
    };
    let uninitialised = matches!(
        memory_fn(alloc),
        Some(crate::names::MemFn::Malloc | crate::names::MemFn::New)
    );
    if !uninitialised || !escaping.kept.contains(&block) || loops.contains(l, alloc.parent_block())
    {
        return false;
    }
    // Every write into it, through the addresses derived from it.
    let Some(uses) = address_uses(block, true) else {
        return false;
    };
    uses.iter().all(|AddressUse { user, address }| {
        let writes = match user.opcode() {
            Some(LLVMOpcode::LLVMStore) => user.operand(1) == *address,
            Some(LLVMOpcode::LLVMCall) => match memory_fn(*user) {
                Some(m) if m.frees() => false,
                Some(m) if m.sets() || m.transfers() => user.operand(0) == *address,
                _ => user
                    .called_function()
                    .is_none_or(|f| !is_marker_intrinsic(&f.name())),
            },
            _ => false,
        };
        !writes || loops.contains(l, user.parent_block())
    })
}
