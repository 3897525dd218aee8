//! Shadows of pointers in the forward sweep.
//!
//! Every pointer that activity analysis marks shadowed gets a shadow value
//! in the function holding the forward sweep: the `dup` parameter's
//! shadow, a shadow GEP/cast/select/phi mirroring the primal one, a zeroed
//! shadow allocation, a shadow global, or a pointer loaded from shadow
//! memory. Phis are created empty and completed once every shadow exists.

use super::registry::Registry;
use super::runtime;
use crate::analysis::activity::{address_bits_base, Activity};
use crate::analysis::calls::{CallKind, CallKinds, Direction};
use crate::diag::Diagnostic;
use crate::ir::LLVMOpcode;
use crate::ir::{Block, Builder, Inst, Ty, TyKind, Value, ValueMap};
use crate::names::MemFn;
use std::collections::HashMap;

/// What [`ShadowMap::mirror`] did with an instruction.
#[derive(Clone, PartialEq, Eq, Debug)]
pub(crate) enum Mirror {
    /// The instruction is a shadowed pointer and now has its shadow.
    Built,
    /// The instruction produces no shadowed pointer (nothing to do here).
    NotShadowed,
    /// It needs a shadow that cannot be built.
    Impossible,
    /// Building the shadow of a constant operand failed (the derivatives
    /// of a function whose address it holds).
    Failed(Diagnostic),
}

/// What [`ShadowMap::mirror`] reads about the function being
/// differentiated.
pub(crate) struct MirrorContext<'a, 'm> {
    pub(crate) act: &'a Activity<'m>,
    pub(crate) kinds: &'a CallKinds<'m>,
    /// Which derivatives the shadows of functions need.
    pub(crate) direction: Direction,
    /// Shadow allocas on the heap (a split forward frame is gone before
    /// the reverse sweep runs).
    pub(crate) heap_allocas: bool,
}

/// Primal pointers (of the preprocessed function) to their shadows in the
/// forward sweep.
#[derive(Default)]
pub(crate) struct ShadowMap<'m> {
    shadows: HashMap<Value<'m>, Value<'m>>,
    pending_phis: Vec<(Inst<'m>, Inst<'m>)>,
    /// The lane of a vector mode these shadows belong to (0 otherwise):
    /// globals have a shadow per lane.
    lane: u32,
}

