//! Names type analysis recognises: library functions with known argument
//! types and TBAA type names.
//!
//! These strings belong in `names.rs` with the other registries; they live
//! here until that file is free to take them (no other file of type analysis
//! matches on a name).

use super::tree::{ConcreteType, FloatKind};

/// A library function whose argument types are known.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum KnownFn {
    /// `memcpy`/`memmove` and their intrinsics: `(dst, src, len, ...)`.
    MemTransfer,
    /// `memset` and its intrinsic: `(dst, byte, len, ...)`.
    MemSet,
    /// An allocator returning a fresh pointer; the listed arguments are sizes.
    Alloc(&'static [u32]),
    /// `realloc(p, n)`: the result holds what `p` held.
    Realloc,
    /// A deallocator: every argument is a pointer.
    Free,
}

impl KnownFn {
    /// The known function a callee name designates.
    pub(crate) fn from_name(name: &str) -> Option<KnownFn> {
        let intrinsic = |base: &str| name == base || name.starts_with(&format!("{base}."));
        if intrinsic("llvm.memcpy") || intrinsic("llvm.memmove") || intrinsic("llvm.memcpy.inline")
        {
            return Some(KnownFn::MemTransfer);
        }
        if intrinsic("llvm.memset") || intrinsic("llvm.memset.inline") {
            return Some(KnownFn::MemSet);
        }
        Some(match name {
            "memcpy" | "memmove" => KnownFn::MemTransfer,
            "memset" => KnownFn::MemSet,
            "malloc" | "_Znwm" | "_Znam" | "valloc" | "pvalloc" => KnownFn::Alloc(&[0]),
            "calloc" | "aligned_alloc" | "memalign" => KnownFn::Alloc(&[0, 1]),
            "_ZnwmSt11align_val_t" | "_ZnamSt11align_val_t" => KnownFn::Alloc(&[0, 1]),
            "realloc" => KnownFn::Realloc,
            "free" | "_ZdlPv" | "_ZdaPv" | "_ZdlPvm" | "_ZdaPvm" => KnownFn::Free,
            _ => return None,
        })
    }
}

/// The type a TBAA scalar type name stands for, with its size in bytes where
/// the name fixes it. `"omnipotent char"` is `Anything`; pointer names are
/// `"any pointer"`, `"p1 double"`, `"p2 omnipotent char"`, ...; struct type
/// names (`"_ZTS1S"`, `"S"`) give `None`.
pub(crate) fn tbaa_type(name: &str) -> Option<(ConcreteType, Option<u64>)> {
    use ConcreteType::*;
    Some(match name {
        "double" => (Float(FloatKind::F64), Some(8)),
        "float" => (Float(FloatKind::F32), Some(4)),
        "_Float16" | "__fp16" | "half" => (Float(FloatKind::Half), Some(2)),
        "long double" | "__float128" | "_Float128" | "__bf16" => (Float(FloatKind::Other), None),
        "_Bool" | "bool" => (Integer, Some(1)),
        "short" => (Integer, Some(2)),
        "int" => (Integer, Some(4)),
        "long" | "long long" => (Integer, Some(8)),
        "__int128" => (Integer, Some(16)),
        "omnipotent char" | "char" => (Anything, Some(1)),
        "any pointer" | "vtable pointer" => (Pointer, None),
        _ if is_pointer_name(name) => (Pointer, None),
        _ => return None,
    })
}

/// `p<N> <pointee>` (clang's pointer TBAA names) and `any p<N> pointer`.
fn is_pointer_name(name: &str) -> bool {
    let rest = name.strip_prefix("any ").unwrap_or(name);
    let Some(rest) = rest.strip_prefix('p') else {
        return false;
    };
    let digits = rest.chars().take_while(char::is_ascii_digit).count();
    digits > 0 && rest[digits..].starts_with(' ')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(
            KnownFn::from_name("llvm.memcpy.p0.p0.i64"),
            Some(KnownFn::MemTransfer)
        );
        assert_eq!(
            KnownFn::from_name("llvm.memset.p0.i64"),
            Some(KnownFn::MemSet)
        );
        assert_eq!(KnownFn::from_name("llvm.memcpyx"), None);
        assert_eq!(
            tbaa_type("p1 double").map(|t| t.0),
            Some(ConcreteType::Pointer)
        );
        assert_eq!(
            tbaa_type("any p2 pointer").map(|t| t.0),
            Some(ConcreteType::Pointer)
        );
        assert_eq!(tbaa_type("pthread_t"), None);
        assert_eq!(tbaa_type("_ZTS1S"), None);
    }
}
