//! `Vec` growth that is only machine code, given a body the AD core sees.
//!
//! `RawVec<T>::grow_one` is `#[inline(never)]`, and rustc calls such a
//! generic instance from the crate that already has it even under
//! `-Zshare-generics=no`: a test binary's `Vec<f64>::push` calls libtest's
//! precompiled `RawVec<f64>::grow_one`, which enz-rs cannot differentiate
//! (and whose shadow `Vec` would not grow). For the element types whose
//! size the v0-mangled name says (Rust's primitive numbers), each call is
//! redirected to an internal function that grows the buffer the way std
//! does (amortised: twice the capacity, at least one more, at least std's
//! minimum non-zero capacity) through `__rust_alloc`, a copy of the old
//! contents and `__rust_dealloc`: calls the AD core knows, so the shadow
//! `Vec` grows alongside, its new part zeroed, its old contents kept.
//! Allocation failure and capacity overflow trap (std would abort or
//! panic).
//!
//! The layout read is rustc's for `RawVecInner`: the capacity and the
//! pointer, each 8 bytes; the pointer is at offset 8 unless a caller
//! loads a pointer from offset 0 of the `RawVec` it grows.

use crate::ir::{add_internal_function, functions, Builder, Function, LLVMIntPredicate, Module};
use crate::ir::{LLVMOpcode, Ty, TyKind, Value};
use crate::rust_runtime::{entries, Entry};

/// The size of the element type `RawVec<T>::grow_one`'s v0 name `name`
/// instantiates, for `T` a primitive number (`d` f64, `f` f32, `x` i64,
/// ...); `None` for another function or element type.
fn grown_element_size(name: &str) -> Option<u64> {
    if !name.starts_with("_R") || !name.contains("7raw_vec") {
        return None;
    }
    let at = name.find("6RawVec")? + "6RawVec".len();
    let rest = &name[at..];
    let mut chars = rest.chars();
    let letter = chars.next()?;
    if !chars.as_str().starts_with("E8grow_one") {
        return None;
    }
    Some(match letter {
        'a' | 'h' | 'b' => 1,
        's' | 't' => 2,
        'l' | 'm' | 'f' | 'c' => 4,
        'x' | 'y' | 'd' | 'i' | 'j' => 8,
        'n' | 'o' => 16,
        _ => return None,
    })
}

/// std's smallest non-zero capacity for elements of `size` bytes.
fn min_non_zero_capacity(size: u64) -> u64 {
    match size {
        1 => 8,
        2..=1024 => 4,
        _ => 1,
    }
}

/// Whether any caller of `f` loads a pointer from offset 0 of the `RawVec`
/// it passes (then the pointer comes first and the capacity second).
fn pointer_first(f: Function<'_>) -> bool {
    f.as_value().users().into_iter().any(|call| {
        let Some(call) = call.as_inst() else {
            return false;
        };
        if call.call_num_args() != 1 {
            return false;
        }
        call.operand(0).users().into_iter().any(|u| {
            u.as_inst().is_some_and(|l| {
                l.opcode() == Some(LLVMOpcode::LLVMLoad)
                    && l.ty().kind() == TyKind::Pointer
                    && l.operand(0) == call.operand(0)
            })
        })
    })
}

/// Redirects the calls of every precompiled `RawVec<T>::grow_one` of a
/// primitive `T` to an internal body (module documentation). Returns
/// whether anything changed.
pub(crate) fn lower_vec_growth(m: Module<'_>) -> bool {
    let found = entries(m);
    let (Some(&alloc), Some(&dealloc)) = (found.get(&Entry::Alloc), found.get(&Entry::Dealloc))
    else {
        return false;
    };
    let mut changed = false;
    for f in functions(m) {
        if !f.is_declaration() || !f.as_value().has_uses() || f.params().len() != 1 {
            continue;
        }
        let Some(size) = grown_element_size(&f.name()) else {
            continue;
        };
        let body = grow_one_body(m, f, size, alloc, dealloc);
        f.as_value().replace_all_uses_with(body.as_value());
        changed = true;
    }
    changed
}

