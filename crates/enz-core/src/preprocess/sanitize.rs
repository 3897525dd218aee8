//! Rewrites of the preprocessed clone that keep the primal's meaning but
//! remove what a derivative must not inherit from it.
//!
//! - **Lifetime markers.** The reverse sweep re-reads the primal's stack
//!   memory after the primal is done with it; an `llvm.lifetime.end` before
//!   those reads would let the post-optimisation treat them as reads of dead
//!   memory (and fold them to anything). The clone's markers are dropped.
//! - **Tail-call markers.** A `musttail` call must be followed by `ret`; in
//!   a derivative the forward sweep goes on to the reverse sweep instead.
//!   Calls in the clone become ordinary calls.
//! - **Undefined vector lanes.** A lane that is `poison` in the primal (a
//!   shuffle mask lane of `-1`, an `insertelement` into `poison`, a constant
//!   vector with `undef` elements) may be multiplied by a zero adjoint lane
//!   in the reverse sweep, and `0 * poison` is poison. Such lanes are given
//!   defined values (zero), a refinement the primal cannot observe.
//! - **Floats read as integers.** clang reads two adjacent floats as one
//!   `load i64` and takes them apart with `lshr`, `trunc` and `bitcast`;
//!   synthesis treats integers as data without derivatives, so those
//!   floats lost theirs. Each float taken apart this way is loaded as a
//!   float instead (from the same address, at the same point).
//! - **Integer copies.** instcombine turns a small `memcpy` into a load and
//!   store of an integer, which synthesis would treat as integer data
//!   without derivatives; `integer_copies` makes them copies of memory
//!   again.
//! - **Scalable vectors** have no size before run time, which the tape,
//!   the caches and type analysis need: they are refused with a diagnostic.

use crate::diag::Diagnostic;
use crate::ir::LLVMOpcode;
use crate::ir::{Builder, Function, Inst, Ty, TyKind, Value};
use std::collections::{HashMap, HashSet};

/// Applies every rewrite to `func` (the preprocessed clone), or refuses it.
pub(crate) fn sanitize<'m>(func: Function<'m>) -> Result<(), Diagnostic> {
    refuse_scalable_vectors(func)?;
    for b in func.blocks() {
        for i in b.instructions() {
            match i.opcode() {
                Some(LLVMOpcode::LLVMCall) => {
                    if is_lifetime_marker(i) {
                        i.erase();
                        continue;
                    }
                    i.clear_tail_call_kind();
                }
                Some(LLVMOpcode::LLVMShuffleVector) => define_shuffle_lanes(i),
                _ => {}
            }
        }
    }
    define_constant_vector_lanes(func);
    split_integer_loads_of_floats(func);
    let integers = super::integer_floats::retype_integer_floats(func);
    super::integer_copies::restore_integer_copies(func, &integers);
    Ok(())
}

/// For each integer `%v` that holds bytes loaded from memory (a `load iN`,
/// or phis and selects of such values, as GVN leaves them), replaces every
/// float taken out of it (`bitcast (trunc (lshr %v, C) to iM) to T`,
/// `lshr` and `trunc` optional) by the same float loaded as a float: a
/// `load T` right after each `load iN` it comes from, merged by float phis
/// and selects where the integers were. A narrower integer taken out of it
/// (`trunc (lshr %v, C) to i32`) that is only moved on (merged, stored,
/// made a float later) is loaded narrow the same way, so that
/// `integer_floats` sees the float moved as an integer in it.
fn split_integer_loads_of_floats<'m>(func: Function<'m>) {
    let little = crate::ir::is_little_endian(func.global_parent());
    let mut built = HashMap::new();
    // The floats first; the integers moved on then, among what is left.
    for floats in [true, false] {
        let mut pieces = Vec::new();
        for b in func.blocks() {
            for v in b.instructions() {
                let TyKind::Integer(bits) = v.ty().kind() else {
                    continue;
                };
                if !holds_loaded_bytes(v.into(), &mut HashSet::new()) {
                    continue;
                }
                let taken_from = if floats {
                    floats_taken_from
                } else {
                    moved_pieces_of
                };
                for (taken, offset) in taken_from(v.into(), u64::from(bits), little) {
                    pieces.push((v, taken, offset));
                }
            }
        }
        for (v, taken, offset) in pieces {
            let piece = float_piece(v.into(), offset, taken.ty(), &mut built);
            taken.replace_all_uses_with(piece);
            erase_dead_chain(taken);
        }
    }
}

