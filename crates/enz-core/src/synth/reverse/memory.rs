//! Memory in reverse mode: shadows in the forward sweep, and the adjoints
//! of loads, stores, allocations and memory intrinsics in the reverse sweep.
//!
//! - `x = load p`: `d(*shadow(p)) += d(x)`.
//! - `store v, p`: `d(v) += *shadow(p); *shadow(p) = 0` (also for inactive
//!   `v`: the overwritten value's adjoint must not flow further back).
//! - allocations get zeroed shadows, freed in the reverse sweep where the
//!   allocation is undone (a primal `free` frees only the primal).
//! - `memcpy(d, s)` of floats: `shadow(s) += shadow(d); shadow(d) = 0`; of
//!   pointers: the shadow pointers are copied in the forward sweep.
//! - `memset(p)`: `shadow(p) = 0` in the reverse sweep.

use super::{Mode, Reverse};
use crate::analysis::calls::{CallKind, Direction};
use crate::analysis::gpu::Accumulate;
use crate::analysis::types::{ConcreteType, FloatKind};
use crate::ir::LLVMOpcode;
use crate::ir::{Builder, Inst, Ty, TyKind, Value};
use crate::names::MemFn;
use crate::synth::registry::Registry;
use crate::synth::shadow::{Mirror, MirrorContext};
use crate::synth::{cuda_host, gpu, runtime};
use crate::Diagnostic;

impl<'m, 'a> Reverse<'m, 'a> {
    /// Adds the forward-sweep work for primal instruction `i`: its shadow
    /// if it is a shadowed pointer, shadow stores of pointers, shadow
    /// copies of pointer data, calls to augmented primals.
    pub(super) fn augment_instruction(&mut self, i: Inst<'m>, registry: &mut Registry<'m>) {
        let Some(op) = i.opcode() else { return };
        let gi = self.map.inst(i);
        let heap = self.req.mode == Mode::Split;
        let cx = MirrorContext {
            act: &self.facts.act,
            kinds: &self.facts.call_kinds,
            direction: Direction::Reverse,
            heap_allocas: heap,
        };
        if self.lanes.current == 0 && self.is_lazy_shadow(i.as_value()) {
            // Allocated by the reverse sweep: the block stands in for its
            // shadow here, where nothing reads it.
            self.shadows.insert(i.as_value(), gi.as_value());
            return;
        }
        match self.shadows.mirror(i, gi, &cx, registry) {
            Mirror::Built => return,
            Mirror::Failed(d) => return self.diags.push(d),
            Mirror::Impossible => return self.no_shadow(i),
            Mirror::NotShadowed => {}
        }
        let fb = Builder::new(i.context());
        match op {
            LLVMOpcode::LLVMStore => {
                let (v, p) = (i.operand(0), i.operand(1));
                if v.ty().kind() == TyKind::Pointer && self.facts.act.is_shadowed(p) {
                    if let (Some(sv), Some(sp)) = (self.shadows.forward(v), self.shadows.forward(p))
                    {
                        fb.position_after(gi);
                        fb.store(sv, sp).set_alignment(i.alignment());
                    }
                }
                if self.lanes.current == 0 && self.facts.deferrable_stores.contains(&i.as_value()) {
                    // The reverse sweep may re-read what it overwrites:
                    // made at its end (`analysis::deferred_stores`).
                    self.deferred.stores.push(i);
                    gi.erase();
                }
            }
            LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke => {
                let kind = self.facts.call_kinds.get(i.as_value());
                if kind.memory().is_some_and(MemFn::transfers) {
                    let (d, s) = (i.operand(0), i.operand(1));
                    if self.facts.act.is_shadowed(d)
                        && self.facts.act.is_shadowed(s)
                        && self.holds_pointers(d)
                    {
                        if let (Some(sd), Some(ss)) =
                            (self.shadows.forward(d), self.shadows.forward(s))
                        {
                            fb.position_after(gi);
                            let c = gi.clone_instruction();
                            fb.insert(c);
                            c.set_operand(0, sd);
                            c.set_operand(1, ss);
                        }
                    }
                } else if self.lanes.current != 0 {
                    // What is not per lane is done once, with lane 0.
                } else if self.facts.deferrable_frees.contains(&i) {
                    // The reverse sweep may re-read this memory: free it there.
                    self.deferred.frees.push(i);
                    gi.erase();
                } else if let CallKind::Custom(f) | CallKind::Defined(f) = kind {
                    self.augment_user_call(i, gi, f, registry);
                } else if let CallKind::Team(f) = kind {
                    self.augment_team_call(i, gi, f, registry);
                } else if let CallKind::Mpi(f) = kind {
                    self.augment_mpi_call(i, gi, f);
                } else if let CallKind::Blas(f) = kind {
                    self.augment_blas_call(i, gi, f);
                } else if kind == CallKind::Indirect {
                    self.augment_indirect_call(i, gi);
                }
            }
            _ => {}
        }
    }

