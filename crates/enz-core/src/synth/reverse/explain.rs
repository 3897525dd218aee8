//! The `--explain` record of a reverse-mode derivative, made after
//! emission from what the reverse sweep asked for and what was cached.

use super::plan::Availability;
use super::{Mode, Reverse};
use crate::analysis::loops::loop_location;
use crate::analysis::loops::LoopId;
use crate::explain::{Allocation, CachedValue, Explanation, LoopPlan, Strategy};
use crate::ir::Value;
use std::collections::{HashMap, HashSet};

/// The longest instruction text shown for a cached value.
const SHOWN_CHARS: usize = 72;

/// What `--explain` reports of one synthesis: the values cached, with the
/// loop whose buffer holds each (None: a tape slot), described when cached
/// (a forward value may be replaced later); forward values back to the
/// primal instructions they clone (made at the first cache); and the primal
/// values the reverse sweep asked for.
#[derive(Default)]
pub(super) struct ExplainState<'m> {
    pub(super) caches: Vec<(Option<LoopId>, crate::explain::CachedValue)>,
    /// Whether `caches` describe each value by its text.
    pub(super) describe: bool,
    pub(super) primal_of: Option<HashMap<Value<'m>, Value<'m>>>,
    pub(super) uses: HashSet<Value<'m>>,
}

impl<'m, 'a> Reverse<'m, 'a> {
    /// Records forward value `gv`, just cached in loop `l`'s buffer (None:
    /// a tape slot), for `--explain`: described now, through the primal
    /// instruction it clones (which keeps its debug location).
    pub(super) fn explain_cache(&mut self, l: Option<LoopId>, gv: Value<'m>) {
        let (prep, map) = (self.req.prep, &self.map);
        let primal_of = self.explain.primal_of.get_or_insert_with(|| {
            prep.blocks()
                .into_iter()
                .flat_map(|b| b.instructions())
                .map(|i| (map.get(i.as_value()), i.as_value()))
                .collect()
        });
        let bytes = gv.ty().alloc_size(gv.module());
        let text = self.explain.describe;
        let described = match primal_of.get(&gv) {
            Some(p) if p.ty() == gv.ty() => cached_value(*p, bytes, "", text),
            _ => cached_value(gv, bytes, " (bookkeeping)", text),
        };
        self.explain.caches.push((l, described));
    }

    /// What this derivative does with each loop of the primal.
    pub(super) fn explanation(&self) -> Explanation {
        let made = match self.req.mode {
            Mode::Combined if self.req.width > 1 => format!(
                "vector gradient `{}` ({} reverse sweeps, one function)",
                self.sweep.fns.forward.name(),
                self.req.width
            ),
            Mode::Combined => format!(
                "gradient `{}` (both sweeps in one function)",
                self.sweep.fns.forward.name()
            ),
            Mode::Split => format!(
                "augmented primal `{}` and reverse `{}` (the tape carries the cache)",
                self.sweep.fns.forward.name(),
                self.sweep.reverse_name
            ),
        };
        let loops = &self.facts.loops;
        let mut order: Vec<LoopId> = loops.ids().collect();
        // Parents before children, then in source order.
        order.sort_by_key(|l| {
            let chain = loops.chain(loops.get(*l).header);
            (chain.iter().map(|c| c.0).collect::<Vec<_>>(), l.0)
        });
        let mut plans = Vec::new();
        for l in order {
            let lp = loops.get(l);
            let location = loop_location(lp);
            let cached: Vec<CachedValue> = self
                .explain
                .caches
                .iter()
                .filter(|(at, _)| *at == Some(l))
                .map(|(_, c)| c.clone())
                .collect();
            let (mut recomputed, mut reread) = (0, 0);
            for v in &self.explain.uses {
                let Some(b) = v.block_of() else { continue };
                if loops.innermost(b) != Some(l) {
                    continue;
                }
                match self.facts.plan.value(*v) {
                    Availability::Recompute { reread: true } => reread += 1,
                    Availability::Recompute { reread: false } | Availability::Affine(..) => {
                        recomputed += 1
                    }
                    Availability::Direct | Availability::Cache(_) => {}
                }
            }
            let allocation = if cached.is_empty() {
                Allocation::None
            } else {
                match self.caches.loops.get(&l).and_then(|s| s.prealloc) {
                    Some(_) if self.gpu.on && self.req.mode == Mode::Combined => Allocation::Stack,
                    Some(_) => Allocation::Once,
                    None => Allocation::Doubling,
                }
            };
            plans.push(LoopPlan {
                id: l.0,
                parent: lp.parent.map(|p| p.0),
                location,
                strategy: if cached.is_empty() {
                    Strategy::Recompute
                } else {
                    Strategy::Cache
                },
                cached,
                recomputed,
                reread,
                allocation,
                exit_recomputed: self.facts.plan.exact_exit(l).is_some(),
            });
        }
        let slots = self
            .explain
            .caches
            .iter()
            .filter(|(at, _)| at.is_none())
            .map(|(_, c)| c.clone())
            .collect();
        Explanation {
            function: self.req.name.to_string(),
            made,
            loops: plans,
            slots,
            notes: Vec::new(),
        }
    }
}

/// A forward value that is cached, as `--explain` shows it (its
/// instruction's text only with `text`).
fn cached_value(v: Value<'_>, bytes: u64, note: &str, text: bool) -> CachedValue {
    let ir = if text { v.to_ir() } else { String::new() };
    let mut what: String = ir.trim().chars().take(SHOWN_CHARS).collect();
    if ir.trim().chars().count() > SHOWN_CHARS {
        what.push_str("...");
    }
    what.push_str(note);
    CachedValue {
        what,
        bytes,
        location: v.debug_location(),
    }
}