/// The internal function growing a `RawVec` of `size`-byte elements.
fn grow_one_body<'m>(
    m: Module<'m>,
    decl: Function<'m>,
    size: u64,
    alloc: Function<'m>,
    dealloc: Function<'m>,
) -> Function<'m> {
    let ctx = m.context();
    let i64t = Ty::int(ctx, 64);
    let ptrt = Ty::ptr(ctx);
    let f = add_internal_function(
        m,
        &format!("enz.rust_vec_grow_one.{size}"),
        decl.function_type(),
    );
    let (cap_at, ptr_at) = if pointer_first(decl) { (8, 0) } else { (0, 8) };
    let entry = f.append_block("entry");
    let moved = f.append_block("moved");
    let store = f.append_block("store");
    let fail = f.append_block("fail");
    let b = Builder::new(ctx);
    let c = |v: u64| b.const_int(i64t, v as i64);
    b.position_at_end(entry);
    let this = f.params()[0];
    let cap_slot = b.byte_gep(this, cap_at);
    let ptr_slot = b.byte_gep(this, ptr_at);
    let cap = b.load(i64t, cap_slot);
    let old = b.load(ptrt, ptr_slot);
    let twice = b.mul(cap, c(2));
    let one_more = b.add(cap, c(1));
    let umax = |x: Value<'m>, y: Value<'m>| {
        let gt = b.icmp(LLVMIntPredicate::LLVMIntUGT, x, y);
        b.select(gt, x, y)
    };
    let new_cap = umax(umax(twice, one_more), c(min_non_zero_capacity(size)));
    let too_big = b.icmp(
        LLVMIntPredicate::LLVMIntUGT,
        new_cap,
        c(i64::MAX as u64 / size),
    );
    let new_bytes = b.mul(new_cap, c(size));
    let empty = b.icmp(LLVMIntPredicate::LLVMIntEQ, cap, c(0));
    let grow = f.append_block("grow");
    b.cond_br(too_big, fail, grow);
    b.position_at_end(grow);
    let block: Value = b
        .call(alloc.function_type(), alloc, &[new_bytes, c(size)])
        .into();
    let failed = b.icmp(LLVMIntPredicate::LLVMIntEQ, block, b.zero(ptrt));
    let allocated = f.append_block("allocated");
    b.cond_br(failed, fail, allocated);
    b.position_at_end(allocated);
    // An empty Vec's pointer is dangling: nothing to copy or release.
    b.cond_br(empty, store, moved);
    b.position_at_end(moved);
    let old_bytes = b.mul(cap, c(size));
    b.memcpy(block, old, old_bytes);
    b.call(dealloc.function_type(), dealloc, &[old, old_bytes, c(size)]);
    b.br(store);
    b.position_at_end(store);
    b.store(block, ptr_slot);
    b.store(new_cap, cap_slot);
    b.ret(None);
    b.position_at_end(fail);
    b.call_intrinsic("llvm.trap", &[], &[]);
    b.unreachable();
    f
}

#[cfg(test)]
mod tests {
    use super::grown_element_size;

    #[test]
    fn element_sizes_from_v0_names() {
        let f64_vec =
            "_RNvMs3_NtCslNYArtu3iFV_5alloc7raw_vecINtB5_6RawVecdE8grow_oneCs3mSbOeLENLV_4test";
        assert_eq!(grown_element_size(f64_vec), Some(8));
        assert_eq!(
            grown_element_size(&f64_vec.replace("VecdE", "VecfE")),
            Some(4)
        );
        assert_eq!(
            grown_element_size(&f64_vec.replace("VecdE", "VechE")),
            Some(1)
        );
        // A struct element (a path, not a letter): no rule.
        assert_eq!(
            grown_element_size(&f64_vec.replace("VecdE", "VecNtC3foo3BarE")),
            None
        );
        assert_eq!(grown_element_size("_RNvCs1_3foo8grow_one"), None);
    }
}
