//! What the synthesis of GPU (NVPTX) code keeps: many threads run the
//! sweep, so adjoints of shared addresses are summed per block, loop caches
//! live in one per-thread array, and shared-memory shadows start zeroed.

use super::thread_cache::ThreadCaches;
use super::{Mode, Reverse};
use crate::analysis::loops::LoopId;
use crate::ir::{Builder, Ty, Value};
use std::collections::HashSet;

/// The GPU part of one synthesis (inert on the CPU).
pub(super) struct GpuState<'m> {
    /// Whether this is GPU (NVPTX) code: many threads run the sweep.
    pub(super) on: bool,
    /// Loops reported for caching with no trip bound (once each).
    pub(super) unbounded_loops: HashSet<LoopId>,
    /// Combined mode: the per-thread cache array (`thread_cache.rs`).
    pub(super) thread_caches: ThreadCaches<'m>,
    /// Per-thread sums of adjoints for addresses every thread shares
    /// (primal pointer, stack slot), reduced over the block at the end.
    pub(super) block_sums: Vec<(Value<'m>, Value<'m>)>,
}

impl<'m> GpuState<'m> {
    pub(super) fn new(on: bool) -> GpuState<'m> {
        GpuState {
            on,
            unbounded_loops: HashSet::new(),
            thread_caches: ThreadCaches::new(0),
            block_sums: Vec::new(),
        }
    }
}

impl<'m, 'a> Reverse<'m, 'a> {
    /// GPU shared-memory shadows start zeroed: cleared by the block's
    /// threads together at the start of the gradient, then a barrier.
    pub(super) fn zero_shared_shadows(&mut self) {
        use crate::synth::registry::SHARED_ADDRESS_SPACE;
        if !self.gpu.on || self.req.mode != Mode::Combined {
            return;
        }
        let shared: Vec<Value> = self
            .shadows
            .globals()
            .into_iter()
            .filter(|(g, _)| g.ty().address_space() == SHARED_ADDRESS_SPACE)
            .map(|(_, s)| s)
            .collect();
        if shared.is_empty() {
            return;
        }
        let ctx = self.req.prep.context();
        let g = self.sweep.fns.forward;
        let slots = g.entry_block();
        let first = self.map.block(self.req.prep.entry_block());
        let init = first.insert_block_before("zero_shared");
        let br = slots.terminator().expect("slots block");
        br.set_operand(0, init.as_value());
        let b = Builder::new(ctx);
        b.position_at_end(init);
        for s in shared {
            let bytes = s.global_value_type().alloc_size(s.module());
            let generic = b.addrspace_cast(s, Ty::ptr(ctx));
            crate::synth::gpu::zero_shared(&b, generic, bytes);
        }
        b.br(first);
    }
}
