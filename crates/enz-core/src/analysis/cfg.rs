//! Control-flow facts: predecessors, reachability, dominators and back edges.

use crate::ir::{Block, Function};
use petgraph::algo::dominators::{simple_fast, Dominators};
use petgraph::graph::{DiGraph, NodeIndex};
use std::collections::{HashMap, HashSet};

/// Which predecessor of a join block control came from, as a branch
/// condition decides it (`Cfg::deciding_branch`).
#[derive(Copy, Clone, Debug)]
pub(crate) struct DecidingBranch<'m> {
    /// The `i1` condition of the deciding branch.
    pub(crate) cond: crate::ir::Value<'m>,
    pub(crate) pred_if_true: Block<'m>,
    pub(crate) pred_if_false: Block<'m>,
}

/// The control-flow graph of one function and what is derived from it.
pub(crate) struct Cfg<'m> {
    /// Blocks in layout order.
    pub(crate) blocks: Vec<Block<'m>>,
    index: HashMap<Block<'m>, NodeIndex>,
    graph: DiGraph<Block<'m>, ()>,
    /// Pre- and post-order numbers of each reachable block in the dominator
    /// tree: `a` dominates `b` iff `a`'s interval contains `b`'s, so a
    /// dominance query is O(1) instead of a walk up the tree.
    dom_interval: HashMap<NodeIndex, (u32, u32)>,
    /// Predecessors with multiplicity (one entry per CFG edge), in order.
    preds: HashMap<Block<'m>, Vec<Block<'m>>>,
    /// Blocks reachable from the entry.
    reachable: HashSet<Block<'m>>,
    /// Blocks ending in `ret`.
    pub(crate) exits: Vec<Block<'m>>,
}

