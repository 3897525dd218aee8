//! Natural loops and the loop nest, from enz-rs's own dominator tree.
//!
//! A back edge is an edge whose target (the header) dominates its source
//! (the latch); the loop is the header plus every block that reaches the
//! latch without passing the header. Loops sharing a header are merged.
//! Synthesis needs loops in simplified form (one preheader, one latch,
//! dedicated exits), which preprocessing's `loop-simplify` provides; a loop
//! without that shape is reported, not guessed at.

use super::cfg::Cfg;
use crate::ir::LLVMOpcode;
use crate::ir::{Block, Inst, Value};
use std::collections::{HashMap, HashSet};

/// Index of a loop in a [`LoopNest`].
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub(crate) struct LoopId(pub(crate) usize);

impl std::fmt::Display for LoopId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "loop{}", self.0)
    }
}

/// One natural loop.
#[derive(Debug)]
pub(crate) struct Loop<'m> {
    pub(crate) header: Block<'m>,
    /// The single block with the back edge.
    pub(crate) latch: Block<'m>,
    /// The single predecessor of the header outside the loop.
    pub(crate) preheader: Block<'m>,
    pub(crate) blocks: HashSet<Block<'m>>,
    /// The same blocks in function order, for walks whose result must not
    /// depend on hashing (the output is deterministic).
    pub(crate) ordered: Vec<Block<'m>>,
    /// The innermost enclosing loop.
    pub(crate) parent: Option<LoopId>,
}

/// An induction variable `start + step * iteration` (a header phi).
#[derive(Copy, Clone, Debug)]
pub(crate) struct AffineIv<'m> {
    pub(crate) phi: Inst<'m>,
    /// Incoming value from the preheader.
    pub(crate) start: Value<'m>,
    /// Constant step per iteration (in units of `elem` bytes for pointers).
    pub(crate) step: i64,
    /// For pointer IVs, the GEP's source element type.
    pub(crate) gep_type: Option<crate::ir::Ty<'m>>,
}

/// All loops of a function.
#[derive(Debug, Default)]
pub(crate) struct LoopNest<'m> {
    pub(crate) loops: Vec<Loop<'m>>,
    innermost: HashMap<Block<'m>, LoopId>,
}

/// Why a loop cannot be handled.
#[derive(Debug)]
pub(crate) struct LoopShapeError<'m> {
    pub(crate) header: Block<'m>,
    pub(crate) reason: &'static str,
}

impl<'m> LoopNest<'m> {
    pub(crate) fn new(cfg: &Cfg<'m>) -> Result<LoopNest<'m>, LoopShapeError<'m>> {
        if let Some((_, entered)) = cfg.irreducible_edge() {
            return Err(LoopShapeError {
                header: entered,
                reason: "control flow enters this cycle at more than one block (irreducible control flow, which fix-irreducible could not make a loop of)",
            });
        }
        // Headers in the order their first back edge is found, so that loop
        // numbering (and so the output) does not depend on hashing.
        let mut headers: Vec<Block> = Vec::new();
        let mut by_header: HashMap<Block, (Vec<Block>, HashSet<Block>)> = HashMap::new();
        for (latch, header) in cfg.back_edges() {
            let entry = by_header.entry(header).or_insert_with(|| {
                headers.push(header);
                (Vec::new(), HashSet::new())
            });
            entry.0.push(latch);
            entry.1.insert(header);
            let mut stack = vec![latch];
            while let Some(b) = stack.pop() {
                if entry.1.insert(b) {
                    for p in cfg.preds(b) {
                        if cfg.is_reachable(*p) {
                            stack.push(*p);
                        }
                    }
                }
            }
        }
        let mut loops = Vec::new();
        for header in headers {
            let (latches, blocks) = by_header.remove(&header).expect("recorded with its header");
            if latches.len() != 1 {
                return Err(LoopShapeError {
                    header,
                    reason: "the loop has several back edges, which loop-simplify could not merge",
                });
            }
            let outside: Vec<Block> = cfg
                .unique_preds(header)
                .into_iter()
                .filter(|p| !blocks.contains(p))
                .collect();
            if outside.len() != 1 {
                return Err(LoopShapeError {
                    header,
                    reason: "the loop has no single preheader, which loop-simplify could not add",
                });
            }
            let ordered = cfg
                .blocks
                .iter()
                .copied()
                .filter(|b| blocks.contains(b))
                .collect();
            loops.push(Loop {
                header,
                latch: latches[0],
                preheader: outside[0],
                blocks,
                ordered,
                parent: None,
            });
        }
        // Outer loops first: larger loops contain smaller ones.
        loops.sort_by_key(|l| std::cmp::Reverse(l.blocks.len()));
        let n = loops.len();
        for i in 0..n {
            let parent = (0..i)
                .rev()
                .find(|j| loops[*j].blocks.contains(&loops[i].header));
            loops[i].parent = parent.map(LoopId);
        }
        let mut innermost = HashMap::new();
        for (i, l) in loops.iter().enumerate() {
            for b in &l.blocks {
                innermost.insert(*b, LoopId(i));
            }
        }
        Ok(LoopNest { loops, innermost })
    }