/// Whether the integer `v` is a simple load, or phis and selects of
/// simple loads only (`seen`: the phis and selects on the way, for cycles).
fn holds_loaded_bytes<'m>(v: Value<'m>, seen: &mut HashSet<Value<'m>>) -> bool {
    let Some(v) = v.as_inst() else { return false };
    match v.opcode() {
        Some(LLVMOpcode::LLVMLoad) => v.is_simple_access(),
        Some(LLVMOpcode::LLVMPHI) => {
            !seen.insert(v.into())
                || v.incoming()
                    .into_iter()
                    .all(|(x, _)| holds_loaded_bytes(x, seen))
        }
        Some(LLVMOpcode::LLVMSelect) => {
            !seen.insert(v.into())
                || (holds_loaded_bytes(v.operand(1), seen)
                    && holds_loaded_bytes(v.operand(2), seen))
        }
        _ => false,
    }
}

/// The bytes `offset..offset + size(ty)` of `v` (which
/// [`holds_loaded_bytes`]) as a value of type `ty`, built once per
/// (value, offset, type) in `built`.
fn float_piece<'m>(
    v: Value<'m>,
    offset: u64,
    ty: Ty<'m>,
    built: &mut HashMap<(Value<'m>, u64, Ty<'m>), Value<'m>>,
) -> Value<'m> {
    if let Some(p) = built.get(&(v, offset, ty)) {
        return *p;
    }
    let fb = Builder::new(v.context());
    let inst = v.as_inst().expect("holds_loaded_bytes: an instruction");
    match v.opcode() {
        Some(LLVMOpcode::LLVMPHI) => {
            let first = inst
                .parent_block()
                .first_instruction()
                .expect("the phi itself");
            fb.position_before(first);
            let phi = fb.phi(ty, "");
            built.insert((v, offset, ty), phi.into());
            for (x, blk) in inst.incoming() {
                let piece = float_piece(x, offset, ty, built);
                phi.add_incoming(piece, blk);
            }
            phi.into()
        }
        Some(LLVMOpcode::LLVMSelect) => {
            let a = float_piece(v.operand(1), offset, ty, built);
            let b = float_piece(v.operand(2), offset, ty, built);
            fb.position_after(inst);
            let sel = fb.select(v.operand(0), a, b);
            built.insert((v, offset, ty), sel);
            sel
        }
        _ => {
            fb.position_after(inst);
            let at = if offset == 0 {
                v.operand(0)
            } else {
                fb.byte_gep(v.operand(0), offset)
            };
            let piece = fb.load(ty, at);
            let offset_align = 1u64 << offset.trailing_zeros().min(31);
            piece.set_alignment(u64::from(v.alignment()).min(offset_align) as u32);
            built.insert((v, offset, ty), piece);
            piece
        }
    }
}

