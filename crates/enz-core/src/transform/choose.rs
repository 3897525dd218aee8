//! The run-time choice between a checkpointed loop's two forms: where a
//! bound on what running it plainly caches is computable before it
//! (`analysis::checkpoint::Estimate`), the loop stays in its function
//! beside the call of its driver, and the bound, against half the cache
//! budget, picks one each time the loop is reached. A loop that fits then
//! runs as it would without a budget (its caches allocated once, its body
//! inlined and optimised with the rest), and only one that may not pays
//! for the outlined body's calls and saved states.

use super::checkpoint::Recompute;
use crate::analysis::checkpoint::{Candidate, Estimate, StoreRange};
use crate::analysis::overlap::OverlapCheck;
use crate::ir::{
    add_internal_function, named_function, Block, Builder, LLVMIntPredicate, Ty, Value,
};
use crate::names::MACHINE_CACHE_BUDGET;
use crate::options::CacheBudget;
use std::collections::HashMap;

/// Bytes of an iteration of the time loop beyond its blocks' values (the
/// driver's own allowance for tape and bookkeeping).
const ITERATION_OVERHEAD: i64 = 64;

/// Under the machine's budget, a time loop whose trip count is known only
/// as it runs is checkpointed when its bound on one iteration's caches is
/// above this: a loop over a state that large is one whose caches can
/// outgrow memory, and the outlined body's cost per iteration (a call,
/// a tape) is small next to such an iteration's work.
pub(super) const PLAIN_ITERATION_BYTES: i64 = 64 << 10;

/// Whether the choice can be made before the loop under `budget`: from
/// the whole loop's bound, or (the machine's budget only: an explicit one
/// is a promise) from one iteration's.
pub(super) fn can_choose(est: &Estimate<'_>, budget: CacheBudget) -> bool {
    est.time.is_some() || budget == CacheBudget::Machine
}

/// Builds, with `b` (before the loop), whether the loop of `cand` runs
/// plainly: its estimate (saturating at 2^64 - 1) is at most half of
/// `budget`; without a trip count known before it, one iteration's is at
/// most [`PLAIN_ITERATION_BYTES`]. `inside` says which blocks are the
/// loop's.
pub(super) fn runs_plainly<'m>(
    b: &Builder<'m>,
    est: &Estimate<'m>,
    cand: &Candidate<'m>,
    inside: &dyn Fn(Block<'m>) -> bool,
    budget: crate::options::CacheBudget,
) -> Value<'m> {
    let i64t = Ty::int(b.ctx(), 64);
    let c = |v: i64| b.const_int(i64t, v);
    let mut r = Recompute {
        b,
        map: HashMap::new(),
        inside,
        choices: &cand.choices,
        finals: &cand.finals,
        in_place: true,
    };
    let mut per = c(ITERATION_OVERHEAD);
    for (bytes, trips) in &est.weights {
        let mut w = c(*bytes as i64);
        for t in trips {
            let n = r.iterations(t);
            w = saturating_mul(b, w, n);
        }
        per = saturating_add(b, per, w);
    }
    let Some(time) = &est.time else {
        return b.icmp(LLVMIntPredicate::LLVMIntULE, per, c(PLAIN_ITERATION_BYTES));
    };
    let time = r.trips(time);
    let total = saturating_mul(b, per, time);
    let half = match budget {
        CacheBudget::Bytes(n) => c((n / 2).min(i64::MAX as u64) as i64),
        CacheBudget::Machine | CacheBudget::Off => b.udiv(machine_cache_budget(b), c(2)),
    };
    b.icmp(LLVMIntPredicate::LLVMIntULE, total, half)
}

/// The bound of `est` for `--explain`.
pub(super) fn bound(est: &Estimate<'_>) -> crate::explain::PlainBound {
    crate::explain::PlainBound {
        terms: est
            .weights
            .iter()
            .map(|(bytes, trips)| (*bytes, trips.len()))
            .collect(),
        per_iteration_limit: est.time.is_none().then_some(PLAIN_ITERATION_BYTES as u64),
    }
}

/// `x · y`, unsigned, 2^64 - 1 when it overflows.
fn saturating_mul<'m>(b: &Builder<'m>, x: Value<'m>, y: Value<'m>) -> Value<'m> {
    use LLVMIntPredicate::*;
    let i64t = Ty::int(b.ctx(), 64);
    let max = b.const_int(i64t, -1);
    let zero = b.const_int(i64t, 0);
    let divisor = b.select(b.icmp(LLVMIntEQ, y, zero), b.const_int(i64t, 1), y);
    let over = b.icmp(LLVMIntUGT, x, b.udiv(max, divisor));
    b.select(over, max, b.mul(x, y))
}

