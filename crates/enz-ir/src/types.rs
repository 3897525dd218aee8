//! LLVM types: kind queries and construction of the types synthesis needs.

use crate::{Context, Module};
use llvm_sys::core::*;
use llvm_sys::prelude::*;
use llvm_sys::LLVMTypeKind;
use std::marker::PhantomData;

/// An LLVM type.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Ty<'m>(pub(crate) LLVMTypeRef, PhantomData<&'m ()>);

impl<'m> Ty<'m> {
    /// The handle of a raw reference (the IR layer only: the reference must
    /// be live for `'m`).
    pub(crate) fn wrap(raw: LLVMTypeRef) -> Ty<'m> {
        Ty(raw, PhantomData)
    }
}

/// The coarse shape of a type, as analyses care about it.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum TyKind {
    Void,
    Half,
    Float,
    Double,
    OtherFloat,
    Integer(u32),
    Pointer,
    Struct,
    Array,
    Vector,
    Other,
}

impl<'m> Ty<'m> {
    pub fn kind(self) -> TyKind {
        // SAFETY: the type reference is valid for the context's lifetime.
        match unsafe { LLVMGetTypeKind(self.0) } {
            LLVMTypeKind::LLVMVoidTypeKind => TyKind::Void,
            LLVMTypeKind::LLVMHalfTypeKind => TyKind::Half,
            LLVMTypeKind::LLVMFloatTypeKind => TyKind::Float,
            LLVMTypeKind::LLVMDoubleTypeKind => TyKind::Double,
            LLVMTypeKind::LLVMBFloatTypeKind
            | LLVMTypeKind::LLVMX86_FP80TypeKind
            | LLVMTypeKind::LLVMFP128TypeKind
            | LLVMTypeKind::LLVMPPC_FP128TypeKind => TyKind::OtherFloat,
            LLVMTypeKind::LLVMIntegerTypeKind => {
                TyKind::Integer(unsafe { LLVMGetIntTypeWidth(self.0) })
            }
            LLVMTypeKind::LLVMPointerTypeKind => TyKind::Pointer,
            LLVMTypeKind::LLVMStructTypeKind => TyKind::Struct,
            LLVMTypeKind::LLVMArrayTypeKind => TyKind::Array,
            LLVMTypeKind::LLVMVectorTypeKind | LLVMTypeKind::LLVMScalableVectorTypeKind => {
                TyKind::Vector
            }
            _ => TyKind::Other,
        }
    }

    /// A scalar floating-point type (half, float, double, ...).
    pub fn is_fp_scalar(self) -> bool {
        matches!(
            self.kind(),
            TyKind::Half | TyKind::Float | TyKind::Double | TyKind::OtherFloat
        )
    }

    /// A floating-point scalar or a vector of them.
    pub fn is_fp_or_fp_vector(self) -> bool {
        self.is_fp_scalar() || (self.kind() == TyKind::Vector && self.element().is_fp_scalar())
    }

    /// Whether values of this type can carry a derivative: floats, vectors of
    /// floats and aggregates containing them.
    pub fn carries_float(self) -> bool {
        match self.kind() {
            TyKind::Half | TyKind::Float | TyKind::Double | TyKind::OtherFloat => true,
            TyKind::Vector | TyKind::Array => self.element().carries_float(),
            TyKind::Struct => self.struct_fields().into_iter().any(Ty::carries_float),
            _ => false,
        }
    }

    pub fn is_integer(self) -> bool {
        matches!(self.kind(), TyKind::Integer(_))
    }

    /// The width in bits of an integer type (`None` for other types).
    pub fn int_width(self) -> Option<u32> {
        // SAFETY: the width is only read from an integer type.
        self.is_integer()
            .then(|| unsafe { LLVMGetIntTypeWidth(self.0) })
    }

    pub fn is_void(self) -> bool {
        self.kind() == TyKind::Void
    }