impl<'m> Cfg<'m> {
    pub(crate) fn new(func: Function<'m>) -> Cfg<'m> {
        let blocks = func.blocks();
        let mut graph = DiGraph::new();
        let mut index = HashMap::new();
        for b in &blocks {
            index.insert(*b, graph.add_node(*b));
        }
        let mut preds: HashMap<Block, Vec<Block>> = blocks.iter().map(|b| (*b, vec![])).collect();
        let mut exits = Vec::new();
        for b in &blocks {
            for s in b.successors() {
                graph.add_edge(index[b], index[&s], ());
                preds.entry(s).or_default().push(*b);
            }
            if b.terminator().and_then(|t| t.opcode()) == Some(crate::ir::LLVMOpcode::LLVMRet) {
                exits.push(*b);
            }
        }
        let entry = index[&blocks[0]];
        let doms = simple_fast(&graph, entry);
        let reachable = blocks
            .iter()
            .filter(|b| doms.immediate_dominator(index[b]).is_some() || index[*b] == entry)
            .copied()
            .collect::<HashSet<_>>();
        exits.retain(|e| reachable.contains(e));
        let dom_interval = dominator_intervals(&graph, &doms, entry);
        Cfg {
            blocks,
            index,
            graph,
            dom_interval,
            preds,
            reachable,
            exits,
        }
    }

    /// Predecessors, one entry per edge.
    pub(crate) fn preds(&self, b: Block<'m>) -> &[Block<'m>] {
        self.preds.get(&b).map(Vec::as_slice).unwrap_or(&[])
    }

    /// Distinct reachable predecessors, in first-seen order.
    pub(crate) fn unique_preds(&self, b: Block<'m>) -> Vec<Block<'m>> {
        let mut seen = Vec::new();
        for p in self.preds(b) {
            if self.reachable.contains(p) && !seen.contains(p) {
                seen.push(*p);
            }
        }
        seen
    }

    pub(crate) fn is_reachable(&self, b: Block<'m>) -> bool {
        self.reachable.contains(&b)
    }

    /// Whether `a` dominates `b` (both reachable).
    pub(crate) fn dominates(&self, a: Block<'m>, b: Block<'m>) -> bool {
        let (Some(ia), Some(ib)) = (self.index.get(&a), self.index.get(&b)) else {
            return false;
        };
        match (self.dom_interval.get(ia), self.dom_interval.get(ib)) {
            (Some((pre_a, post_a)), Some((pre_b, post_b))) => pre_a <= pre_b && post_b <= post_a,
            _ => false,
        }
    }

    /// The conditional branch whose last outcome tells which of `b`'s two
    /// predecessors control came from, when there is one: a block `d` in
    /// the same innermost loop as `b` (`same_loop`) ending in `br c, t, f`
    /// where each edge leads to one predecessor only: the edge goes to `b`
    /// itself (the predecessor is `d`), or to a block entered only from `d`
    /// that dominates the predecessor. The last execution of `d` before `b`
    /// is in the same iteration, and `c` then says the predecessor, so the
    /// reverse sweep can recompute it instead of recording it.
    pub(crate) fn deciding_branch(
        &self,
        b: Block<'m>,
        same_loop: impl Fn(Block<'m>) -> bool,
    ) -> Option<DecidingBranch<'m>> {
        let preds = self.unique_preds(b);
        if preds.len() != 2 {
            return None;
        }
        let mut candidates = preds.clone();
        let mut x = preds[0];
        for _ in 0..8 {
            let up = self.unique_preds(x);
            if up.len() != 1 {
                break;
            }
            x = up[0];
            candidates.push(x);
        }
        candidates.into_iter().find_map(|d| {
            let t = d.terminator()?;
            if t.opcode() != Some(crate::ir::LLVMOpcode::LLVMBr) || t.num_operands() != 3 {
                return None;
            }
            if !same_loop(d) {
                return None;
            }
            let succs = d.successors();
            let (on_true, on_false) = (succs[0], succs[1]);
            if on_true == on_false {
                return None;
            }
            let lead = |s: Block<'m>| -> Option<Block<'m>> {
                if s == b {
                    return preds.contains(&d).then_some(d);
                }
                if self.unique_preds(s) != [d] {
                    return None;
                }
                let mut reached = preds.iter().filter(|p| self.dominates(s, **p));
                let p = *reached.next()?;
                reached.next().is_none().then_some(p)
            };
            let (pt, pf) = (lead(on_true)?, lead(on_false)?);
            (pt != pf).then(|| DecidingBranch {
                cond: t.operand(0),
                pred_if_true: pt,
                pred_if_false: pf,
            })
        })
    }

    /// Whether `b` dominates every exit: values defined there are available
    /// throughout a reverse sweep (which is only entered through an exit).
    pub(crate) fn dominates_all_exits(&self, b: Block<'m>) -> bool {
        self.exits.iter().all(|e| self.dominates(b, *e))
    }

    /// Edges whose target dominates their source (loop back edges).
    pub(crate) fn back_edges(&self) -> Vec<(Block<'m>, Block<'m>)> {
        let mut out = Vec::new();
        for e in self.graph.edge_indices() {
            let (s, t) = self.graph.edge_endpoints(e).expect("edge");
            let (sb, tb) = (self.graph[s], self.graph[t]);
            if self.is_reachable(sb) && self.dominates(tb, sb) {
                out.push((sb, tb));
            }
        }
        out
    }

    /// An edge that closes a cycle entered at more than one block (its
    /// target does not dominate its source, yet comes first in reverse
    /// post-order): the control flow is irreducible, and such a cycle is
    /// no loop enz-rs can reverse. `None` for reducible control flow.
    pub(crate) fn irreducible_edge(&self) -> Option<(Block<'m>, Block<'m>)> {
        let order: HashMap<Block, usize> = self
            .rpo()
            .into_iter()
            .enumerate()
            .map(|(k, b)| (b, k))
            .collect();
        self.graph.edge_indices().find_map(|e| {
            let (s, t) = self.graph.edge_endpoints(e).expect("edge");
            let (sb, tb) = (self.graph[s], self.graph[t]);
            let (os, ot) = (order.get(&sb)?, order.get(&tb)?);
            (ot <= os && !self.dominates(tb, sb)).then_some((sb, tb))
        })
    }

    /// Reachable blocks in reverse post-order (definitions before uses,
    /// except through phis).
    pub(crate) fn rpo(&self) -> Vec<Block<'m>> {
        let entry = self.blocks[0];
        let mut seen: HashSet<Block> = HashSet::new();
        let mut post = Vec::new();
        let mut stack: Vec<(Block, usize)> = vec![(entry, 0)];
        seen.insert(entry);
        while let Some((b, k)) = stack.pop() {
            let succs = b.successors();
            if k < succs.len() {
                stack.push((b, k + 1));
                let s = succs[k];
                if seen.insert(s) {
                    stack.push((s, 0));
                }
            } else {
                post.push(b);
            }
        }
        post.reverse();
        post
    }

    /// Blocks that are reachable and from which some exit is reachable.
    pub(crate) fn live_blocks(&self) -> Vec<Block<'m>> {
        // Backwards from the exits over predecessor edges: linear.
        let mut reaches_exit: HashSet<Block> = self.exits.iter().copied().collect();
        let mut stack: Vec<Block> = self.exits.clone();
        while let Some(b) = stack.pop() {
            for p in self.preds(b) {
                if reaches_exit.insert(*p) {
                    stack.push(*p);
                }
            }
        }
        self.blocks
            .iter()
            .filter(|b| self.is_reachable(**b) && reaches_exit.contains(b))
            .copied()
            .collect()
    }
}

/// Pre- and post-order numbers of the dominator tree rooted at `entry`
/// (children in node order), for every block reachable from it.
fn dominator_intervals<'m>(
    graph: &DiGraph<Block<'m>, ()>,
    doms: &Dominators<NodeIndex>,
    entry: NodeIndex,
) -> HashMap<NodeIndex, (u32, u32)> {
    let mut children: HashMap<NodeIndex, Vec<NodeIndex>> = HashMap::new();
    for n in graph.node_indices() {
        if let Some(idom) = doms.immediate_dominator(n) {
            children.entry(idom).or_default().push(n);
        }
    }
    let mut out = HashMap::new();
    let mut clock = 0u32;
    // (node, whether its children were pushed)
    let mut stack = vec![(entry, false)];
    let mut pre: HashMap<NodeIndex, u32> = HashMap::new();
    while let Some((n, expanded)) = stack.pop() {
        if expanded {
            out.insert(n, (pre[&n], clock));
            clock += 1;
            continue;
        }
        pre.insert(n, clock);
        clock += 1;
        stack.push((n, true));
        for c in children.get(&n).into_iter().flatten().rev() {
            stack.push((*c, false));
        }
    }
    out
}

#[cfg(test)]
mod tests;