/// `x + y`, unsigned, 2^64 - 1 when it overflows.
fn saturating_add<'m>(b: &Builder<'m>, x: Value<'m>, y: Value<'m>) -> Value<'m> {
    let i64t = Ty::int(b.ctx(), 64);
    let s = b.add(x, y);
    let over = b.icmp(LLVMIntPredicate::LLVMIntULT, s, x);
    b.select(over, b.const_int(i64t, -1), s)
}

/// A call of `__enz_machine_cache_budget()`: the machine's cache budget
/// (`--cache-budget auto`), half the physical memory of the machine
/// running the gradient
/// (`sysconf(_SC_PHYS_PAGES) * sysconf(_SC_PAGESIZE) / 2` on Linux and
/// macOS, whose `sysconf` names differ), 1 GiB where that is not known.
pub(crate) fn machine_cache_budget<'m>(b: &Builder<'m>) -> Value<'m> {
    let module = b.insert_block().parent().global_parent();
    let ctx = b.ctx();
    let i64t = Ty::int(ctx, 64);
    let fty = Ty::function(i64t, &[], false);
    if let Some(f) = named_function(module, MACHINE_CACHE_BUDGET) {
        return b.call(fty, f.as_value(), &[]).as_value();
    }
    let f = add_internal_function(module, MACHINE_CACHE_BUDGET, fty);
    let fb = Builder::new(ctx);
    fb.position_at_end(f.append_block("entry"));
    let triple = crate::ir::module_triple(module);
    // (_SC_PHYS_PAGES, _SC_PAGESIZE)
    let names = if triple.contains("linux") {
        Some((85, 30))
    } else if triple.contains("apple") {
        Some((200, 29))
    } else {
        None
    };
    let fallback = fb.const_int(i64t, 1 << 30);
    let r = match names {
        None => fallback,
        Some((pages, size)) => {
            let i32t = Ty::int(ctx, 32);
            let sty = Ty::function(i64t, &[i32t], false);
            let p = fb
                .call_named("sysconf", sty, &[fb.const_int(i32t, pages)])
                .as_value();
            let s = fb
                .call_named("sysconf", sty, &[fb.const_int(i32t, size)])
                .as_value();
            let zero = fb.const_int(i64t, 0);
            let known = fb.and(
                fb.icmp(LLVMIntPredicate::LLVMIntSGT, p, zero),
                fb.icmp(LLVMIntPredicate::LLVMIntSGT, s, zero),
            );
            let half = fb.udiv(fb.mul(p, s), fb.const_int(i64t, 2));
            fb.select(known, half, fallback)
        }
    };
    fb.ret(Some(r));
    b.call(fty, f.as_value(), &[]).as_value()
}

/// Builds, with `b` (before the loop of `cand`), whether the ranges of
/// its overlap check (`analysis::overlap`) overlap: one of the loop's
/// reads and one of the writes after it share a byte (both ranges
/// non-empty), so that the loop must run plainly. `inside` says which
/// blocks are the loop's or a later loop's the check computes from.
pub(super) fn overlaps<'m>(
    b: &Builder<'m>,
    check: &OverlapCheck<'m>,
    cand: &Candidate<'m>,
    inside: &dyn Fn(Block<'m>) -> bool,
) -> Value<'m> {
    use LLVMIntPredicate::*;
    let i64t = Ty::int(b.ctx(), 64);
    let i1 = Ty::int(b.ctx(), 1);
    let mut choices = cand.choices.clone();
    choices.extend(check.choices.iter().map(|(k, v)| (*k, v.clone())));
    let mut finals = cand.finals.clone();
    finals.extend(check.finals.iter().map(|(k, v)| (*k, *v)));
    let mut r = Recompute {
        b,
        map: HashMap::new(),
        inside,
        choices: &choices,
        finals: &finals,
        in_place: true,
    };
    // Each range as [lo, hi) addresses, per root.
    let spans = |r: &mut Recompute<'m, '_>, st: &StoreRange<'m>| {
        let (lo, hi) = super::checkpoint::store_offsets(r, st);
        st.roots
            .iter()
            .map(|root| {
                let at = b.ptr_to_int(r.value(*root), i64t);
                (b.add(at, lo), b.add(at, hi))
            })
            .collect::<Vec<_>>()
    };
    let mut any = b.const_int(i1, 0);
    for (read, write) in &check.pairs {
        let reads = spans(&mut r, read);
        let writes = spans(&mut r, write);
        for (rl, rh) in &reads {
            for (wl, wh) in &writes {
                let both = b.and(b.icmp(LLVMIntULT, *rl, *rh), b.icmp(LLVMIntULT, *wl, *wh));
                let meet = b.and(b.icmp(LLVMIntULT, *rl, *wh), b.icmp(LLVMIntULT, *wl, *rh));
                let hit = b.and(both, meet);
                any = b.select(any, b.const_int(i1, 1), hit);
            }
        }
    }
    any
}