    /// Element type of an array or vector.
    pub fn element(self) -> Ty<'m> {
        Ty::wrap(unsafe { LLVMGetElementType(self.0) })
    }

    /// Number of elements of an array or fixed vector.
    /// Whether an array, vector or struct type has no elements.
    pub fn is_empty(self) -> bool {
        self.len() == 0
    }

    pub fn len(self) -> u64 {
        match self.kind() {
            TyKind::Array => unsafe { LLVMGetArrayLength2(self.0) },
            TyKind::Vector => u64::from(unsafe { LLVMGetVectorSize(self.0) }),
            TyKind::Struct => u64::from(unsafe { LLVMCountStructElementTypes(self.0) }),
            _ => 0,
        }
    }

    pub fn struct_fields(self) -> Vec<Ty<'m>> {
        let n = unsafe { LLVMCountStructElementTypes(self.0) } as usize;
        let mut v: Vec<LLVMTypeRef> = vec![std::ptr::null_mut(); n];
        unsafe { LLVMGetStructElementTypes(self.0, v.as_mut_ptr()) };
        v.into_iter().map(Ty::wrap).collect()
    }

    /// Type of member `i` of a struct, array or vector.
    pub fn member(self, i: u32) -> Ty<'m> {
        match self.kind() {
            TyKind::Struct => Ty::wrap(unsafe { LLVMStructGetTypeAtIndex(self.0, i) }),
            _ => self.element(),
        }
    }

    pub fn context(self) -> Context<'m> {
        unsafe { Context::wrap(LLVMGetTypeContext(self.0)) }
    }

    pub fn int(ctx: Context<'m>, bits: u32) -> Ty<'m> {
        Ty::wrap(unsafe { LLVMIntTypeInContext(ctx.0, bits) })
    }

    /// The integer type with the same bits as this float type, lane for
    /// lane for a fixed vector of floats (`double` → `i64`, `<2 x float>`
    /// → `<2 x i32>`); `None` for other types.
    pub fn same_bits_int(self) -> Option<Ty<'m>> {
        let scalar = |t: Ty<'m>| match t.kind() {
            TyKind::Half => Some(16),
            TyKind::Float => Some(32),
            TyKind::Double => Some(64),
            _ => None,
        };
        match self.kind() {
            TyKind::Vector if !self.is_scalable_vector() => {
                let bits = scalar(self.element())?;
                let lanes = u32::try_from(self.len()).ok()?;
                Some(Ty::int(self.context(), bits).vector(lanes))
            }
            _ => scalar(self).map(|bits| Ty::int(self.context(), bits)),
        }
    }

    pub fn void(ctx: Context<'m>) -> Ty<'m> {
        Ty::wrap(unsafe { LLVMVoidTypeInContext(ctx.0) })
    }

    pub fn double(ctx: Context<'m>) -> Ty<'m> {
        Ty::wrap(unsafe { LLVMDoubleTypeInContext(ctx.0) })
    }

    pub fn float(ctx: Context<'m>) -> Ty<'m> {
        Ty::wrap(unsafe { LLVMFloatTypeInContext(ctx.0) })
    }

    pub fn ptr(ctx: Context<'m>) -> Ty<'m> {
        Ty::wrap(unsafe { LLVMPointerTypeInContext(ctx.0, 0) })
    }

    /// Size in bytes of a value of this type in `module`'s data layout.
    pub fn alloc_size(self, module: Module<'m>) -> u64 {
        unsafe {
            llvm_sys::target::LLVMABISizeOfType(
                llvm_sys::target::LLVMGetModuleDataLayout(module.0),
                self.0,
            )
        }
    }

    /// A literal (unnamed) struct of `fields`.
    pub fn literal_struct(ctx: Context<'m>, fields: &[Ty<'m>]) -> Ty<'m> {
        let mut raw: Vec<LLVMTypeRef> = fields.iter().map(|t| t.0).collect();
        Ty::wrap(unsafe { LLVMStructTypeInContext(ctx.0, raw.as_mut_ptr(), raw.len() as u32, 0) })
    }

    pub fn function(ret: Ty<'m>, params: &[Ty<'m>], vararg: bool) -> Ty<'m> {
        let mut raw: Vec<LLVMTypeRef> = params.iter().map(|t| t.0).collect();
        Ty::wrap(unsafe {
            LLVMFunctionType(ret.0, raw.as_mut_ptr(), raw.len() as u32, i32::from(vararg))
        })
    }

    /// Return type of a function type.
    pub fn return_type(self) -> Ty<'m> {
        Ty::wrap(unsafe { LLVMGetReturnType(self.0) })
    }

    /// Address space of a pointer type.
    pub fn address_space(self) -> u32 {
        unsafe { LLVMGetPointerAddressSpace(self.0) }
    }

    /// Number of parameters of a function type.
    pub fn params_len(self) -> usize {
        unsafe { LLVMCountParamTypes(self.0) as usize }
    }

    /// Parameter types of a function type.
    pub fn param_types(self) -> Vec<Ty<'m>> {
        let n = self.params_len();
        let mut raw: Vec<LLVMTypeRef> = vec![std::ptr::null_mut(); n];
        unsafe { LLVMGetParamTypes(self.0, raw.as_mut_ptr()) };
        raw.into_iter().map(Ty::wrap).collect()
    }

    pub fn is_vararg(self) -> bool {
        unsafe { LLVMIsFunctionVarArg(self.0) != 0 }
    }

    /// Printed form, as in IR dumps.
    pub fn to_ir(self) -> String {
        super::take_message(unsafe { LLVMPrintTypeToString(self.0) })
    }
}

