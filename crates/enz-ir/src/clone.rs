//! Function body cloning (the C API has no `CloneFunction`).
//!
//! Clones every block and instruction of one function into another, remapping
//! operands through a [`ValueMap`] that the caller seeds with the parameters.
//! Phis are rebuilt (the C API cannot retarget an incoming block).

use super::{Block, Builder, Function, Inst, Value};
use llvm_sys::core::*;
use llvm_sys::LLVMOpcode;
use std::collections::HashMap;

/// Maps values (and blocks, as values) of a source function to a clone.
#[derive(Default, Debug)]
pub struct ValueMap<'m> {
    map: HashMap<Value<'m>, Value<'m>>,
    blocks: HashMap<Block<'m>, Block<'m>>,
}

impl<'m> ValueMap<'m> {
    pub fn insert(&mut self, from: impl Into<Value<'m>>, to: impl Into<Value<'m>>) {
        self.map.insert(from.into(), to.into());
    }

    /// The clone of `v`; constants and globals map to themselves.
    pub fn get(&self, v: impl Into<Value<'m>>) -> Value<'m> {
        let v = v.into();
        if let Some(t) = self.map.get(&v) {
            return *t;
        }
        if v.is_block_value() {
            if let Some(b) = self.blocks.get(&Block::from_value(v)) {
                return b.as_value();
            }
        }
        v
    }

    /// The clone of instruction `i` (an instruction too).
    pub fn inst(&self, i: Inst<'m>) -> Inst<'m> {
        self.get(i)
            .as_inst()
            .expect("the clone of an instruction is one")
    }

    pub fn block(&self, b: Block<'m>) -> Block<'m> {
        self.blocks[&b]
    }
}

/// Clones the body of `src` to the end of `dst`. `map` must already map
/// `src`'s parameters. With `strip_debug`, clones carry no `!dbg`.
pub fn clone_body<'m>(
    src: Function<'m>,
    dst: Function<'m>,
    map: &mut ValueMap<'m>,
    strip_debug: bool,
) {
    let ctx = dst.context();
    let builder = Builder::new(ctx);
    let src_blocks = src.blocks();
    for b in &src_blocks {
        let name = super::cstr(&b.name());
        let nb = Block::wrap(unsafe {
            LLVMAppendBasicBlockInContext(ctx.0, dst.as_value().0, name.as_ptr())
        });
        map.blocks.insert(*b, nb);
    }
    let mut cloned: Vec<(Inst<'m>, Inst<'m>)> = Vec::new();
    for b in &src_blocks {
        builder.position_at_end(map.blocks[b]);
        for i in b.instructions() {
            let c = if i.opcode() == Some(LLVMOpcode::LLVMPHI) {
                builder.phi(i.ty(), &i.name())
            } else {
                let c = i.clone_instruction();
                builder.insert(c);
                if !i.name().is_empty() {
                    c.set_name(&i.name());
                }
                c
            };
            if strip_debug {
                c.clear_debug_loc();
            }
            map.insert(i, c);
            cloned.push((i, c));
        }
    }
    for (orig, c) in cloned {
        if orig.opcode() == Some(LLVMOpcode::LLVMPHI) {
            for (v, b) in orig.incoming() {
                c.add_incoming(map.get(v), map.blocks[&b]);
            }
            continue;
        }
        for k in 0..orig.num_operands() {
            let op = orig.operand(k);
            let m = map.get(op);
            if m != op {
                c.set_operand(k, m);
            }
        }
    }
}
