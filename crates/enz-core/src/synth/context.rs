//! Contexts of global shadows (Enzyme's `__enzyme_context`): sets of
//! shadows of the module's globals that live between derivative calls,
//! seeded and read by the program, one set per context.
//!
//! A context is one heap block: a header (its lane count, then padding to
//! 16 bytes) and, per lane, a copy of every shadow global enz-rs made
//! (each at a 16-byte-aligned offset, the same in every lane). The front
//! end lowers `__enzyme_context(w)`, `__enzyme_shadow(ctx, p, lane)` and
//! `__enzyme_zero_shadows(ctx)` to calls of `__enz_ctx_new`,
//! `__enz_ctx_shadow` and `__enz_ctx_zero`, and a derivative call given
//! `enzyme_context, ctx` to `__enz_ctx_enter(ctx); call;
//! __enz_ctx_leave(ctx)`. Their bodies are made here, when the session
//! commits and every shadow global is known: entering copies the context
//! into the shadow globals and tells the derivative's entry not to zero
//! them ([`define_reset`]); leaving copies them back, so that adjoints
//! accumulate in the context and tangents seeded there are read.

use super::registry::Registry;
use crate::diag::Diagnostic;
use crate::ir::{add_internal_global, LLVMIntPredicate};
use crate::ir::{named_function, Builder, Function, Global, Module, Ty, Value};
use crate::names::RESET_SHADOWS;
use crate::names::{CTX_ENTER, CTX_ENTERED, CTX_LEAVE, CTX_NEW, CTX_SHADOW, CTX_ZERO};

/// Bytes before the first lane's copies.
const HEADER: u64 = 16;

/// One global's place in every lane of a context.
struct Entry<'m> {
    primal: Global<'m>,
    /// Its shadow global in each lane.
    shadows: Vec<Global<'m>>,
    /// The initial contents of each lane's shadow where it holds function
    /// tables or pointers into shadows (restored instead of zeroed).
    inits: Vec<Option<Global<'m>>>,
    bytes: u64,
    offset: u64,
    /// Offsets of the pointers in its value (of a shadow holding pointers
    /// into other shadows: remapped between a context's copies and the
    /// shadow globals).
    pointers: Vec<u64>,
}

/// Where every shadow global sits in a context.
struct Layout<'m> {
    entries: Vec<Entry<'m>>,
    /// Bytes of one lane's copies.
    lane_bytes: u64,
    lanes: u32,
}

impl<'m> Layout<'m> {
    fn of(registry: &mut Registry<'m>, module: Module<'m>, lanes: u32) -> Result<Self, Diagnostic> {
        let initialised = registry.initialised_shadow_globals();
        let mut entries = Vec::new();
        let mut offset = 0;
        for (primal, shadows) in registry.shadow_globals_in_lanes(lanes)? {
            if primal.is_thread_local() {
                continue;
            }
            let bytes = primal.global_value_type().alloc_size(module);
            let inits: Vec<Option<Global<'m>>> = shadows
                .iter()
                .map(|lane| initialised.iter().find(|(s, _)| s == lane).map(|(_, i)| *i))
                .collect();
            let mut pointers = Vec::new();
            if inits.iter().any(Option::is_some) {
                pointer_offsets(primal.global_value_type(), module, 0, &mut pointers);
            }
            entries.push(Entry {
                primal,
                shadows,
                inits,
                bytes,
                offset,
                pointers,
            });
            offset += bytes.div_ceil(16) * 16;
        }
        Ok(Layout {
            entries,
            lane_bytes: offset.max(16),
            lanes: lanes.max(1),
        })
    }
}