/// The floats taken out of the integer `v` (of `bits` bits, loaded from
/// memory) and the byte offset each comes from.
fn floats_taken_from<'m>(v: Value<'m>, bits: u64, little: bool) -> Vec<(Value<'m>, u64)> {
    let mut out = Vec::new();
    for u in v.users() {
        match u.opcode() {
            Some(LLVMOpcode::LLVMBitCast) if float_bits(u) == Some(bits) => out.push((u, 0)),
            Some(LLVMOpcode::LLVMTrunc) => out.extend(truncated_floats(u, bits, 0, little)),
            Some(LLVMOpcode::LLVMLShr) if u.operand(0) == v => {
                let Some(shift) = u.operand(1).const_int_sext() else {
                    continue;
                };
                if shift > 0 && (shift as u64) < bits && shift % 8 == 0 {
                    for t in u.users() {
                        if t.opcode() == Some(LLVMOpcode::LLVMTrunc) {
                            out.extend(truncated_floats(t, bits, shift as u64, little));
                        }
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// The 32- and 64-bit integers truncated out of the integer `v` (of
/// `bits` bits, loaded from memory; `lshr` by whole bytes first
/// optional) whose every use moves them: a phi, a select (as a value), a
/// store (as the value) or a bitcast; with their byte offsets.
fn moved_pieces_of<'m>(v: Value<'m>, bits: u64, little: bool) -> Vec<(Value<'m>, u64)> {
    let only_moved = |t: Value<'m>| {
        let uses = t.users();
        !uses.is_empty()
            && uses.iter().all(|u| match u.opcode() {
                Some(LLVMOpcode::LLVMPHI | LLVMOpcode::LLVMBitCast) => true,
                Some(LLVMOpcode::LLVMSelect) => u.operand(0) != t,
                Some(LLVMOpcode::LLVMStore) => u.operand(0) == t && u.operand(1) != t,
                _ => false,
            })
    };
    let piece = |t: Value<'m>, shift: u64| {
        let TyKind::Integer(kept) = t.ty().kind() else {
            return None;
        };
        let kept = u64::from(kept);
        if !matches!(kept, 32 | 64) || shift + kept > bits || !only_moved(t) {
            return None;
        }
        let offset = if little {
            shift / 8
        } else {
            (bits - shift - kept) / 8
        };
        Some((t, offset))
    };
    let mut out = Vec::new();
    for u in v.users() {
        match u.opcode() {
            Some(LLVMOpcode::LLVMTrunc) => out.extend(piece(u, 0)),
            Some(LLVMOpcode::LLVMLShr) if u.operand(0) == v => {
                let Some(shift) = u.operand(1).const_int_sext() else {
                    continue;
                };
                if shift > 0 && (shift as u64) < bits && shift % 8 == 0 {
                    for t in u.users() {
                        if t.opcode() == Some(LLVMOpcode::LLVMTrunc) {
                            out.extend(piece(t, shift as u64));
                        }
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// The float bitcasts of `trunc`, which keeps the bits of an integer of
/// `bits` bits from bit `shift` up, with their byte offsets.
fn truncated_floats<'m>(
    trunc: Value<'m>,
    bits: u64,
    shift: u64,
    little: bool,
) -> Vec<(Value<'m>, u64)> {
    let TyKind::Integer(kept) = trunc.ty().kind() else {
        return Vec::new();
    };
    let kept = u64::from(kept);
    if kept % 8 != 0 || shift + kept > bits {
        return Vec::new();
    }
    let offset = if little {
        shift / 8
    } else {
        (bits - shift - kept) / 8
    };
    trunc
        .users()
        .into_iter()
        .filter(|c| c.opcode() == Some(LLVMOpcode::LLVMBitCast) && float_bits(*c) == Some(kept))
        .map(|c| (c, offset))
        .collect()
}

/// The width of a half, float or double value, or of a fixed vector of
/// them.
fn float_bits<'m>(v: Value<'m>) -> Option<u64> {
    fn scalar_bits(t: crate::ir::Ty) -> Option<u64> {
        match t.kind() {
            TyKind::Half => Some(16),
            TyKind::Float => Some(32),
            TyKind::Double => Some(64),
            _ => None,
        }
    }
    let t = v.ty();
    match t.kind() {
        TyKind::Vector if !t.is_scalable_vector() => Some(scalar_bits(t.element())? * t.len()),
        _ => scalar_bits(t),
    }
}

/// Erases `v` (now unused) and the `trunc`/`lshr` it was computed by, as
/// far as they have no other uses; stops at the load.
fn erase_dead_chain<'m>(v: Value<'m>) {
    let mut next = v.as_inst();
    while let Some(x) = next.take() {
        if x.has_uses() || x.opcode() == Some(LLVMOpcode::LLVMLoad) {
            return;
        }
        let from = x.operand(0);
        x.erase();
        if matches!(
            from.opcode(),
            Some(LLVMOpcode::LLVMTrunc | LLVMOpcode::LLVMLShr)
        ) {
            next = from.as_inst();
        }
    }
}

/// `llvm.lifetime.start` / `llvm.lifetime.end`.
pub(super) fn is_lifetime_marker<'m>(call: Inst<'m>) -> bool {
    call.called_function()
        .is_some_and(|f| f.intrinsic_id() != 0 && f.name().starts_with("llvm.lifetime."))
}

/// Replaces a shuffle with undefined mask lanes by one whose undefined
/// lanes read zero: `shufflevector a, b, m` becomes
/// `shufflevector (shufflevector a, b, m'), zeroinitializer, m''` where
/// `m'` maps undefined lanes to lane 0 and `m''` takes them from the zero
/// vector. When `b` is itself undefined the zero vector takes its place
/// and one shuffle suffices.
fn define_shuffle_lanes<'m>(shuffle: Inst<'m>) {
    let mask = shuffle.shuffle_mask();
    if mask.iter().all(Option::is_some) {
        return;
    }
    let (a, b_op) = (shuffle.operand(0), shuffle.operand(1));
    let n = a.ty().len() as u32;
    let builder = Builder::new(shuffle.context());
    builder.position_before(shuffle);
    let zero_in = builder.zero(a.ty());
    let new = if b_op.is_undef_or_poison() {
        let m: Vec<u32> = mask
            .iter()
            .map(|l| match l {
                Some(k) if *k < n => *k,
                _ => n, // lane 0 of the zero vector
            })
            .collect();
        builder.shuffle_vector(a, zero_in, &m)
    } else {
        let m: Vec<u32> = mask.iter().map(|l| l.unwrap_or(0)).collect();
        let first = builder.shuffle_vector(a, b_op, &m);
        let width = m.len() as u32;
        let zero_out = builder.zero(first.ty());
        let m2: Vec<u32> = mask
            .iter()
            .enumerate()
            .map(|(j, l)| if l.is_some() { j as u32 } else { width })
            .collect();
        builder.shuffle_vector(first, zero_out, &m2)
    };
    new.set_name(&shuffle.name());
    shuffle.replace_all_uses_with(new);
    shuffle.erase();
}

/// Gives the undefined lanes of constant vector operands the value zero
/// (`insertelement <2 x double> poison, ...`, `<double 1.0, double undef>`,
/// phi incoming values alike).
fn define_constant_vector_lanes<'m>(func: Function<'m>) {
    for b in func.blocks() {
        for i in b.instructions() {
            let is_call = matches!(
                i.opcode(),
                Some(LLVMOpcode::LLVMCall | LLVMOpcode::LLVMInvoke)
            );
            let n = i.num_operands();
            for k in 0..n {
                // The callee of a call is its last operand.
                if is_call && k + 1 == n {
                    continue;
                }
                if let Some(c) = i.operand(k).vector_constant_with_defined_lanes() {
                    i.set_operand(k, c);
                }
            }
        }
    }
}

/// A diagnostic for the first value of scalable vector type in `func`.
fn refuse_scalable_vectors<'m>(func: Function<'m>) -> Result<(), Diagnostic> {
    let scalable = |v: Value| v.ty().contains_scalable_vector();
    for p in func.params() {
        if scalable(p) {
            return Err(Diagnostic::new(format!(
                "cannot differentiate a function taking a scalable vector (parameter of type {})",
                p.ty()
            ))
            .help("compile for a fixed vector width (e.g. without SVE/RVV scalable vectorisation), or mark the function inactive"));
        }
    }
    for b in func.blocks() {
        for i in b.instructions() {
            let has = scalable(i.into())
                || (0..i.num_operands()).any(|k| scalable(i.operand(k)))
                || match i.opcode() {
                    Some(LLVMOpcode::LLVMAlloca) => i.allocated_type().contains_scalable_vector(),
                    Some(LLVMOpcode::LLVMGetElementPtr) => {
                        i.gep_source_type().contains_scalable_vector()
                    }
                    _ => false,
                };
            if has {
                return Err(Diagnostic::new(
                    "cannot differentiate code using scalable vectors (`<vscale x N x T>`): their size is only known at run time".to_string(),
                )
                .at(i)
                .help("compile for a fixed vector width (e.g. without SVE/RVV scalable vectorisation), or mark the function inactive"));
            }
        }
    }
    Ok(())
}
