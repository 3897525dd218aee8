//! Copying the blocks of a loop into a function of their own: the `body`
//! of a checkpointed loop (`checkpoint/outline.rs`) and the `elem` of a
//! mixed-mode loop (`mixed.rs`). The caller seeds the value map (values
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
