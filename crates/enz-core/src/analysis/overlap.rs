//! Versioning a checkpoint candidate on a run-time overlap check.
//!
//! A time loop is checkpointed only if nothing after it writes memory it
//! reads: its segments run again in the reverse sweep, after that code,
//! and must read what they read the first time (`analysis/checkpoint.rs`).
//! Often the only such writes go through a pointer argument the compiler
//! cannot tell from the state (`*out = s`, or `out[j] = ...` in a later
//! loop, where a combined gradient cannot defer the store to after its
//! reverse sweep: it is read again, or the gradient is a split pair). When
//! every such write is a simple store whose bytes are a range computable
//! before the time loop (a pointer from before it plus an offset affine in
//! the iterations of the later loops around the store, their trip counts
//! known before the time loop), and every load of the loop it may write
//! reads a range computable before the loop too, whether they overlap is
//! decided at run time: [`OverlapCheck`] holds the pairs of ranges, and
//! the transform keeps the loop beside its checkpointed form, running the
//! plain loop when one pair overlaps (its caches then grow with its trip
//! count, as any loop's; an explicit budget's report says so).

use super::checkpoint::{Cond, Final, Finder, Linear, StoreRange};
use crate::ir::{Block, Inst, LLVMOpcode, TyKind, Value};
use std::collections::{HashMap, HashSet};

/// At most this many pairs of ranges are compared (each a few
/// instructions before the loop); more, and the loop is refused.
const MAX_PAIRS: usize = 256;

/// The run-time check versioning a checkpoint candidate: the
/// checkpointed form runs when no pair of ranges overlaps.
#[derive(Debug, Default)]
pub(crate) struct OverlapCheck<'m> {
    /// (bytes a load of the loop reads over the loop, bytes a store after
    /// it writes): each pair may overlap only if those objects may be one.
    pub(crate) pairs: Vec<(StoreRange<'m>, StoreRange<'m>)>,
    /// Phis and values after inner loops of the later loops holding
    /// writes, known before the time loop (as `Candidate::choices` and
    /// `Candidate::finals`).
    pub(crate) choices: HashMap<Value<'m>, Vec<(Value<'m>, Cond<'m>)>>,
    pub(crate) finals: HashMap<Value<'m>, Final<'m>>,
    /// The blocks of the later loops holding writes: their values that a
    /// range uses are computed again before the time loop.
    pub(crate) later: HashSet<Block<'m>>,
    /// The stores after the loop, as IR.
    pub(crate) writes: Vec<String>,
    /// How many loads of the loop they may write.
    pub(crate) reads: usize,
}

/// The check for time loop `time.lp`, given each instruction after it that
/// may write memory it reads, with the loads it may write; the reason when
/// one of them is not of the kind a check before the loop can decide.
pub(super) fn check<'m>(
    time: &Finder<'_, 'm>,
    conflicts: &[(Inst<'m>, Vec<Inst<'m>>)],
) -> Result<OverlapCheck<'m>, String> {
    let mut out = OverlapCheck::default();
    let mut read_ranges: HashMap<Inst<'m>, StoreRange<'m>> = HashMap::new();
    for (w, loads) in conflicts {
        let ir = w.as_value().to_ir();
        if w.opcode() != Some(LLVMOpcode::LLVMStore) || !w.is_simple_access() {
            return Err(format!("{ir} is not a simple store"));
        }
        let written = write_range(time, *w, &mut out)
            .map_err(|why| format!("the bytes {ir} writes are not known before it ({why})"))?;
        for l in loads {
            let read = match read_ranges.get(l) {
                Some(r) => r.clone(),
                None => {
                    let r = time.access_range(*l, l.operand(0), l.ty()).map_err(|why| {
                        format!(
                            "the bytes {} reads are not known before it ({why})",
                            l.as_value().to_ir()
                        )
                    })?;
                    read_ranges.insert(*l, r.clone());
                    r
                }
            };
            out.pairs.push((read, written.clone()));
        }
        out.writes.push(ir);
    }
    if out.pairs.len() > MAX_PAIRS {
        return Err(format!("{} pairs of ranges to compare", out.pairs.len()));
    }
    out.reads = read_ranges.len();
    Ok(out)
}

