//! Copying the blocks of a loop into a function of their own: the `body`
//! of a checkpointed loop (`checkpoint.rs`), the `elem` of a mixed-mode
//! loop (`mixed.rs`), a GPU loop replayed in the reverse sweep and the
//! tangent-skipping copy of forward mode; and the values from before a
//! loop that its blocks read ([`live_ins`]), which become the parameters. The caller seeds the value map (values
//! from before the loop to parameters, header phis to what replaces them),
//! clones, adds the blocks an iteration leaves to, then patches the clones'
//! operands and branch targets.

use crate::ir::{Block, Builder, Function, Inst, LLVMOpcode, Value};
use std::collections::HashMap;

/// The clones of a loop's blocks and instructions.
pub(crate) struct ClonedBlocks<'m> {
    /// Each block to its clone.
    pub(crate) blocks: HashMap<Block<'m>, Block<'m>>,
    cloned: Vec<(Inst<'m>, Inst<'m>)>,
}

/// Clones `blocks`, in order, to the end of `dst`: every instruction that
/// `map` does not map yet and `skip` does not leave out, named as the
/// original and without debug location (it belongs to another function);
/// phis are rebuilt empty. `map` gets each clone.
pub(crate) fn clone_blocks<'m>(
    blocks: &[Block<'m>],
    dst: Function<'m>,
    map: &mut HashMap<Value<'m>, Value<'m>>,
    skip: impl Fn(Inst<'m>) -> bool,
) -> ClonedBlocks<'m> {
    let mut bmap = HashMap::new();
    for b in blocks {
        bmap.insert(*b, dst.append_block(&b.name()));
    }
    let bb = Builder::new(dst.context());
    let mut cloned = Vec::new();
    for b in blocks {
        bb.position_at_end(bmap[b]);
        for i in b.instructions() {
            let v = i.as_value();
            if map.contains_key(&v) || skip(i) {
                continue;
            }
            let c = if i.opcode() == Some(LLVMOpcode::LLVMPHI) {
                bb.phi(i.ty(), &i.name())
            } else {
                let c = i.clone_instruction();
                bb.insert(c);
                if !i.name().is_empty() {
                    c.set_name(&i.name());
                }
                c
            };
            c.clear_debug_loc();
            map.insert(v, c.as_value());
            cloned.push((i, c));
        }
    }
    ClonedBlocks {
        blocks: bmap,
        cloned,
    }
}

impl<'m> ClonedBlocks<'m> {
    /// Maps the clones' operands and phi entries through `map`; a branch
    /// from block `from` to `target` goes to `retarget(from, target)` when
    /// that says where, else to the clone of `target`.
    pub(crate) fn patch(
        &self,
        map: &HashMap<Value<'m>, Value<'m>>,
        retarget: impl Fn(Block<'m>, Block<'m>) -> Option<Block<'m>>,
    ) {
        let get = |v: Value<'m>| map.get(&v).copied().unwrap_or(v);
        for (orig, c) in &self.cloned {
            if orig.opcode() == Some(LLVMOpcode::LLVMPHI) {
                for (v, from) in orig.incoming() {
                    c.add_incoming(get(v), self.blocks[&from]);
                }
                continue;
            }
            for k in 0..orig.num_operands() {
                let op = orig.operand(k);
                if op.is_block_value() {
                    let target = Block::from_value(op);
                    let to = retarget(orig.parent_block(), target)
                        .unwrap_or_else(|| self.blocks[&target]);
                    c.set_operand(k, to.as_value());
                } else {
                    let m = get(op);
                    if m != op {
                        c.set_operand(k, m);
                    }
                }
            }
        }
    }
}

/// Which incoming values of the loop's phis count as read by the loop.
#[derive(Copy, Clone, PartialEq, Eq)]
pub(crate) enum PhiEdges {
    /// Every incoming value (the header phis' starts among them).
    All,
    /// Only those along edges from inside the loop (the header phis'
    /// starts are the caller's business).
    FromInside,
}

/// The values from before a loop that `blocks` read: arguments and
/// instructions in no block `inside` accepts, once each, in the order of
/// first use (blocks in the order given, operands in order).
pub(crate) fn live_ins<'m>(
    blocks: &[Block<'m>],
    inside: impl Fn(Block<'m>) -> bool,
    phi_edges: PhiEdges,
) -> Vec<Value<'m>> {
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut read = |v: Value<'m>| {
        let outer = v.is_argument() || v.as_inst().is_some_and(|i| !inside(i.parent_block()));
        if outer && !v.is_block_value() && seen.insert(v) {
            out.push(v);
        }
    };
    for b in blocks {
        for i in b.instructions() {
            if i.opcode() == Some(LLVMOpcode::LLVMPHI) {
                for (v, from) in i.incoming() {
                    if phi_edges == PhiEdges::All || inside(from) {
                        read(v);
                    }
                }
            } else {
                for k in 0..i.num_operands() {
                    read(i.operand(k));
                }
            }
        }
    }
    out
}
