//! Rust's runtime as the AD core needs to see it. rustc's global-allocator
//! entry points (`__rust_alloc`, `__rust_alloc_zeroed`, `__rust_dealloc`,
//! `__rust_realloc`, v0-mangled by rustc 1.9x as
//! `_RNv…_7___rustc12___rust_alloc`) are what `Vec`, `Box` and every other
//! allocation of Rust code call:
//!
//! - `__rust_alloc(size, align)` and `__rust_alloc_zeroed(size, align)`
//!   are allocations with shadows, released by `__rust_dealloc(ptr, size,
//!   align)` (the facts an `__enzyme_allocation_like` registration gives);
//! - `__rust_realloc(ptr, old_size, align, new_size)` becomes
//!   allocate-copy-release (`enz.rust_realloc`), which the AD core knows
//!   how to differentiate and which keeps the shadow's contents when a
//!   `Vec` grows.

use crate::ir::{add_internal_function, functions, Builder, Function, LLVMIntPredicate, Module};
use crate::ir::{Ty, Value};
use enz_core::{AllocationLike, CustomRules};
use std::collections::HashMap;

/// One of the global allocator's entry points.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub(crate) enum Entry {
    Alloc,
    AllocZeroed,
    Dealloc,
    Realloc,
}

/// The entry point `name` designates: the plain symbol, or its v0 mangling
/// (whose last identifier is length-prefixed, with a `_` separator before
/// an identifier that starts with `_`: `12___rust_alloc`).
fn entry(name: &str) -> Option<Entry> {
    const ENTRIES: [(&str, Entry); 4] = [
        ("__rust_alloc", Entry::Alloc),
        ("__rust_alloc_zeroed", Entry::AllocZeroed),
        ("__rust_dealloc", Entry::Dealloc),
        ("__rust_realloc", Entry::Realloc),
    ];
    ENTRIES.iter().find_map(|&(base, e)| {
        let mangled = format!("{}_{base}", base.len());
        (name == base || (name.starts_with("_R") && name.ends_with(&mangled))).then_some(e)
    })
}

/// The module's allocator entry points, by kind.
pub(crate) fn entries<'m>(m: Module<'m>) -> HashMap<Entry, Function<'m>> {
    functions(m)
        .into_iter()
        .filter_map(|f| entry(&f.name()).map(|e| (e, f)))
        .collect()
}

/// Adds the allocation facts of `__rust_alloc` and `__rust_alloc_zeroed`
/// (released by `__rust_dealloc`, classified like `free`).
pub(crate) fn add_allocation_facts<'m>(
    m: Module<'m>,
    custom: &mut HashMap<Function<'m>, CustomRules<'m>>,
) {
    let found = entries(m);
    let Some(&dealloc) = found.get(&Entry::Dealloc) else {
        return;
    };
    for kind in [Entry::Alloc, Entry::AllocZeroed] {
        if let Some(&alloc) = found.get(&kind) {
            custom.entry(alloc).or_default().allocation = Some(AllocationLike {
                size_arg: 0,
                deallocator: dealloc,
                // __rust_dealloc(ptr, size, align): the allocation call's
                // size and alignment.
                deallocator_args: [-1, 0, 1, 0],
                deallocator_argc: 3,
            });
        }
    }
    let d = custom.entry(dealloc).or_default();
    d.like = d.like.or(Some("free"));
}

/// Replaces the calls of `__rust_realloc` by calls of `enz.rust_realloc`:
/// `__rust_alloc(new_size, align)`, a copy of `min(old_size, new_size)`
/// bytes and `__rust_dealloc(ptr, old_size, align)` (the old block is
/// kept when the allocation fails, as realloc does). Returns whether
/// anything changed.
pub(crate) fn lower_realloc(m: Module<'_>) -> bool {
    let found = entries(m);
    let (Some(&realloc), Some(&alloc), Some(&dealloc)) = (
        found.get(&Entry::Realloc),
        found.get(&Entry::Alloc),
        found.get(&Entry::Dealloc),
    ) else {
        return false;
    };
    if !realloc.as_value().has_uses() || realloc.params().len() != 4 {
        return false;
    }
    let fty = realloc.function_type();
    let lowered = add_internal_function(m, "enz.rust_realloc", fty);
    let [old_ptr, old_size, align, new_size] = lowered.params()[..] else {
        return false;
    };
    let ctx = m.context();
    let b = Builder::new(ctx);
    let entry_block = lowered.append_block("entry");
    let copy = lowered.append_block("copy");
    let done = lowered.append_block("done");
    b.position_at_end(entry_block);
    let fresh: Value = b
        .call(alloc.function_type(), alloc, &[new_size, align])
        .into();
    let failed = b.icmp(LLVMIntPredicate::LLVMIntEQ, fresh, b.zero(Ty::ptr(ctx)));
    b.cond_br(failed, done, copy);
    b.position_at_end(copy);
    let shorter = b.icmp(LLVMIntPredicate::LLVMIntULT, old_size, new_size);
    let bytes = b.select(shorter, old_size, new_size);
    b.memcpy(fresh, old_ptr, bytes);
    b.call(
        dealloc.function_type(),
        dealloc,
        &[old_ptr, old_size, align],
    );
    b.br(done);
    b.position_at_end(done);
    b.ret(Some(fresh));
    realloc.as_value().replace_all_uses_with(lowered);
    true
}

#[cfg(test)]
mod tests {
    use super::{entry, Entry};

    #[test]
    fn plain_and_v0_mangled_names() {
        assert_eq!(entry("__rust_alloc"), Some(Entry::Alloc));
        assert_eq!(
            entry("_RNvCsfLfy6EI15iL_7___rustc12___rust_alloc"),
            Some(Entry::Alloc)
        );
        assert_eq!(
            entry("_RNvCsfLfy6EI15iL_7___rustc19___rust_alloc_zeroed"),
            Some(Entry::AllocZeroed)
        );
        assert_eq!(
            entry("_RNvCsfLfy6EI15iL_7___rustc14___rust_realloc"),
            Some(Entry::Realloc)
        );
        assert_eq!(
            entry("_RNvCsX_7___rustc14___rust_dealloc"),
            Some(Entry::Dealloc)
        );
        assert_eq!(entry("my__rust_alloc"), None);
        assert_eq!(entry("_RNvCsX_7___rustc11___rdl_alloc"), None);
    }
}
