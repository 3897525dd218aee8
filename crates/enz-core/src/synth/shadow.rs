//! Shadows of pointers in the forward sweep.
//!
//! Every pointer that activity analysis marks shadowed gets a shadow value
//! in the function holding the forward sweep: the `dup` parameter's
//! shadow, a shadow GEP/cast/select/phi mirroring the primal one, a zeroed
//! shadow allocation, a shadow global, or a pointer loaded from shadow
//! memory. Phis are created empty and completed once every shadow exists.

use crate::ir::{Block, Builder, Value, ValueMap};
use std::collections::HashMap;

/// Primal pointers (of the preprocessed function) to their shadows in the
/// forward sweep.
#[derive(Default)]
pub(crate) struct ShadowMap {
    shadows: HashMap<Value, Value>,
    pending_phis: Vec<(Value, Value)>,
}

impl ShadowMap {
    /// Starts with the shadows of the `dup` parameters.
    pub(crate) fn new(params: HashMap<Value, Value>) -> ShadowMap {
        ShadowMap {
            shadows: params,
            pending_phis: Vec::new(),
        }
    }

    pub(crate) fn insert(&mut self, primal: Value, shadow: Value) {
        self.shadows.insert(primal, shadow);
    }

    /// The forward-sweep shadow of `p`: null and undef are their own shadows.
    pub(crate) fn forward(&self, p: Value) -> Option<Value> {
        if let Some(s) = self.shadows.get(&p) {
            return Some(*s);
        }
        (!p.is_instruction() && !p.is_argument() && p.is_undef_or_null()).then_some(p)
    }

    /// Registers an empty shadow phi to complete later.
    pub(crate) fn defer_phi(&mut self, primal: Value, shadow: Value) {
        self.shadows.insert(primal, shadow);
        self.pending_phis.push((primal, shadow));
    }

    /// Adds the incoming shadows to every deferred phi.
    pub(crate) fn finish_phis(&mut self, map: &ValueMap) {
        for (phi, sphi) in std::mem::take(&mut self.pending_phis) {
            for (v, b) in phi.incoming() {
                let s = self.forward(v).unwrap_or_else(|| {
                    let bld = Builder::new(v.context());
                    bld.poison(v.ty())
                });
                sphi.add_incoming(s, map.block(b));
            }
        }
    }

    /// Whether `p` has a shadow already.
    pub(crate) fn contains(&self, p: Value) -> bool {
        self.shadows.contains_key(&p)
    }
}

/// The first insertion point of a block, for new phis.
pub(crate) fn position_at_top(b: &Builder, blk: Block) {
    match blk.first_instruction() {
        Some(i) => b.position_before(i),
        None => b.position_at_end(blk),
    }
}