    fn no_shadow(&mut self, i: Inst<'m>) {
        // A pointer returned by a call enz-rs cannot differentiate: say so
        // about the call, which is what the user has to change.
        let from = (i.num_operands() > 0)
            .then(|| i.operand(0))
            .and_then(Value::as_inst);
        if let Some(call) = from.filter(|p| p.called_value().is_some()) {
            if call.called_function().is_none() {
                let d = crate::synth::undifferentiable_call(call, self.req.name);
                return self.diags.push(d);
            }
        }
        self.unsupported(
            i,
            "cannot build a shadow for this pointer (its memory may hold derivatives, but it comes from somewhere enz-rs cannot mirror)",
        );
    }

    /// Whether the memory `p` points to may hold pointers (which the
    /// forward sweep must mirror in shadow memory).
    pub(super) fn holds_pointers(&self, p: Value<'m>) -> bool {
        self.facts.types.pointee_has_pointer(p)
    }

    /// The float type of the memory `p` points to, if it holds floats.
    pub(super) fn float_elem(&self, p: Value<'m>) -> Option<Ty<'m>> {
        let ctx = p.context();
        self.facts
            .types
            .tree(p)
            .first_level()
            .find_map(|(_, t)| float_ty(ctx, t))
    }

    /// The floats inside `n` bytes behind `p` that also holds pointers:
    /// (byte offset, type) of each, from type analysis, repeating its
    /// layout with the period of the last known field. `None` when the
    /// layout is unknown or does not tile `n`.
    fn float_fields(&self, p: Value<'m>, n: u64) -> Option<Vec<(u64, Ty<'m>)>> {
        let ctx = p.context();
        let tree = self.facts.types.tree(p);
        let fields: Vec<(i64, ConcreteType)> =
            tree.first_level().filter(|(o, _)| *o >= 0).collect();
        let extent = fields
            .iter()
            .filter_map(|(o, t)| {
                let size = match t {
                    ConcreteType::Float(k) => k.size(),
                    ConcreteType::Pointer => Some(8),
                    ConcreteType::Integer => Some(1),
                    _ => None,
                };
                size.map(|s| *o as u64 + s)
            })
            .max()?;
        if extent >= n {
            // The layout covers the copy: the floats that lie inside it.
            return Some(
                fields
                    .iter()
                    .filter_map(|(o, t)| {
                        let ty = float_ty(ctx, *t)?;
                        (*o as u64 + ty.alloc_size(p.module()) <= n).then_some((*o as u64, ty))
                    })
                    .collect(),
            );
        }
        // An array of the layout: repeat it.
        let period = extent.next_multiple_of(8);
        if period == 0 || !n.is_multiple_of(period) {
            return None;
        }
        let mut out = Vec::new();
        for k in 0..n / period {
            for (o, t) in &fields {
                if let Some(ty) = float_ty(ctx, *t) {
                    out.push((k * period + *o as u64, ty));
                }
            }
        }
        Some(out)
    }

    /// Whether both ends of copy `i` hold integers at their first byte.
    fn starts_with_integers(&self, i: Inst<'m>) -> bool {
        let at0 = |p: Value<'m>| self.facts.types.pointee_type(p, 0);
        at0(i.operand(0)) == ConcreteType::Integer && at0(i.operand(1)) == ConcreteType::Integer
    }

    /// Reverse of a memcpy of memory holding both floats and pointers:
    /// element by element over the float fields.
    fn reverse_mixed_copy(&mut self, i: Inst<'m>, sd: Value<'m>, ss: Option<Value<'m>>) {
        let Some(n) = i.operand(2).const_int_sext() else {
            if self.starts_with_integers(i) {
                // Bytes such as a string's characters: a copy whose length
                // is known only at run time is taken to be of one kind of
                // element, the one it starts with (what Enzyme assumes).
                return;
            }
            return self.unsupported(
                i,
                "cannot differentiate a copy of memory holding both floats and pointers with a length unknown at compile time",
            );
        };
        let Some(fields) = self.float_fields(i.operand(0), n as u64) else {
            return self.unsupported(
                i,
                "type analysis cannot tell which bytes of this copy are floats (compile with -O1 or above for TBAA, or pass the pointer as enzyme_const)",
            );
        };
        for (off, ty) in fields {
            let pd = self.b.byte_gep(sd, off);
            let dv = self.b.load(ty, pd);
            self.b.store(self.b.zero(ty), pd);
            if let Some(ss) = ss {
                let ps = self.b.byte_gep(ss, off);
                let sv = self.b.load(ty, ps);
                self.b.store(self.b.fadd(sv, dv), ps);
            }
        }
    }

    pub(super) fn reverse_load(&mut self, i: Inst<'m>) {
        if !i.ty().carries_float() {
            return;
        }
        let d = self.take_adjoint(i.as_value());
        let Some(s) = self.shadow_rev(i.operand(0)) else {
            return self.no_shadow(i);
        };
        self.add_to_shadow(i.operand(0), s, d, i.alignment());
    }

    /// The one routine that adds an adjoint `d` to shadow memory `s` (the
    /// shadow of primal pointer `p`): a plain load-add-store on the CPU
    /// and for thread-private GPU addresses, a per-thread sum reduced over
    /// the block at the end for GPU addresses shared by every thread, and
    /// `atomicrmw fadd` otherwise.
    fn add_to_shadow(&mut self, p: Value<'m>, s: Value<'m>, d: Value<'m>, align: u32) {
        let how = match &self.facts.gpu_accesses {
            Some(accesses) => match accesses.classify(p) {
                Accumulate::BlockReduce if self.req.mode == Mode::Split => Accumulate::Atomic,
                how => how,
            },
            // An OpenMP microtask: the thread's own elements plainly.
            None => match &self.facts.team_accesses {
                Some(team) => team.classify(p),
                None => Accumulate::Plain,
            },
        };
        match how {
            Accumulate::Plain => {
                let old = self.b.load(d.ty(), s);
                old.set_alignment(align);
                let new = crate::synth::adjoint::add(&self.b, old, d);
                self.b.store(new, s).set_alignment(align);
            }
            Accumulate::Atomic => gpu::atomic_add(&self.b, s, d),
            Accumulate::Combine => self.combine_into_shadow(p, s, d),
            Accumulate::BlockReduce => {
                let acc = match self.gpu.block_sums.iter().find(|(q, _)| *q == p) {
                    Some((_, a)) => *a,
                    None => {
                        let a = self.sweep.top.alloca(d.ty(), "block_sum");
                        self.sweep.top.store(self.sweep.top.zero(d.ty()), a);
                        self.gpu.block_sums.push((p, a));
                        a
                    }
                };
                let old = self.b.load(d.ty(), acc);
                self.b.store(self.b.fadd(old, d), acc);
            }
        }
    }

    /// At the end of the reverse sweep: the block reductions of adjoints of
    /// addresses shared by every thread.
    pub(super) fn finish_block_sums(&mut self) {
        for (p, acc) in self.gpu.block_sums.clone() {
            let Some(s) = self.shadow_rev(p) else {
                continue;
            };
            let slot = acc.as_inst().expect("a block sum lives in an alloca");
            let v = self.b.load(slot.allocated_type(), acc);
            gpu::block_reduce_add(&self.b, s, v);
        }
    }

    /// `atomicrmw fadd p, v` (what `atomicAdd` becomes): `d(v) += *shadow(p)`;
    /// the shadow keeps its value (an addition passes its adjoint on).
    pub(super) fn reverse_atomic_add(&mut self, i: Inst<'m>) {
        let (p, v) = (i.operand(0), i.operand(1));
        if !v.ty().carries_float() || !self.facts.act.is_shadowed(p) {
            return;
        }
        if !matches!(
            i.atomic_rmw_op(),
            crate::ir::LLVMAtomicRMWBinOp::LLVMAtomicRMWBinOpFAdd
                | crate::ir::LLVMAtomicRMWBinOp::LLVMAtomicRMWBinOpFSub
        ) {
            return self.unsupported(i, "only atomic fadd and fsub can be differentiated");
        }
        if self.facts.act.is_active(i.as_value()) {
            return self.unsupported(
                i,
                "the old value returned by an atomic add cannot be differentiated",
            );
        }
        let Some(s) = self.shadow_rev(p) else {
            return self.no_shadow(i);
        };
        let ds = self.b.load(v.ty(), s);
        let ds = if i.atomic_rmw_op() == crate::ir::LLVMAtomicRMWBinOp::LLVMAtomicRMWBinOpFSub {
            self.b.fneg(ds)
        } else {
            ds
        };
        self.accumulate(v, ds);
    }

    pub(super) fn reverse_store(&mut self, i: Inst<'m>) {
        let (v, p) = (i.operand(0), i.operand(1));
        if v.is_plain_integer_constant() {
            return self.reverse_constant_bits_store(i);
        }
        if !v.ty().carries_float() {
            return;
        }
        if !self.facts.act.is_shadowed(p) {
            if self.facts.act.is_varied(v) && !self.facts.act.is_inactive_memory(p) {
                self.unsupported(
                    i,
                    "a differentiable value is stored to memory that has no shadow (its derivative would be lost)",
                );
            }
            return;
        }
        let Some(s) = self.shadow_rev(p) else {
            return self.no_shadow(i);
        };
        let ds = self.b.load(v.ty(), s);
        ds.set_alignment(i.alignment());
        self.b
            .store(self.b.zero(v.ty()), s)
            .set_alignment(i.alignment());
        self.accumulate(v, ds);
    }

    /// Reverse of a store of an integer constant into shadowed memory that
    /// type analysis does not say holds pointers: the memory may hold
    /// floats (a float moved as an integer and constant-folded: `x[1] =
    /// 0.571` reaching the IR as `store i64 4603318330319733522`), whose
    /// adjoint the overwrite clears. For integer data the shadow is
    /// meaningless, so clearing it is harmless; a pointer slot's shadow
    /// pointer is left alone.
    fn reverse_constant_bits_store(&mut self, i: Inst<'m>) {
        let (v, p) = (i.operand(0), i.operand(1));
        if !self.facts.act.is_shadowed(p) || self.holds_pointers(p) {
            return;
        }
        let Some(s) = self.shadow_rev(p) else {
            return;
        };
        self.b
            .store(self.b.zero(v.ty()), s)
            .set_alignment(i.alignment());
    }

    /// Reverse of a call to the memory function `m`.
    pub(super) fn reverse_memory_call(&mut self, i: Inst<'m>, m: MemFn) {
        if matches!(m, MemFn::Free | MemFn::Delete) {
            // The shadow of a scratch block is allocated here.
            return self.allocate_lazy_shadow(i);
        }
        if m.allocates_through().is_some() {
            // posix_memalign, cudaMalloc: its shadow block is recorded for
            // the call.
            if self.shadows.contains(i.as_value()) {
                if let Some(s) = self.shadow_rev(i.as_value()) {
                    if m.on_device() {
                        cuda_host::device_free(&self.b, s);
                    } else {
                        self.b.free(s);
                    }
                }
            }
            return;
        }
        if m.allocates() {
            if i.ty().kind() == TyKind::Pointer && self.facts.act.is_shadowed(i.as_value()) {
                let Some(s) = self.shadow_rev(i.as_value()) else {
                    return;
                };
                if m == MemFn::Realloc && !self.sweep.releasing {
                    let old = self.shadow_rev(i.operand(0));
                    if let (Some(old), Some(ty)) = (old, self.float_elem(i.as_value())) {
                        let bytes = self.primal(i.operand(1));
                        let bytes = self.b.int_cast(bytes, Ty::int(i.context(), 64));
                        let n = runtime::min_usable(&self.b, old, bytes);
                        runtime::add_and_zero(&self.b, ty, s, old, n);
                    }
                }
                self.free_allocation_shadow(i, m, s);
                self.clear_lazy_slot(i.as_value());
            }
            return;
        }
        if m.transfers() {
            let (d, src) = (i.operand(0), i.operand(1));
            if !self.facts.act.is_shadowed(d) {
                return;
            }
            if self.holds_pointers(d) && self.float_elem(d).is_some() {
                if let Some(sd) = self.shadow_rev(d) {
                    let ss = if self.facts.act.is_shadowed(src) {
                        self.shadow_rev(src)
                    } else {
                        None
                    };
                    self.reverse_mixed_copy(i, sd, ss);
                }
                return;
            }
            if self.facts.types.is_untyped_copy(i) {
                self.diags.push(
                    Diagnostic::new(
                        "type analysis cannot tell whether this copy moves floats, so its adjoint cannot be propagated (its pointers carry no type here: they come from the caller or from memory of unknown type)",
                    )
                    .in_function(self.req.name)
                    .at(i)
                    .help("let enz-rs inline the function doing the copy into its caller (do not pass --no-inline; mark it always_inline), or compile with -O1 or above so TBAA says what is copied"),
                );
                return;
            }
            if let Some(ty) = self.float_elem(d) {
                let sd = self.shadow_rev(d);
                let n = self.primal(i.operand(2));
                let n = self.b.int_cast(n, Ty::int(i.context(), 64));
                if m.on_device() {
                    // Device memory: through host copies.
                    let ss = if self.facts.act.is_shadowed(src) {
                        self.shadow_rev(src)
                    } else {
                        None
                    };
                    if let Some(sd) = sd {
                        cuda_host::add_and_zero(&self.b, ty, sd, ss, n);
                    }
                    return;
                }
                match (sd, self.facts.act.is_shadowed(src)) {
                    (Some(sd), true) => {
                        if let Some(ss) = self.shadow_rev(src) {
                            runtime::add_and_zero(&self.b, ty, sd, ss, n);
                        }
                    }
                    (Some(sd), false) => {
                        self.b.memset_zero(sd, n);
                    }
                    _ => {}
                }
            }
            return;
        }
        if m.sets() {
            let d = i.operand(0);
            if self.facts.act.is_shadowed(d) && self.float_elem(d).is_some() {
                if let Some(sd) = self.shadow_rev(d) {
                    let n = self.primal(i.operand(2));
                    if m.on_device() {
                        let n = self.b.int_cast(n, Ty::int(i.context(), 64));
                        cuda_host::zero(&self.b, sd, n);
                    } else {
                        self.b.memset_zero(sd, n);
                    }
                }
            }
        }
        // A free frees the primal only: the shadow of its memory was freed
        // where the allocation is undone.
    }

    /// Frees `s`, the shadow of what allocation call `i` returned: with
    /// `free`, or a user allocator's deallocator (its arguments: the
    /// shadow for `-1`, the allocation call's argument `k` for `k`).
    fn free_allocation_shadow(&mut self, i: Inst<'m>, m: MemFn, s: Value<'m>) {
        let user = match m {
            MemFn::Allocation { .. } => i
                .called_function()
                .and_then(|f| self.facts.allocators.get(&f).copied()),
            _ => None,
        };
        let Some(a) = user else {
            return self.release_shadow(i, s);
        };
        let params = a.deallocator.params();
        let mut args = Vec::new();
        for (k, &j) in a.deallocator_args[..a.deallocator_argc as usize]
            .iter()
            .enumerate()
        {
            let v = if j < 0 {
                s
            } else if (j as u32) < i.call_num_args() {
                self.primal(i.operand(j as u32))
            } else {
                return self.unsupported(i, "the deallocator of this allocation-like function takes an argument the allocation call does not have");
            };
            if params.get(k).is_none_or(|p| p.ty() != v.ty()) {
                return self.unsupported(i, "the deallocator registered for this allocation-like function does not take the arguments its __enzyme_allocation_like entry lists");
            }
            args.push(v);
        }
        let d = a.deallocator;
        self.b.call(d.function_type(), d, &args);
    }

    /// Releases `s`, the shadow block of allocation call `i`, the way a
    /// block of `i`'s allocator is released (`operator delete` for `new`,
    /// with the alignment for aligned `new`; `free` otherwise).
    fn release_shadow(&mut self, i: Inst<'m>, s: Value<'m>) {
        let name = i.called_function().map(|f| f.name()).unwrap_or_default();
        match MemFn::release_of(&name) {
            Some((delete, aligned)) if delete != "free" => {
                let ctx = i.context();
                let mut args = vec![s];
                let mut params = vec![s.ty()];
                if aligned {
                    let align = self.primal(i.operand(1));
                    params.push(align.ty());
                    args.push(align);
                }
                let fty = Ty::function(Ty::void(ctx), &params, false);
                self.b.call_named(delete, fty, &args);
            }
            _ => {
                self.b.free(s);
            }
        }
    }

    /// Reverse of an alloca: split mode frees its heap shadow.
    pub(super) fn reverse_alloca(&mut self, i: Inst<'m>) {
        if self.req.mode == Mode::Split && self.facts.act.is_shadowed(i.as_value()) {
            if let Some(s) = self.shadow_rev(i.as_value()) {
                self.b.free(s);
            }
        }
    }
}

/// The IR type of a float type-analysis entry enz-rs accumulates
/// adjoints of (`double`, `float`).
fn float_ty<'m>(ctx: crate::ir::Context<'m>, t: ConcreteType) -> Option<Ty<'m>> {
    match t {
        ConcreteType::Float(FloatKind::F64) => Some(Ty::double(ctx)),
        ConcreteType::Float(FloatKind::F32) => Some(Ty::float(ctx)),
        _ => None,
    }
}