/// Defines the context helpers the front end declared in `module`, for
/// contexts of up to `lanes` lanes (the shadow globals of each lane made
/// where missing). Call before the shadow globals are listed for
/// [`define_reset`].
pub(crate) fn define<'m>(
    registry: &mut Registry<'m>,
    module: Module<'m>,
    lanes: u32,
) -> Result<(), Diagnostic> {
    let layout = Layout::of(registry, module, lanes)?;
    let ctx = crate::ir::module_context(module);
    let (ptr, i8t, i64t) = (Ty::ptr(ctx), Ty::int(ctx, 8), Ty::int(ctx, 64));
    let flag = entered_flag(module);
    if let Some(f) = helper(module, CTX_NEW) {
        let b = start(f);
        let w = b.int_cast(f.params()[0], i64t);
        let bytes = b.add(
            b.const_int(i64t, HEADER as i64),
            b.mul(w, b.const_int(i64t, layout.lane_bytes as i64)),
        );
        let calloc = Ty::function(ptr, &[i64t, i64t], false);
        let c = b
            .call_named(crate::names::CALLOC, calloc, &[b.const_int(i64t, 1), bytes])
            .as_value();
        b.store(w, c);
        restore_tables(&b, &layout, c, w);
        b.ret(Some(c));
    }
    if let Some(f) = helper(module, CTX_ZERO) {
        let b = start(f);
        let c = f.params()[0];
        let w = b.load(i64t, c);
        let data = b.byte_gep(c, HEADER);
        b.memset_zero(data, b.mul(w, b.const_int(i64t, layout.lane_bytes as i64)));
        restore_tables(&b, &layout, c, w);
        b.ret(None);
    }
    if let Some(f) = helper(module, CTX_SHADOW) {
        define_shadow(f, &layout, i64t);
    }
    for (name, into_globals) in [(CTX_ENTER, true), (CTX_LEAVE, false)] {
        let Some(f) = helper(module, name) else {
            continue;
        };
        let b = start(f);
        let c = f.params()[0];
        let w = b.load(i64t, c);
        for_each_lane(&b, f, &layout, w, |b, lane| {
            for e in &layout.entries {
                let copy = lane_copy(b, c, &layout, e, lane);
                let global = e.shadows[lane as usize].as_value();
                let bytes = b.const_int(i64t, e.bytes as i64);
                let (dst, src) = if into_globals {
                    (global, copy)
                } else {
                    (copy, global)
                };
                b.memcpy(dst, src, bytes);
            }
            for e in &layout.entries {
                let dst = match into_globals {
                    true => e.shadows[lane as usize].as_value(),
                    false => lane_copy(b, c, &layout, e, lane),
                };
                remap_pointers(b, c, &layout, e, lane, dst, !into_globals);
            }
        });
        b.store(b.const_int(i8t, i64::from(into_globals)), flag.as_value());
        b.ret(None);
    }
    Ok(())
}

/// Defines `__enz_reset_shadows()`, which every derivative the program
/// calls runs first when the module uses contexts: unless a context was
/// just entered, zero `zeroed` and restore each `(shadow, initial)`
/// table; the flag is cleared either way.
pub(crate) fn define_reset<'m>(
    module: Module<'m>,
    zeroed: &[Global<'m>],
    tables: &[(Global<'m>, Global<'m>)],
) -> Function<'m> {
    let ctx = crate::ir::module_context(module);
    let (i8t, i64t) = (Ty::int(ctx, 8), Ty::int(ctx, 64));
    let fty = Ty::function(Ty::void(ctx), &[], false);
    let f = crate::ir::add_internal_function(module, RESET_SHADOWS, fty);
    f.add_function_attribute("alwaysinline");
    let flag = entered_flag(module).as_value();
    let b = Builder::new(ctx);
    let entry = f.append_block("entry");
    let reset = f.append_block("reset");
    let done = f.append_block("done");
    b.position_at_end(entry);
    let was = b.load(i8t, flag);
    b.store(b.const_int(i8t, 0), flag);
    let entered = b.icmp(LLVMIntPredicate::LLVMIntNE, was, b.const_int(i8t, 0));
    b.cond_br(entered, done, reset);
    b.position_at_end(reset);
    for g in zeroed {
        let bytes = g.global_value_type().alloc_size(module);
        b.memset_zero(g.as_value(), b.const_int(i64t, bytes as i64));
    }
    for (g, init) in tables {
        let bytes = g.global_value_type().alloc_size(module);
        b.memcpy(
            g.as_value(),
            init.as_value(),
            b.const_int(i64t, bytes as i64),
        );
    }
    b.br(done);
    b.position_at_end(done);
    b.ret(None);
    f
}

/// `__enz_ctx_shadow(ctx, p, lane)`: the global holding `p`, found by
/// address, gives the offset into the lane's copies; null for a pointer
/// into no shadowed global.
fn define_shadow<'m>(f: Function<'m>, layout: &Layout<'m>, i64t: Ty<'m>) {
    use LLVMIntPredicate::*;
    let b = start(f);
    let ps = f.params();
    let (c, p, lane) = (ps[0], ps[1], ps[2]);
    let at = b.ptr_to_int(p, i64t);
    let lane = b.int_cast(lane, i64t);
    let lane_base = b.mul(lane, b.const_int(i64t, layout.lane_bytes as i64));
    for e in &layout.entries {
        let start = b.ptr_to_int(e.primal.as_value(), i64t);
        let end = b.add(start, b.const_int(i64t, e.bytes as i64));
        let inside = b.and(b.icmp(LLVMIntUGE, at, start), b.icmp(LLVMIntULT, at, end));
        let found = f.append_block("found");
        let next = f.append_block("next");
        b.cond_br(inside, found, next);
        b.position_at_end(found);
        let offset = b.add(
            b.add(lane_base, b.const_int(i64t, (HEADER + e.offset) as i64)),
            b.sub(at, start),
        );
        let i8t = Ty::int(b.ctx(), 8);
        b.ret(Some(b.gep(i8t, c, &[offset])));
        b.position_at_end(next);
    }
    b.ret(Some(Ty::ptr(b.ctx()).null_constant()));
}