impl<'m> ShadowMap<'m> {
    /// Starts with the shadows of the `dup` parameters.
    pub(crate) fn new(params: HashMap<Value<'m>, Value<'m>>) -> ShadowMap<'m> {
        ShadowMap {
            shadows: params,
            pending_phis: Vec::new(),
            lane: 0,
        }
    }

    /// These shadows, for `lane` of a vector mode.
    pub(crate) fn in_lane(mut self, lane: usize) -> ShadowMap<'m> {
        self.lane = lane as u32;
        self
    }

    pub(crate) fn insert(&mut self, primal: Value<'m>, shadow: Value<'m>) {
        self.shadows.insert(primal, shadow);
    }

    /// The forward-sweep shadow of `p`: null, undef and constant integer
    /// addresses (Rust's dangling pointers) are their own shadows.
    pub(crate) fn forward(&self, p: Value<'m>) -> Option<Value<'m>> {
        if let Some(s) = self.shadows.get(&p) {
            return Some(*s);
        }
        (!p.is_instruction()
            && !p.is_argument()
            && (p.is_undef_or_null() || p.is_constant_int_address()))
        .then_some(p)
    }

    /// Registers an empty shadow phi to complete later.
    pub(crate) fn defer_phi(&mut self, primal: Inst<'m>, shadow: Inst<'m>) {
        self.shadows.insert(primal.as_value(), shadow.as_value());
        self.pending_phis.push((primal, shadow));
    }

    /// Adds the incoming shadows to every deferred phi.
    pub(crate) fn finish_phis(&mut self, map: &ValueMap<'m>) {
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

    /// The shadow globals in use: (global, shadow).
    pub(crate) fn globals(&self) -> Vec<(Value<'m>, Value<'m>)> {
        let mut out: Vec<(Value, Value)> = Vec::new();
        for (k, v) in &self.shadows {
            let (mut g, mut s) = (*k, *v);
            // Through constant casts and GEPs to the globals themselves.
            while !g.is_global_variable()
                && !g.is_function()
                && !g.is_instruction()
                && !g.is_argument()
                && g.num_operands() > 0
            {
                g = g.operand(0);
                s = s.operand(0);
            }
            if g.is_global_variable() && !out.iter().any(|(x, _)| *x == g) {
                out.push((g, s));
            }
        }
        out
    }

    /// Every shadow made (the `dup` parameters' included).
    pub(crate) fn values(&self) -> impl Iterator<Item = Value<'m>> + '_ {
        self.shadows.values().copied()
    }

    /// Every (primal pointer, shadow) pair.
    pub(crate) fn pairs(&self) -> impl Iterator<Item = (Value<'m>, Value<'m>)> + '_ {
        self.shadows.iter().map(|(p, s)| (*p, *s))
    }

    /// Whether `p` has a shadow already.
    pub(crate) fn contains(&self, p: Value<'m>) -> bool {
        self.shadows.contains_key(&p)
    }

    /// Builds, right after `gi` (the forward clone of `i`), the shadow of
    /// pointer instruction `i` if activity says it needs one: mirrored
    /// GEPs, casts, selects and phis; zeroed shadow allocations (on the
    /// heap for allocas when `heap_allocas`, since a split forward frame is
    /// gone before the reverse runs); pointers loaded from shadow memory.
    /// Shadow globals of the operands are created on the way.
    pub(crate) fn mirror(
        &mut self,
        i: Inst<'m>,
        gi: Inst<'m>,
        cx: &MirrorContext<'_, 'm>,
        registry: &mut Registry<'m>,
    ) -> Mirror {
        use LLVMOpcode::*;
        let (act, kinds, direction) = (cx.act, cx.kinds, cx.direction);
        let heap_allocas = cx.heap_allocas;
        for o in i.operands() {
            if !o.is_instruction() && !o.is_argument() && act.is_shadowed(o) && !self.contains(o) {
                match shadow_constant_in_lane(o, direction, self.lane, registry) {
                    Ok(Some(s)) => self.insert(o, s),
                    Ok(None) => {}
                    Err(d) => return Mirror::Failed(d.at(i)),
                }
            }
        }
        if let Some(m) = kinds
            .get(i.into())
            .memory()
            .filter(|m| m.allocates_through().is_some())
        {
            return self.mirror_allocation_through(i, gi, m, act);
        }
        if kinds.get(i.into()) == CallKind::Structure {
            return self.mirror_structure_call(i, gi, act);
        }
        let t = i.ty();
        let pointer_vector = t.kind() == TyKind::Vector && t.element().kind() == TyKind::Pointer;
        if (t.kind() != TyKind::Pointer && !pointer_vector) || !act.is_shadowed(i.into()) {
            return Mirror::NotShadowed;
        }
        // A vector of pointers (a gather's or scatter's addresses) is
        // mirrored where it is computed from its base.
        if pointer_vector
            && !matches!(
                i.opcode(),
                Some(
                    LLVMGetElementPtr
                        | LLVMBitCast
                        | LLVMAddrSpaceCast
                        | LLVMFreeze
                        | LLVMSelect
                        | LLVMPHI
                        | LLVMInsertElement
                        | LLVMShuffleVector
                )
            )
        {
            return Mirror::Impossible;
        }
        let fb = Builder::new(i.context());
        let i64t = Ty::int(i.context(), 64);
        let s = match i.opcode() {
            Some(LLVMGetElementPtr | LLVMBitCast | LLVMAddrSpaceCast | LLVMFreeze) => {
                let Some(base) = self.forward(i.operand(0)) else {
                    return Mirror::Impossible;
                };
                fb.position_after(gi);
                let s = gi.clone_instruction();
                fb.insert(s);
                s.set_operand(0, base);
                s.as_value()
            }
            // Pointers into, between and out of vectors: the same with
            // each pointer operand's shadow (undef and poison stay).
            Some(LLVMInsertElement | LLVMShuffleVector | LLVMExtractElement) => {
                let mut shadows = Vec::new();
                for k in 0..i.num_operands() {
                    let o = i.operand(k);
                    let ot = o.ty();
                    let pointerish = ot.kind() == TyKind::Pointer
                        || (ot.kind() == TyKind::Vector && ot.element().kind() == TyKind::Pointer);
                    if !pointerish || o.is_undef_or_null() {
                        continue;
                    }
                    let Some(so) = self.forward(o) else {
                        return Mirror::Impossible;
                    };
                    shadows.push((k, so));
                }
                let s = gi.clone_instruction();
                for (k, so) in shadows {
                    s.set_operand(k, so);
                }
                fb.position_after(gi);
                fb.insert(s);
                s.as_value()
            }
            Some(LLVMSelect) => {
                let (Some(a), Some(b)) = (self.forward(i.operand(1)), self.forward(i.operand(2)))
                else {
                    return Mirror::Impossible;
                };
                fb.position_after(gi);
                fb.select(gi.operand(0), a, b)
            }
            // An address computed from an integer that held no pointer
            // (see preprocess::int_pointers): no memory, no shadow.
            Some(LLVMIntToPtr)
                if i.as_value()
                    .metadata_node(crate::names::NOT_A_POINTER)
                    .is_some() =>
            {
                fb.zero(i.ty())
            }
            // An address computed from one pointer's bits (Eigen's aligned
            // malloc: `(p & -32) + 32`): the same arithmetic on the
            // shadow's bits, so the shadow keeps the alignment the
            // primal's accesses assume.
            Some(LLVMIntToPtr) if address_bits_base(i.operand(0)).is_some() => {
                fb.position_after(gi);
                match self.mirror_address_bits(i.operand(0), gi.operand(0), &fb) {
                    Some(bits) => fb.int_to_ptr(bits, i.ty()),
                    None => return Mirror::Impossible,
                }
            }
            Some(LLVMPHI) => {
                position_at_top(&fb, gi.parent_block());
                let s = fb.phi(i.ty(), &format!("{}'", gi.name()));
                self.defer_phi(i, s);
                return Mirror::Built;
            }
            Some(LLVMAlloca) => {
                fb.position_after(gi);
                let size = fb.const_int(i64t, i.allocated_type().alloc_size(i.module()) as i64);
                let count = fb.int_cast(gi.operand(0), i64t);
                let bytes = fb.mul(size, count);
                let s = if heap_allocas {
                    heap_shadow_of_alloca(&fb, bytes, i.alignment())
                } else {
                    let s = gi.clone_instruction();
                    fb.insert(s);
                    s
                };
                fb.memset_zero(s.as_value(), bytes);
                s.as_value()
            }
            Some(LLVMLoad) => {
                let Some(addr) = self.forward(i.operand(0)) else {
                    return Mirror::Impossible;
                };
                fb.position_after(gi);
                let s = fb.load(i.ty(), addr);
                s.set_alignment(i.alignment());
                // A pointer the program stored in a global outside
                // differentiated code has a null shadow: stop with a
                // message rather than fault on it.
                let root = crate::analysis::gpu::root_object(i.operand(0));
                let f = gi.parent_block().parent();
                if i.ty().kind() == TyKind::Pointer
                    && root.is_global_variable()
                    && !crate::synth::gpu::is_gpu_module(f)
                {
                    let after = Builder::new(i.context());
                    match s.as_inst().and_then(|l| l.next_instruction()) {
                        Some(next) => after.position_before(next),
                        None => after.position_at_end(gi.parent_block()),
                    }
                    runtime::check_global_shadow(&after, gi.as_value(), s, &root.name());
                }
                s
            }
            Some(LLVMCall | LLVMInvoke) => {
                let mem = kinds.get(i.into()).memory().filter(|m| m.allocates());
                if mem.is_none() {
                    return Mirror::NotShadowed;
                }
                fb.position_after(gi);
                if mem == Some(MemFn::Realloc) {
                    // A new zeroed block holding the old shadow's contents;
                    // the old shadow stays alive for the reverse sweep.
                    let old = self
                        .forward(i.operand(0))
                        .unwrap_or_else(|| fb.zero(i.ty()));
                    let bytes = fb.int_cast(gi.operand(1), i64t);
                    let s = fb.malloc(bytes);
                    fb.memset_zero(s.as_value(), bytes);
                    let keep = runtime::min_usable(&fb, old, bytes);
                    fb.memcpy(s.as_value(), old, keep);
                    s.as_value()
                } else {
                    let s = gi.clone_instruction();
                    fb.insert(s);
                    if let Some(k) = mem.and_then(MemFn::size_argument) {
                        let bytes = fb.int_cast(gi.operand(k), i64t);
                        fb.memset_zero(s.as_value(), bytes);
                    }
                    s.as_value()
                }
            }
            _ => return Mirror::Impossible,
        };
        s.set_name(&format!("{}'", gi.name()));
        self.insert(i.into(), s);
        Mirror::Built
    }
}

