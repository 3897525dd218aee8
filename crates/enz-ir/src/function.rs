//! Function handles: a [`Value`] known to be a function, with the
//! operations only functions have (parameters, blocks, attributes,
//! deletion). Everything a value can do, a function can too (`Deref`).

use crate::{cstr, Block, Ty, Value};
use llvm_sys::core::*;

/// A function of a module.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Function<'m>(pub(crate) Value<'m>);

impl<'m> std::ops::Deref for Function<'m> {
    type Target = Value<'m>;
    fn deref(&self) -> &Value<'m> {
        &self.0
    }
}

impl<'m> From<Function<'m>> for Value<'m> {
    fn from(f: Function<'m>) -> Value<'m> {
        f.0
    }
}

impl<'m> Value<'m> {
    /// This value as a function, if it is one.
    pub fn as_function(self) -> Option<Function<'m>> {
        self.is_function().then_some(Function(self))
    }
}

impl<'m> Function<'m> {
    /// The function as a plain value (an operand, a map key).
    pub fn as_value(self) -> Value<'m> {
        self.0
    }

    /// The parameters, in order.
    pub fn params(self) -> Vec<Value<'m>> {
        let n = unsafe { LLVMCountParams(self.0 .0) };
        (0..n)
            .map(|i| Value::wrap(unsafe { LLVMGetParam(self.0 .0, i) }))
            .collect()
    }

    /// The basic blocks, in layout order.
    pub fn blocks(self) -> Vec<Block<'m>> {
        let mut out = Vec::new();
        let mut b = unsafe { LLVMGetFirstBasicBlock(self.0 .0) };
        while !b.is_null() {
            out.push(Block::wrap(b));
            b = unsafe { LLVMGetNextBasicBlock(b) };
        }
        out
    }

    /// The entry block.
    pub fn entry_block(self) -> Block<'m> {
        Block::wrap(unsafe { LLVMGetEntryBasicBlock(self.0 .0) })
    }

    /// Function type of a function value.
    pub fn function_type(self) -> Ty<'m> {
        Ty::wrap(unsafe { LLVMGlobalGetValueType(self.0 .0) })
    }

    /// The personality function (exception handling), if any.
    pub fn personality(self) -> Option<Value<'m>> {
        // SAFETY: `self` is a function.
        unsafe {
            (LLVMHasPersonalityFn(self.0 .0) != 0)
                .then(|| Value::wrap(LLVMGetPersonalityFn(self.0 .0)))
        }
    }

    /// Sets the personality function (a function or a constant cast of one).
    pub fn set_personality(self, personality: Value<'m>) {
        // SAFETY: `self` is a function and `personality` a constant.
        unsafe { LLVMSetPersonalityFn(self.0 .0, personality.0) }
    }

    /// Intrinsic ID of a function (0 if not an intrinsic).
    pub fn intrinsic_id(self) -> u32 {
        unsafe { LLVMGetIntrinsicID(self.0 .0) }
    }
    /// Deletes the function. It leaves the module with its body (whose
    /// instructions drop their operands) and is kept alive until no handle
    /// can reach it (see ARCHITECTURE.md, "Invariants"): its module, an
    /// instruction's operands, erasing it again panic with "stale handle".
    /// What still uses it (callers deleted one by one after it) uses
    /// `poison` instead.
    pub fn delete_function(self) {
        crate::graveyard::delete_function(self.0 .0)
    }

    /// The type of parameter `k`'s `sret` attribute, if it has one.
    pub fn param_sret_type(self, k: u32) -> Option<Ty<'m>> {
        // SAFETY: attribute queries on a function; the type lives in the
        // context.
        unsafe {
            let kind = LLVMGetEnumAttributeKindForName(c"sret".as_ptr(), 4);
            let a = LLVMGetEnumAttributeAtIndex(self.0 .0, k + 1, kind);
            (!a.is_null()).then(|| Ty::wrap(LLVMGetTypeAttributeValue(a)))
        }
    }

    /// The value of string attribute `name` at attribute index `index`
    /// (0: the return value, k + 1: parameter k).
    pub fn string_attribute_at(self, index: u32, name: &str) -> Option<String> {
        // SAFETY: attribute queries on a function; the value's bytes are
        // copied before the attribute can go away.
        unsafe {
            let a = LLVMGetStringAttributeAtIndex(
                self.0 .0,
                index,
                name.as_ptr() as *const _,
                name.len() as u32,
            );
            if a.is_null() {
                return None;
            }
            let mut len = 0u32;
            let v = LLVMGetStringAttributeValue(a, &mut len);
            if v.is_null() {
                return None;
            }
            let bytes = std::slice::from_raw_parts(v as *const u8, len as usize);
            Some(String::from_utf8_lossy(bytes).into_owned())
        }
    }

    /// Adds string attribute `name`=`value` at attribute index `index`
    /// (0: the return value, k + 1: parameter k).
    pub fn add_string_attribute_at(self, index: u32, name: &str, value: &str) {
        // SAFETY: the attribute is created in the function's context.
        unsafe {
            let a = LLVMCreateStringAttribute(
                self.context().0,
                name.as_ptr() as *const _,
                name.len() as u32,
                value.as_ptr() as *const _,
                value.len() as u32,
            );
            LLVMAddAttributeAtIndex(self.0 .0, index, a);
        }
    }

    /// Removes string attribute `name` at attribute index `index` (no-op
    /// when absent).
    pub fn remove_string_attribute_at(self, index: u32, name: &str) {
        // SAFETY: `name` is passed with its length; LLVM ignores a missing
        // attribute.
        unsafe {
            LLVMRemoveStringAttributeAtIndex(
                self.0 .0,
                index,
                name.as_ptr() as *const _,
                name.len() as u32,
            );
        }
    }

    /// Whether a function carries the string attribute `name`.
    pub fn has_string_attribute(self, name: &str) -> bool {
        unsafe {
            !LLVMGetStringAttributeAtIndex(
                self.0 .0,
                llvm_sys::LLVMAttributeFunctionIndex,
                name.as_ptr() as *const _,
                name.len() as u32,
            )
            .is_null()
        }
    }
    /// Whether a function carries the enum attribute `name` (`noinline`).
    pub fn has_enum_attribute(self, name: &str) -> bool {
        // SAFETY: `self` is a function; the kind is looked up by name.
        unsafe {
            let kind = LLVMGetEnumAttributeKindForName(name.as_ptr() as *const _, name.len());
            !LLVMGetEnumAttributeAtIndex(self.0 .0, llvm_sys::LLVMAttributeFunctionIndex, kind)
                .is_null()
        }
    }
    /// Appends a new basic block named `name` to this function.
    pub fn append_block(self, name: &str) -> Block<'m> {
        let c = cstr(name);
        // SAFETY: `self` is a function of a live module.
        Block::wrap(unsafe {
            LLVMAppendBasicBlockInContext(self.context().0, self.0 .0, c.as_ptr())
        })
    }
    /// Adds the enum attribute `name` (e.g. `alwaysinline`) to this function,
    /// first removing the ones LLVM's verifier says it is incompatible with
    /// ([`crate::incompatible_attributes`]: `noinline` with `alwaysinline`).
    pub fn add_function_attribute(self, name: &str) {
        // SAFETY: `self` is a function; the attribute is created in its context.
        unsafe {
            for other in crate::incompatible_attributes(name) {
                let k = LLVMGetEnumAttributeKindForName(other.as_ptr() as *const _, other.len());
                llvm_sys::core::LLVMRemoveEnumAttributeAtIndex(
                    self.0 .0,
                    llvm_sys::LLVMAttributeFunctionIndex,
                    k,
                );
            }
            let kind = LLVMGetEnumAttributeKindForName(name.as_ptr() as *const _, name.len());
            LLVMAddAttributeAtIndex(
                self.0 .0,
                llvm_sys::LLVMAttributeFunctionIndex,
                LLVMCreateEnumAttribute(self.context().0, kind, 0),
            );
        }
    }
    /// Whether the function's attributes say it reads and writes no
    /// memory but `errno` (`readnone`, `memory(none)`, `memory(errnomem:
    /// write)`: what clang infers for a function of scalars calling libm).
    pub fn accesses_only_errno(self) -> bool {
        // SAFETY: reads enum attributes of a function.
        let attr = |name: &str| unsafe {
            let kind = LLVMGetEnumAttributeKindForName(name.as_ptr() as *const _, name.len());
            LLVMGetEnumAttributeAtIndex(self.0 .0, llvm_sys::LLVMAttributeFunctionIndex, kind)
        };
        if !attr("readnone").is_null() {
            return true;
        }
        // Two bits per location (argmem, inaccessiblemem, errnomem, other,
        // ...); errnomem is the third.
        const ERRNO: u64 = 0b11 << 4;
        let m = attr("memory");
        !m.is_null() && unsafe { LLVMGetEnumAttributeValue(m) } & !ERRNO == 0
    }

    /// Whether the function's attributes say it writes no memory
    /// (`memory(none)`, `memory(read)`, `readnone`, `readonly`; the LLVM
    /// intrinsics `smin`, `usub.sat`... carry them).
    pub fn writes_no_memory(self) -> bool {
        let attr = |name: &str| unsafe {
            let kind = LLVMGetEnumAttributeKindForName(name.as_ptr() as *const _, name.len());
            LLVMGetEnumAttributeAtIndex(self.0 .0, llvm_sys::LLVMAttributeFunctionIndex, kind)
        };
        if !attr("readnone").is_null() || !attr("readonly").is_null() {
            return true;
        }
        let m = attr("memory");
        // Two bits per memory location, the high one "may modify".
        !m.is_null() && unsafe { LLVMGetEnumAttributeValue(m) } & 0xAAAA_AAAA_AAAA_AAAA == 0
    }

    /// Adds the enum attribute `name` (e.g. `noalias`) to the return value.
    pub fn add_return_attribute(self, name: &str) {
        // SAFETY: `self` is a function; the attribute is created in its
        // context.
        unsafe {
            let kind = LLVMGetEnumAttributeKindForName(name.as_ptr() as *const _, name.len());
            LLVMAddAttributeAtIndex(
                self.0 .0,
                llvm_sys::LLVMAttributeReturnIndex,
                LLVMCreateEnumAttribute(self.context().0, kind, 0),
            );
        }
    }

    /// Adds the enum attribute `name` (e.g. `noalias`) to parameter `k`.
    pub fn add_param_attribute(self, k: usize, name: &str) {
        // SAFETY: `self` is a function; the attribute is created in its
        // context; parameter indices start at 1.
        unsafe {
            let kind = LLVMGetEnumAttributeKindForName(name.as_ptr() as *const _, name.len());
            LLVMAddAttributeAtIndex(
                self.0 .0,
                k as u32 + 1,
                LLVMCreateEnumAttribute(self.context().0, kind, 0),
            );
        }
    }

    /// Copies function attributes: string attributes always, enum attributes
    /// whose name `keep_enum` accepts.
    pub fn copy_function_attributes_to(self, to: Function<'m>, keep_enum: impl Fn(&str) -> bool) {
        let from = self;
        const ENUMS: &[&str] = &[
            "optnone",
            "noinline",
            "alwaysinline",
            "nounwind",
            "uwtable",
            "memory",
            "readonly",
            "readnone",
            "writeonly",
            "willreturn",
            "nofree",
            "nosync",
            "norecurse",
            "speculatable",
            "mustprogress",
            "noreturn",
            "cold",
            "hot",
            "minsize",
            "optsize",
            "nocallback",
            "convergent",
        ];
        let idx = llvm_sys::LLVMAttributeFunctionIndex;
        let n = unsafe { LLVMGetAttributeCountAtIndex(from.0 .0, idx) } as usize;
        let mut attrs = vec![std::ptr::null_mut(); n];
        unsafe { LLVMGetAttributesAtIndex(from.0 .0, idx, attrs.as_mut_ptr()) };
        for a in attrs {
            let keep = unsafe {
                if LLVMIsEnumAttribute(a) != 0 {
                    let kind = LLVMGetEnumAttributeKind(a);
                    let name = ENUMS.iter().find(|s| {
                        LLVMGetEnumAttributeKindForName(s.as_ptr() as *const _, s.len()) == kind
                    });
                    name.is_some_and(|s| keep_enum(s))
                } else {
                    LLVMIsStringAttribute(a) != 0
                }
            };
            if keep {
                unsafe { LLVMAddAttributeAtIndex(to.0 .0, idx, a) };
            }
        }
    }
}
