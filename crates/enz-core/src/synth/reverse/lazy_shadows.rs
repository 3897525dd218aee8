//! Shadows the reverse sweep allocates itself (`analysis/lazy_shadows.rs`):
//! a scratch block's shadow is allocated, zeroed, by the block's own
//! allocator (as the forward sweep's shadows are), where the reverse sweep
//! undoes the block's `free`, kept in a stack slot of the reverse
//! function, and freed where it undoes the allocation (as any shadow). The
//! forward sweep maps the block to itself as a stand-in shadow that
//! nothing reads (its shadow addresses are built again in the reverse
//! sweep from the slot).

use super::Reverse;
use crate::ir::{Inst, LLVMOpcode, Ty, Value};
use crate::names::MemFn;
use std::collections::HashMap;

/// The reverse function's slots of lazily allocated shadows.
#[derive(Default)]
pub(super) struct LazyShadows<'m> {
    /// Allocation (primal) to the slot holding its shadow.
    slots: HashMap<Value<'m>, Value<'m>>,
}

impl<'m> LazyShadows<'m> {
    /// The slots (stack memory holding shadow pointers).
    pub(super) fn slots(&self) -> impl Iterator<Item = Value<'m>> + '_ {
        self.slots.values().copied()
    }
}

impl<'m, 'a> Reverse<'m, 'a> {
    /// Whether allocation `i`'s shadow is allocated by the reverse sweep.
    pub(super) fn is_lazy_shadow(&self, i: Value<'m>) -> bool {
        self.facts.lazy_shadows.contains_key(&i) && self.facts.act.is_shadowed(i)
    }

    /// The shadow of `p` if it is a lazily shadowed block or an address
    /// computed from one, built at the reverse builder's position.
    pub(super) fn lazy_shadow_rev(&mut self, p: Value<'m>) -> Option<Value<'m>> {
        if self.is_lazy_shadow(p) {
            let ptr = Ty::ptr(p.context());
            if self.sweep.releasing {
                // A release function runs no reverse sweep: nothing was
                // allocated.
                return Some(self.b.zero(ptr));
            }
            let slot = self.lazy_slot(p);
            return Some(self.b.load(ptr, slot));
        }
        // An address computed from one: rebuilt on the shadow (nothing is
        // emitted unless its base chain reaches a lazily shadowed block).
        let pi = p.as_inst()?;
        if !matches!(
            pi.opcode(),
            Some(LLVMOpcode::LLVMGetElementPtr | LLVMOpcode::LLVMBitCast)
        ) {
            return None;
        }
        let base = self.lazy_shadow_rev(pi.operand(0))?;
        let mut ops = vec![base];
        for k in 1..pi.num_operands() {
            ops.push(self.primal(pi.operand(k)));
        }
        Some(self.reemit(pi, &ops))
    }

    /// The reverse function's slot for `alloc`'s shadow, null at its entry.
    fn lazy_slot(&mut self, alloc: Value<'m>) -> Value<'m> {
        if let Some(s) = self.lazy.slots.get(&alloc) {
            return *s;
        }
        let ptr = Ty::ptr(alloc.context());
        let slot = self.sweep.top.alloca(ptr, "lazy_shadow");
        self.sweep.top.store(self.sweep.top.zero(ptr), slot);
        self.lazy.slots.insert(alloc, slot);
        slot
    }

    /// At the reverse of `free` call `i`: allocates the zeroed shadow of
    /// the block it frees, if that shadow is lazy.
    pub(super) fn allocate_lazy_shadow(&mut self, i: Inst<'m>) {
        let alloc = i.operand(0);
        if self.sweep.releasing
            || !self.is_lazy_shadow(alloc)
            || self.facts.lazy_shadows.get(&alloc) != Some(&i)
        {
            return;
        }
        let Some(a) = alloc.as_inst() else {
            return;
        };
        // As the forward sweep's shadow of an allocation: the same call
        // (its allocator, so that the reverse of the allocation releases
        // it the way it releases that allocator's blocks), zeroed.
        let args: Vec<Value<'m>> = (0..a.call_num_args())
            .map(|k| self.primal(a.operand(k)))
            .collect();
        let s = self.reemit(a, &args);
        let size = a
            .called_function()
            .and_then(|f| MemFn::from_callee(&f.name()))
            .and_then(MemFn::size_argument);
        if let Some(k) = size {
            let bytes = self.b.int_cast(args[k as usize], Ty::int(a.context(), 64));
            self.b.memset_zero(s, bytes);
        }
        let slot = self.lazy_slot(alloc);
        self.b.store(s, slot);
    }

    /// After the reverse of allocation `alloc` freed its lazy shadow: the
    /// slot is null again (a path on which the block was null, and so its
    /// `free` skipped, then frees nothing twice).
    pub(super) fn clear_lazy_slot(&mut self, alloc: Value<'m>) {
        if self.sweep.releasing || !self.is_lazy_shadow(alloc) {
            return;
        }
        let slot = self.lazy_slot(alloc);
        self.b.store(self.b.zero(Ty::ptr(alloc.context())), slot);
    }
}
