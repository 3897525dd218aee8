//! Pointers carried through integers, given back their pointer type.
//!
//! SROA types a stack slot that is read both as a pointer and as an
//! integer of the same size (rustc's unoptimised code reads a `NonNull`
//! niche as `i64` to test for null) as an integer: the pointers stored in
//! it become `ptrtoint`, the value read becomes `inttoptr` of an integer
//! phi. Synthesis mirrors pointers, not integers, so the shadow of such an
//! `inttoptr` could not be built. Where the integer is, through phis and
//! selects, only `ptrtoint` of pointers, constants (0, or the
//! alignment Rust uses as an empty Vec's dangling pointer) and `undef`, the
//! `inttoptr` is replaced by the same phis and selects over the pointers
//! themselves (constants as constant addresses); the integer phis stay
//! for their integer uses. An incoming integer computed by arithmetic (a
//! size, on the path where the slot held an error rather than a pointer)
//! becomes an `inttoptr` marked [`NOT_A_POINTER`] (metadata): an address
//! no memory is at (the primal would fault on it), whose shadow is null.
//!
//! The same holds for a store: where store-to-load forwarding has folded a
//! pointer copied through memory (`std::vector<Shape *>` relocating its
//! elements on growth) into `store i64 (ptrtoint p)`, the integer stored
//! is, through phis and selects, pointers; the store then stores the
//! pointers themselves, so that the shadow memory gets their shadows
//! (before, it kept whatever it held, and a virtual call through the
//! shadow object read a vtable from garbage).

use crate::ir::LLVMOpcode;
use crate::ir::{Builder, Function, Inst, Ty, TyKind, Value};
use crate::names::NOT_A_POINTER;
use std::collections::HashMap;

/// Rewrites every `inttoptr` of `func` whose integer is, through phis and
/// selects, pointers and constants (see the module documentation).
pub(crate) fn restore_pointer_phis(func: Function<'_>) {
    let casts: Vec<Inst> = func
        .blocks()
        .into_iter()
        .flat_map(|b| b.instructions())
        .filter(|i| i.opcode() == Some(LLVMOpcode::LLVMIntToPtr))
        .collect();
    for cast in casts {
        let ty = cast.ty();
        if ty.kind() != TyKind::Pointer {
            continue;
        }
        let mut made = Made::default();
        if let Some(p) = as_pointer(cast.operand(0), ty, &mut made, false) {
            cast.as_value().replace_all_uses_with(p);
            cast.erase();
        } else {
            undo(ty, made);
        }
    }
}

/// Rewrites every simple store of an integer of pointer width that is,
/// through phis and selects, `ptrtoint` of pointers (at least one) and
/// constants, into a store of the pointers (module documentation).
pub(crate) fn restore_pointer_stores(func: Function<'_>) {
    let module = func.as_value().module();
    let stores: Vec<Inst> = func
        .blocks()
        .into_iter()
        .flat_map(|b| b.instructions())
        .filter(|i| i.opcode() == Some(LLVMOpcode::LLVMStore) && i.is_simple_access())
        .collect();
    for store in stores {
        let v = store.operand(0);
        let Some(ty) = pointer_type_inside(v, &mut Vec::new()) else {
            continue;
        };
        let same_width = v.ty().int_width().map(u64::from) == Some(ty.alloc_size(module) * 8);
        if !same_width {
            continue;
        }
        let mut made = Made::default();
        match as_pointer(v, ty, &mut made, false) {
            Some(p) => {
                let bld = Builder::new(ty.context());
                bld.position_before(store);
                let new = bld.store(p, store.operand(1));
                new.set_alignment(store.as_value().alignment());
                store.erase();
            }
            None => undo(ty, made),
        }
    }
}

/// The type of the first pointer `v` is `ptrtoint` of, through phis and
/// selects (`seen`: the phis on the way).
fn pointer_type_inside<'m>(v: Value<'m>, seen: &mut Vec<Value<'m>>) -> Option<Ty<'m>> {
    let i = v.as_inst()?;
    match i.opcode()? {
        LLVMOpcode::LLVMPtrToInt => Some(i.operand(0).ty()),
        LLVMOpcode::LLVMSelect => pointer_type_inside(i.operand(1), seen)
            .or_else(|| pointer_type_inside(i.operand(2), seen)),
        LLVMOpcode::LLVMPHI if !seen.contains(&v) => {
            seen.push(v);
            i.incoming()
                .into_iter()
                .find_map(|(inc, _)| pointer_type_inside(inc, seen))
        }
        _ => None,
    }
}

/// Removes what [`as_pointer`] made on a failed attempt (it uses only
/// itself).
fn undo<'m>(ty: Ty<'m>, made: Made<'m>) {
    let poison = Builder::new(ty.context()).poison(ty);
    for i in &made.insts {
        i.as_value().replace_all_uses_with(poison);
    }
    for i in made.insts {
        i.erase();
    }
}

/// The pointer phis made for integer phis (so that cycles close), and
/// every instruction made.
#[derive(Default)]
struct Made<'m> {
    phis: HashMap<Value<'m>, Value<'m>>,
    insts: Vec<Inst<'m>>,
}

/// `v` as a pointer of type `ty`, if it is `ptrtoint` of one, a constant,
/// or a phi or select of such values (inside which, `nested`, also an
/// integer computed by arithmetic).
fn as_pointer<'m>(
    v: Value<'m>,
    ty: Ty<'m>,
    made: &mut Made<'m>,
    nested: bool,
) -> Option<Value<'m>> {
    use LLVMOpcode::*;
    if v.const_int_sext().is_some() {
        // A constant address: null, or Rust's dangling `NonNull` of an
        // empty Vec (its alignment), as a constant expression.
        return Some(Builder::new(ty.context()).int_to_ptr(v, ty));
    }
    if v.is_undef_or_null() {
        // An undefined integer (a slot not yet written on that path, as
        // SROA leaves an enum's payload): an undefined pointer.
        return Some(ty.undef_constant());
    }
    let i = v.as_inst()?;
    match i.opcode()? {
        LLVMPtrToInt => {
            let p = i.operand(0);
            (p.ty() == ty).then_some(p)
        }
        LLVMSelect => {
            let a = as_pointer(i.operand(1), ty, made, true)?;
            let b = as_pointer(i.operand(2), ty, made, true)?;
            let bld = Builder::new(ty.context());
            bld.position_after(i);
            let s = bld.select(i.operand(0), a, b);
            made.insts.extend(s.as_inst());
            Some(s)
        }
        LLVMPHI => {
            if let Some(p) = made.phis.get(&v) {
                return Some(*p);
            }
            let bld = Builder::new(ty.context());
            bld.position_before(i);
            let phi = bld.phi(ty, "int.ptr");
            made.phis.insert(v, phi.as_value());
            made.insts.push(phi);
            for (inc, blk) in i.incoming() {
                let p = as_pointer(inc, ty, made, true)?;
                phi.add_incoming(p, blk);
            }
            Some(phi.as_value())
        }
        LLVMShl | LLVMMul | LLVMAdd | LLVMSub | LLVMAnd | LLVMOr | LLVMLShr | LLVMUDiv
        | LLVMZExt
            if nested =>
        {
            let bld = Builder::new(ty.context());
            bld.position_after(i);
            let p = bld.int_to_ptr(v, ty);
            p.set_mark(NOT_A_POINTER);
            made.insts.extend(p.as_inst());
            Some(p)
        }
        _ => None,
    }
}