/// The bytes store `st` (after the time loop) writes, computable before
/// the time loop: in no loop, a pointer from before the time loop plus an
/// offset affine in values from before it; in a loop, over the whole of
/// its outermost loop (`Finder::whole`), everything the range is computed
/// from being from before the time loop.
fn write_range<'m>(
    time: &Finder<'_, 'm>,
    st: Inst<'m>,
    out: &mut OverlapCheck<'m>,
) -> Result<StoreRange<'m>, &'static str> {
    let loops = time.loops;
    let pre = loops.get(time.lp).preheader;
    let before = |v: Value<'m>| match v.as_inst() {
        None => !v.is_block_value(),
        Some(i) => time.cfg.dominates(i.parent_block(), pre) && !time.contains(i.parent_block()),
    };
    let size = st.operand(0).ty().alloc_size(st.as_value().module());
    let Some(outer) = loops.chain(st.parent_block()).first().copied() else {
        let (root, lin) =
            address(st.operand(1), &before, 0).ok_or("its address is not from before the loop")?;
        return Ok(StoreRange {
            roots: vec![root],
            konst: lin.konst,
            inv: lin.inv,
            per_iteration: Vec::new(),
            loops: Vec::new(),
            size,
        });
    };
    let mut f = Finder::new(time.cfg, loops, time.kinds, outer);
    f.whole = true;
    let range = f.access_range(st, st.operand(1), st.operand(0).ty())?;
    let choices = f.choices.take();
    let finals = f.finals.take();
    // Every value the range is computed from is from before the time loop.
    let mut work: Vec<Value<'m>> = range.roots.clone();
    work.extend(range.inv.iter().map(|(v, _)| *v));
    for t in &range.loops {
        work.extend([t.exit.start, t.exit.limit]);
        cond_values(&t.guard, &mut work);
    }
    let mut seen = HashSet::new();
    while let Some(v) = work.pop() {
        if !seen.insert(v) || v.is_constant() || v.is_block_value() {
            continue;
        }
        let Some(i) = v.as_inst().filter(|i| f.contains(i.parent_block())) else {
            if !before(v) {
                return Err("it is computed from a value defined after the time loop");
            }
            continue;
        };
        if let Some(x) = finals.get(&v) {
            work.extend([x.start, x.exit.start, x.exit.limit]);
        } else if let Some(x) = super::checkpoint::single_incoming(v) {
            work.push(x);
        } else if let Some(choice) = choices.get(&v) {
            for (x, c) in choice {
                work.push(*x);
                cond_values(c, &mut work);
            }
        } else {
            work.extend((0..i.num_operands()).map(|k| i.operand(k)));
        }
    }
    out.choices.extend(choices);
    out.finals.extend(finals);
    out.later.extend(loops.get(outer).blocks.iter().copied());
    Ok(range)
}

fn cond_values<'m>(c: &Cond<'m>, out: &mut Vec<Value<'m>>) {
    match c {
        Cond::True => {}
        Cond::Is(v, _) => out.push(*v),
        Cond::All(cs) | Cond::Any(cs) => cs.iter().for_each(|c| cond_values(c, out)),
    }
}

/// Pointer `p` as a pointer `before` accepts plus a byte offset affine in
/// values it accepts.
fn address<'m>(
    p: Value<'m>,
    before: &dyn Fn(Value<'m>) -> bool,
    depth: u32,
) -> Option<(Value<'m>, Linear<'m>)> {
    if depth > 16 {
        return None;
    }
    if before(p) {
        return (!p.is_constant() || p.is_global_variable()).then(|| (p, Linear::default()));
    }
    let i = p.as_inst()?;
    if let Some(x) = super::checkpoint::single_incoming(p) {
        return address(x, before, depth + 1);
    }
    if i.opcode()? != LLVMOpcode::LLVMGetElementPtr {
        return None;
    }
    let (root, mut lin) = address(i.operand(0), before, depth + 1)?;
    let module = p.module();
    let mut ty = p.gep_source_type();
    for k in 1..i.num_operands() {
        let idx = i.operand(k);
        if k == 1 {
            let scale = i64::try_from(ty.alloc_size(module)).ok()?;
            lin = lin.plus(integer(idx, before, depth + 1)?.scaled(scale)?)?;
            continue;
        }
        match ty.kind() {
            TyKind::Struct => {
                let f = u32::try_from(idx.const_int_sext()?).ok()?;
                let off = ty.field_offset(module, f)?;
                lin.konst = lin.konst.checked_add(i64::try_from(off).ok()?)?;
                ty = ty.member(f);
            }
            TyKind::Array => {
                ty = ty.element();
                let scale = i64::try_from(ty.alloc_size(module)).ok()?;
                lin = lin.plus(integer(idx, before, depth + 1)?.scaled(scale)?)?;
            }
            _ => return None,
        }
    }
    Some((root, lin))
}

/// Integer `v` as an affine form in values `before` accepts.
fn integer<'m>(v: Value<'m>, before: &dyn Fn(Value<'m>) -> bool, depth: u32) -> Option<Linear<'m>> {
    if depth > 16 {
        return None;
    }
    if let Some(c) = v.const_int_sext() {
        return Some(Linear {
            konst: c,
            ..Linear::default()
        });
    }
    if before(v) {
        return Some(Linear {
            inv: vec![(v, 1)],
            ..Linear::default()
        });
    }
    let i = v.as_inst()?;
    Linear::of_arithmetic(i, |k| integer(i.operand(k), before, depth + 1)).flatten()
}