impl<'m> std::fmt::Display for Ty<'m> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.to_ir())
    }
}

// ---- data layout queries (for type analysis) ----
impl<'m> Ty<'m> {
    /// Whether the data layout can size this type without failing: integers,
    /// floats, pointers, fixed vectors, arrays and non-opaque structs of them.
    fn safely_sized(self) -> bool {
        use llvm_sys::LLVMTypeKind::*;
        match unsafe { LLVMGetTypeKind(self.0) } {
            LLVMIntegerTypeKind
            | LLVMHalfTypeKind
            | LLVMBFloatTypeKind
            | LLVMFloatTypeKind
            | LLVMDoubleTypeKind
            | LLVMX86_FP80TypeKind
            | LLVMFP128TypeKind
            | LLVMPPC_FP128TypeKind
            | LLVMPointerTypeKind => true,
            LLVMVectorTypeKind | LLVMArrayTypeKind => self.element().safely_sized(),
            LLVMStructTypeKind => {
                let opaque = unsafe { LLVMIsOpaqueStruct(self.0) != 0 };
                !opaque && self.struct_fields().into_iter().all(Ty::safely_sized)
            }
            _ => false,
        }
    }

    /// Allocation size in bytes (the GEP stride of this type) under the data
    /// layout of `module`; `None` for unsized or scalable types.
    pub fn layout_size(self, module: Module<'m>) -> Option<u64> {
        if !self.safely_sized() {
            return None;
        }
        unsafe {
            let dl = llvm_sys::target::LLVMGetModuleDataLayout(module.0);
            Some(llvm_sys::target::LLVMABISizeOfType(dl, self.0))
        }
    }

    /// Byte offset of field `i` of a struct type under `module`'s data
    /// layout; `None` if not a sized struct or `i` is out of range.
    pub fn field_offset(self, module: Module<'m>, i: u32) -> Option<u64> {
        if self.kind() != TyKind::Struct || !self.safely_sized() || u64::from(i) >= self.len() {
            return None;
        }
        unsafe {
            let dl = llvm_sys::target::LLVMGetModuleDataLayout(module.0);
            Some(llvm_sys::target::LLVMOffsetOfElement(dl, self.0, i))
        }
    }

    /// Whether this is a scalable vector (which has no fixed layout).
    pub fn is_scalable_vector(self) -> bool {
        unsafe { LLVMGetTypeKind(self.0) == LLVMTypeKind::LLVMScalableVectorTypeKind }
    }

    /// Whether this type is, or holds (as a struct field or array
    /// element), a scalable vector.
    pub fn contains_scalable_vector(self) -> bool {
        match self.kind() {
            TyKind::Struct => self
                .struct_fields()
                .into_iter()
                .any(Ty::contains_scalable_vector),
            TyKind::Array => self.element().contains_scalable_vector(),
            _ => self.is_scalable_vector(),
        }
    }
}