impl<'m> ShadowMap<'m> {
    /// The integer address `iv` (whose forward-sweep copy is `gv`), made
    /// of one `ptrtoint` and constants (see `address_bits_base`), with the
    /// `ptrtoint` of the pointer's shadow instead; `None` when the pointer
    /// has no shadow.
    fn mirror_address_bits(
        &self,
        iv: Value<'m>,
        gv: Value<'m>,
        fb: &Builder<'m>,
    ) -> Option<Value<'m>> {
        if iv.opcode() == Some(LLVMOpcode::LLVMPtrToInt) {
            let s = self.forward(iv.operand(0))?;
            return Some(fb.ptr_to_int(s, iv.ty()));
        }
        if !iv.is_instruction() {
            return Some(gv);
        }
        let g = gv.as_inst()?;
        // Both operands first, so that a failure leaves no clone behind
        // (an instruction in no block still uses its operands).
        let a = self.mirror_address_bits(iv.operand(0), gv.operand(0), fb)?;
        let b = self.mirror_address_bits(iv.operand(1), gv.operand(1), fb)?;
        let s = g.clone_instruction();
        s.as_value().set_operand(0, a);
        s.as_value().set_operand(1, b);
        fb.insert(s);
        Some(s.as_value())
    }

    /// A call relinking a pointer structure (see `is_structure_function`)
    /// whose pointers have shadows: the same call right after it on the
    /// shadows, so the shadow structure keeps the primal's shape; its
    /// result is the shadow of the primal result.
    fn mirror_structure_call(&mut self, i: Inst<'m>, gi: Inst<'m>, act: &Activity<'m>) -> Mirror {
        let n = i.call_num_args();
        let pointers: Vec<u32> = (0..n)
            .filter(|&k| i.operand(k).ty().kind() == TyKind::Pointer)
            .collect();
        if !pointers.iter().any(|&k| act.is_shadowed(i.operand(k))) {
            return Mirror::NotShadowed;
        }
        let mut shadows = Vec::with_capacity(pointers.len());
        for &k in &pointers {
            match self.forward(i.operand(k)) {
                Some(s) => shadows.push((k, s)),
                // Relinking a shadow structure into primal nodes would
                // corrupt the primal one.
                None => return Mirror::Impossible,
            }
        }
        let fb = Builder::new(i.context());
        fb.position_after(gi);
        let s = gi.clone_instruction();
        fb.insert(s);
        for (k, sp) in shadows {
            s.set_operand(k, sp);
        }
        if i.ty().kind() == TyKind::Pointer {
            s.set_name(&format!("{}'", gi.name()));
            self.insert(i.into(), s.as_value());
        }
        Mirror::Built
    }

    /// `posix_memalign(p, align, size)` with a shadowed `p`: the same call
    /// into the shadow of `*p`, the new block zeroed; the block is the
    /// shadow recorded for the call itself, so that the reverse sweep can
    /// free it whatever `*p` holds by then.
    fn mirror_allocation_through(
        &mut self,
        i: Inst<'m>,
        gi: Inst<'m>,
        m: MemFn,
        act: &Activity<'m>,
    ) -> Mirror {
        let k = m
            .allocates_through()
            .expect("an allocation through a pointer");
        let p = i.operand(k);
        if !act.is_shadowed(p) {
            return Mirror::NotShadowed;
        }
        let Some(sp) = self.forward(p) else {
            return Mirror::Impossible;
        };
        let fb = Builder::new(i.context());
        fb.position_after(gi);
        let c = gi.clone_instruction();
        fb.insert(c);
        c.set_operand(k, sp);
        let ptr = p.ty();
        let s = fb.load(ptr, sp);
        s.set_name(&format!("{}'", gi.name()));
        let size = m
            .size_argument()
            .expect("an allocation through a pointer has a size");
        let bytes = fb.int_cast(gi.operand(size), Ty::int(i.context(), 64));
        if m.on_device() {
            crate::synth::cuda_host::device_memset_zero(&fb, s, bytes);
        } else {
            fb.memset_zero(s, bytes);
        }
        self.insert(i.into(), s);
        Mirror::Built
    }
}