    pub(crate) fn get(&self, id: LoopId) -> &Loop<'m> {
        &self.loops[id.0]
    }

    /// The innermost loop containing `b`.
    pub(crate) fn innermost(&self, b: Block<'m>) -> Option<LoopId> {
        self.innermost.get(&b).copied()
    }

    pub(crate) fn contains(&self, l: LoopId, b: Block<'m>) -> bool {
        self.loops[l.0].blocks.contains(&b)
    }

    /// The loops containing `b`, outermost first.
    pub(crate) fn chain(&self, b: Block<'m>) -> Vec<LoopId> {
        let mut out = Vec::new();
        let mut cur = self.innermost(b);
        while let Some(l) = cur {
            out.push(l);
            cur = self.loops[l.0].parent;
        }
        out.reverse();
        out
    }

    pub(crate) fn ids(&self) -> impl Iterator<Item = LoopId> {
        (0..self.loops.len()).map(LoopId)
    }

    /// Whether `b` is the header of a loop, and which.
    pub(crate) fn header_of(&self, b: Block<'m>) -> Option<LoopId> {
        self.ids().find(|l| self.loops[l.0].header == b)
    }

    /// Header phis of loop `l` that are affine in the iteration count.
    pub(crate) fn affine_ivs(&self, l: LoopId) -> Vec<AffineIv<'m>> {
        self.header_phi_ends(l)
            .into_iter()
            .filter_map(|(phi, start, next)| {
                let (step, gep_type) = step_of(phi.into(), next)?;
                Some(AffineIv {
                    phi,
                    start,
                    step,
                    gep_type,
                })
            })
            .collect()
    }

    /// The header phis of loop `l` with exactly two incoming values, one
    /// from the preheader defined outside the loop and one from the latch:
    /// (phi, start, next).
    fn header_phi_ends(&self, l: LoopId) -> Vec<(Inst<'m>, Value<'m>, Value<'m>)> {
        let lp = &self.loops[l.0];
        let mut out = Vec::new();
        for phi in lp.header.instructions() {
            if phi.opcode() != Some(LLVMOpcode::LLVMPHI) {
                break;
            }
            let inc = phi.incoming();
            let start = inc
                .iter()
                .find(|(_, b)| *b == lp.preheader)
                .map(|(v, _)| *v);
            let next = inc.iter().find(|(_, b)| *b == lp.latch).map(|(v, _)| *v);
            let (Some(start), Some(next)) = (start, next) else {
                continue;
            };
            if inc.len() != 2 || start.block_of().is_some_and(|b| lp.blocks.contains(&b)) {
                continue;
            }
            out.push((phi, start, next));
        }
        out
    }
}

/// An integer header phi of a loop that moves by a value defined before the
/// loop each iteration (`next = phi + stride`; a CUDA grid-stride loop's
/// `i += gridDim.x * blockDim.x`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct StridedIv<'m> {
    pub(crate) phi: Inst<'m>,
    /// Incoming value from the preheader.
    pub(crate) start: Value<'m>,
    /// The step, defined outside the loop.
    pub(crate) stride: Value<'m>,
    /// Its next value, `phi + stride` (from the latch).
    pub(crate) next: Value<'m>,
}

impl<'m> LoopNest<'m> {
    /// Integer header phis of loop `l` whose step is a value defined
    /// outside it, not a constant (those are [`LoopNest::affine_ivs`]).
    pub(crate) fn strided_ivs(&self, l: LoopId) -> Vec<StridedIv<'m>> {
        let lp = &self.loops[l.0];
        let outside = |v: Value<'m>| v.block_of().is_none_or(|b| !lp.blocks.contains(&b));
        self.header_phi_ends(l)
            .into_iter()
            .filter_map(|(phi, start, next)| {
                if !phi.ty().is_integer() || next.opcode() != Some(LLVMOpcode::LLVMAdd) {
                    return None;
                }
                let (a, b) = (next.operand(0), next.operand(1));
                let stride = if a == phi.as_value() {
                    b
                } else if b == phi.as_value() {
                    a
                } else {
                    return None;
                };
                (stride.const_int_sext().is_none() && outside(stride)).then_some(StridedIv {
                    phi,
                    start,
                    stride,
                    next,
                })
            })
            .collect()
    }
}

/// `next = phi + step` (integer add, or a one-index GEP) with a constant step.
fn step_of<'m>(phi: Value<'m>, next: Value<'m>) -> Option<(i64, Option<crate::ir::Ty<'m>>)> {
    match next.opcode()? {
        LLVMOpcode::LLVMAdd if phi.ty().is_integer() => {
            let (a, b) = (next.operand(0), next.operand(1));
            if a == phi {
                b.const_int_sext().map(|s| (s, None))
            } else if b == phi {
                a.const_int_sext().map(|s| (s, None))
            } else {
                None
            }
        }
        LLVMOpcode::LLVMGetElementPtr if next.num_operands() == 2 && next.operand(0) == phi => {
            let s = next.operand(1).const_int_sext()?;
            Some((s, Some(next.gep_source_type())))
        }
        _ => None,
    }
}

/// The source line of a loop, given debug info: its latch's branch (the
/// `for`/`while` line, where clang puts the increment and the test), else
/// the first located instruction of the loop.
pub(crate) fn loop_location(lp: &Loop<'_>) -> Option<String> {
    lp.latch
        .terminator()
        .and_then(|t| t.as_value().debug_location())
        .or_else(|| {
            lp.ordered
                .iter()
                .flat_map(|b| b.instructions())
                .find_map(|i| i.as_value().debug_location())
        })
}