/// Emits `body` for each lane below `w` (at most the layout's lanes).
fn for_each_lane<'m>(
    b: &Builder<'m>,
    f: Function<'m>,
    layout: &Layout<'m>,
    w: Value<'m>,
    mut body: impl FnMut(&Builder<'m>, u32),
) {
    let i64t = w.ty();
    for lane in 0..layout.lanes {
        let this = f.append_block("lane");
        let next = f.append_block("next");
        let has = b.icmp(
            LLVMIntPredicate::LLVMIntULT,
            b.const_int(i64t, i64::from(lane)),
            w,
        );
        b.cond_br(has, this, next);
        b.position_at_end(this);
        body(b, lane);
        b.br(next);
        b.position_at_end(next);
    }
}

/// The initial contents of the shadows holding function tables, in every
/// lane of context `c` (of `w` lanes).
fn restore_tables<'m>(b: &Builder<'m>, layout: &Layout<'m>, c: Value<'m>, w: Value<'m>) {
    let f = b.insert_block().parent();
    let i64t = w.ty();
    for_each_lane(b, f, layout, w, |b, lane| {
        for e in &layout.entries {
            if let Some(init) = e.inits[lane as usize] {
                let copy = lane_copy(b, c, layout, e, lane);
                b.memcpy(copy, init.as_value(), b.const_int(i64t, e.bytes as i64));
                remap_pointers(b, c, layout, e, lane, copy, true);
            }
        }
    });
}

/// The pointers of `e`'s copy at `at` (lane `lane` of context `c`, or its
/// shadow global): each pointing into a shadow global of the lane is moved
/// to the same place in the context's copy (`to_context`), or back.
fn remap_pointers<'m>(
    b: &Builder<'m>,
    c: Value<'m>,
    layout: &Layout<'m>,
    e: &Entry<'m>,
    lane: u32,
    at: Value<'m>,
    to_context: bool,
) {
    use LLVMIntPredicate::*;
    let ctx = b.ctx();
    let (ptr, i64t) = (Ty::ptr(ctx), Ty::int(ctx, 64));
    for off in &e.pointers {
        let slot = b.byte_gep(at, *off);
        let p = b.load(ptr, slot);
        let pi = b.ptr_to_int(p, i64t);
        let mut moved = pi;
        for h in &layout.entries {
            let global = b.ptr_to_int(h.shadows[lane as usize].as_value(), i64t);
            let copy = b.ptr_to_int(lane_copy(b, c, layout, h, lane), i64t);
            let (from, to) = if to_context {
                (global, copy)
            } else {
                (copy, global)
            };
            let end = b.add(from, b.const_int(i64t, h.bytes as i64));
            let inside = b.and(b.icmp(LLVMIntUGE, pi, from), b.icmp(LLVMIntULT, pi, end));
            let there = b.add(to, b.sub(pi, from));
            moved = b.select(inside, there, moved);
        }
        b.store(b.int_to_ptr(moved, ptr), slot);
    }
}

/// The offsets of the pointers in a value of type `ty` at `base` (arrays
/// of up to 64 elements).
fn pointer_offsets<'m>(ty: Ty<'m>, module: Module<'m>, base: u64, out: &mut Vec<u64>) {
    match ty.kind() {
        crate::ir::TyKind::Pointer => out.push(base),
        crate::ir::TyKind::Struct => {
            for k in 0..ty.len() as u32 {
                if let Some(o) = ty.field_offset(module, k) {
                    pointer_offsets(ty.member(k), module, base + o, out);
                }
            }
        }
        crate::ir::TyKind::Array if ty.len() <= 64 => {
            let size = ty.element().alloc_size(module);
            for k in 0..ty.len() {
                pointer_offsets(ty.element(), module, base + k * size, out);
            }
        }
        _ => {}
    }
}

/// The copy of `e` in `lane` of context `c`.
fn lane_copy<'m>(
    b: &Builder<'m>,
    c: Value<'m>,
    layout: &Layout<'m>,
    e: &Entry<'m>,
    lane: u32,
) -> Value<'m> {
    b.byte_gep(c, HEADER + u64::from(lane) * layout.lane_bytes + e.offset)
}

/// The helper `name` the front end declared, made internal, if any.
fn helper<'m>(module: Module<'m>, name: &str) -> Option<Function<'m>> {
    let f = named_function(module, name)?;
    if !f.blocks().is_empty() {
        return None;
    }
    f.as_value().set_internal_linkage();
    Some(f)
}

/// A builder at the end of a new entry block of `f`.
fn start<'m>(f: Function<'m>) -> Builder<'m> {
    let b = Builder::new(f.as_value().context());
    let entry = f.append_block("entry");
    b.position_at_end(entry);
    b
}

/// The `i8` flag `__enz_ctx_enter` sets and a derivative's entry clears.
fn entered_flag<'m>(module: Module<'m>) -> Global<'m> {
    if let Some(g) = crate::ir::named_global(module, CTX_ENTERED) {
        return g;
    }
    let i8t = Ty::int(crate::ir::module_context(module), 8);
    add_internal_global(module, CTX_ENTERED, i8t, 0, i8t.null_constant(), 1)
}
