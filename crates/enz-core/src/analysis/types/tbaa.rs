//! TBAA type names: what clang's type-based alias metadata says a
//! load or store accesses. (Library functions and their argument facts are
//! in `names.rs`, with every other name.)

use super::tree::{ConcreteType, FloatKind};

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

/// The float a pointer of TBAA type `name` points to: `p1 double` is
/// `double *`. Only floats: a pointer cast to another scalar's pointer
/// type is common enough in C that an integer pointee is not trusted.
pub(crate) fn pointee_float(name: &str) -> Option<ConcreteType> {
    let (ct, _) = tbaa_type(name.strip_prefix("p1 ")?)?;
    ct.is_float().then_some(ct)
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
    use crate::analysis::types::tree::FloatKind;

    #[test]
    fn names() {
        assert_eq!(
            tbaa_type("p1 double").map(|t| t.0),
            Some(ConcreteType::Pointer)
        );
        assert_eq!(
            tbaa_type("any p2 pointer").map(|t| t.0),
            Some(ConcreteType::Pointer)
        );
        assert_eq!(tbaa_type("pthread_t"), None);
        assert_eq!(
            pointee_float("p1 double"),
            Some(ConcreteType::Float(FloatKind::F64))
        );
        assert_eq!(
            pointee_float("p1 float"),
            Some(ConcreteType::Float(FloatKind::F32))
        );
        assert_eq!(pointee_float("p1 int"), None);
        assert_eq!(pointee_float("p2 double"), None);
        assert_eq!(pointee_float("double"), None);
        assert_eq!(tbaa_type("_ZTS1S"), None);
    }
}