/// The first insertion point of a block, for new phis.
pub(crate) fn position_at_top<'m>(b: &Builder<'m>, blk: Block<'m>) {
    match blk.first_instruction() {
        Some(i) => b.position_before(i),
        None => b.position_at_end(blk),
    }
}

/// The shadow of a constant pointer: a global's shadow global, a
/// function's shadow table, through constant casts and GEPs.
pub(crate) fn shadow_constant<'m>(
    c: Value<'m>,
    direction: Direction,
    registry: &mut Registry<'m>,
) -> Result<Option<Value<'m>>, Diagnostic> {
    shadow_constant_in_lane(c, direction, 0, registry)
}

/// [`shadow_constant`] in `lane` of a vector mode: globals' shadows are
/// the lane's own (function tables are shared).
pub(crate) fn shadow_constant_in_lane<'m>(
    c: Value<'m>,
    direction: Direction,
    lane: u32,
    registry: &mut Registry<'m>,
) -> Result<Option<Value<'m>>, Diagnostic> {
    if let Some(g) = c.as_global() {
        let s = registry.shadow_global_in_lane(g, direction, lane)?;
        return Ok(Some(s.as_value()));
    }
    if let Some(f) = c.as_function() {
        return Ok(Some(registry.function_shadow(f, direction)?.as_value()));
    }
    if !c.is_constant_expr() {
        return Ok(None);
    }
    let Some(base) = shadow_constant_in_lane(c.operand(0), direction, lane, registry)? else {
        return Ok(None);
    };
    Ok(c.rebase_constant_expr(base))
}

/// A split pair's heap shadow of an alloca of `bytes` bytes and alignment
/// `align` (the reverse function runs after the augmented one's frame is
/// gone): `malloc`, whose blocks are 16-byte aligned, or, for a more
/// aligned alloca (Rust's `__m512d` locals, align 64: the derivative's
/// accesses claim the alloca's alignment, an AVX-512 `vmovapd` on a
/// 16-byte-aligned block faults), `aligned_alloc(align, bytes rounded up
/// to a multiple of align)`. Both are released by `free`.
fn heap_shadow_of_alloca<'m>(fb: &Builder<'m>, bytes: Value<'m>, align: u32) -> Inst<'m> {
    if align <= 16 {
        return fb.malloc(bytes);
    }
    let ctx = fb.ctx();
    let (i64t, ptr) = (Ty::int(ctx, 64), Ty::ptr(ctx));
    let a = fb.const_int(i64t, i64::from(align));
    let rounded = fb.mul(
        fb.udiv(fb.add(bytes, fb.const_int(i64t, i64::from(align) - 1)), a),
        a,
    );
    let fty = Ty::function(ptr, &[i64t, i64t], false);
    fb.call_named(crate::names::ALIGNED_ALLOC, fty, &[a, rounded])
}
