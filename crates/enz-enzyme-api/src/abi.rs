//! Calling conventions at `__enzyme_*` call sites: converting the values the
//! caller passed to the parameter types of the function, and packing the
//! adjoints into whatever the caller's declaration returns.
//!
//! C declarations of `__enzyme_autodiff` are variadic (floats arrive
//! promoted to double) and return the adjoints as a scalar or a struct,
//! which the C ABI may lower to a register pair, a vector (`<2 x float>`) or
//! an `sret` pointer. The adjoints are laid out as the natural C struct of
//! their types and reinterpreted through memory as the declared type, as
//! clang itself does for coerced returns.

use crate::ir::{module_context, Builder, Ty, Value};

/// Converts a passed value to a parameter type (fp and int width changes).
pub(crate) fn convert_arg<'m>(b: &Builder<'m>, v: Value<'m>, to: Ty<'m>) -> Option<Value<'m>> {
    let from = v.ty();
    if from == to {
        return Some(v);
    }
    if from.is_fp_scalar() && to.is_fp_scalar() {
        return Some(b.fp_cast(v, to));
    }
    if from.is_integer() && to.is_integer() {
        return Some(b.signed_int_cast(v, to));
    }
    None
}

/// Converts an adjoint of fp type for a caller expecting a different fp type.
fn convert_fp<'m>(b: &Builder<'m>, v: Value<'m>, to: Ty<'m>) -> Value<'m> {
    if v.ty() == to || !v.ty().is_fp_scalar() || !to.is_fp_scalar() {
        v
    } else {
        b.fp_cast(v, to)
    }
}

/// Whether a value of type `from` can be passed where `to` is expected:
/// the same type, or a float or integer width change.
pub(crate) fn convertible<'m>(from: Ty<'m>, to: Ty<'m>) -> bool {
    from == to
        || (from.is_fp_scalar() && to.is_fp_scalar())
        || (from.is_integer() && to.is_integer())
}

/// Why the declared return type `ret` of an entry point cannot carry
/// `outs` (the adjoints or tangents it must return), if it cannot: an
/// integer or pointer would get their bit pattern, a type smaller than
/// their natural C struct would truncate them.
pub(crate) fn check_return<'m>(
    module: crate::ir::Module,
    outs: &[Ty<'m>],
    ret: Ty<'m>,
) -> Result<(), String> {
    if ret.is_void() || outs.is_empty() {
        return Ok(());
    }
    let shown = outs
        .iter()
        .map(|t| t.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    if outs.len() == 1 && ret.is_fp_scalar() && outs[0].is_fp_scalar() {
        return Ok(());
    }
    if outs.len() == 1 && outs[0] == ret {
        return Ok(());
    }
    // One adjoint goes to a floating type; several may arrive coerced to
    // integers (small structs on some ABIs), never to a pointer.
    let single_to_non_float = outs.len() == 1 && !ret.carries_float();
    if single_to_non_float || ret.kind() == crate::ir::TyKind::Pointer {
        return Err(format!(
            "is declared to return {ret}, but it returns floating-point values ({shown})"
        ));
    }
    let nat = Ty::literal_struct(module_context(module), outs);
    let (need, have) = (nat.abi_size(module), ret.abi_size(module));
    if have < need {
        return Err(format!(
            "is declared to return {ret} ({have} bytes), too small for what it returns ({shown}: {need} bytes)"
        ));
    }
    Ok(())
}

/// Packs `outs` as the call's declared return type `ret` (or into `sret`).
/// `entry` builds allocas in the caller's entry block. Returns the value to
/// replace the call's result with (`None` for a void call).
pub(crate) fn pack_return<'m>(
    b: &Builder<'m>,
    entry: &Builder<'m>,
    outs: &[Value<'m>],
    ret: Ty<'m>,
    sret: Option<Value<'m>>,
) -> Option<Value<'m>> {
    let ctx = b.ctx();
    if let Some(ptr) = sret {
        store_natural(b, outs, ptr);
        return (!ret.is_void()).then(|| b.poison(ret));
    }
    if ret.is_void() {
        return None;
    }
    if outs.is_empty() {
        return Some(b.zero(ret));
    }
    if outs.len() == 1 && ret.is_fp_scalar() {
        return Some(convert_fp(b, outs[0], ret));
    }
    if outs.len() == 1 && outs[0].ty() == ret {
        return Some(outs[0]);
    }
    // Reinterpret the natural struct's bytes as the declared type.
    let module = b.insert_block().parent().global_parent();
    let nat = natural_struct(ctx, outs);
    let size = nat.abi_size(module).max(ret.abi_size(module));
    let bytes = Ty::int(ctx, 8).array(size);
    let slot = entry.alloca(bytes, "adjoint.ret");
    slot.set_alignment(16);
    b.store(b.zero(bytes), slot);
    store_natural(b, outs, slot);
    Some(b.load(ret, slot))
}

fn natural_struct<'m>(ctx: crate::ir::Context<'m>, outs: &[Value<'m>]) -> Ty<'m> {
    let tys: Vec<Ty> = outs.iter().map(|v| v.ty()).collect();
    Ty::literal_struct(ctx, &tys)
}

/// Stores `outs` at `ptr` laid out as the natural C struct of their types.
fn store_natural<'m>(b: &Builder<'m>, outs: &[Value<'m>], ptr: Value<'m>) {
    let module = b.insert_block().parent().global_parent();
    let nat = natural_struct(b.ctx(), outs);
    for (k, v) in outs.iter().enumerate() {
        let off = nat.offset_of(module, k as u32);
        let p = b.byte_gep(ptr, off);
        b.store(*v, p);
    }
}
