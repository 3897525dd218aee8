//! Module-level IR: looking up and adding functions and globals, blocks of
//! a function, copies of instructions, and function attributes.

use super::{cstr, Block, Ty, Value};
use llvm_sys::core::*;
use llvm_sys::prelude::LLVMModuleRef;
use llvm_sys::LLVMLinkage;

/// The function named `name` in `module`, if any.
pub(crate) fn named_function(module: LLVMModuleRef, name: &str) -> Option<Value> {
    let c = cstr(name);
    // SAFETY: a lookup by name in a valid module.
    let f = unsafe { LLVMGetNamedFunction(module, c.as_ptr()) };
    (!f.is_null()).then_some(Value(f))
}

/// The global variable named `name` in `module`, if any.
pub(crate) fn named_global(module: LLVMModuleRef, name: &str) -> Option<Value> {
    let c = cstr(name);
    // SAFETY: a lookup by name in a valid module.
    let g = unsafe { LLVMGetNamedGlobal(module, c.as_ptr()) };
    (!g.is_null()).then_some(Value(g))
}

/// A new function with internal linkage (no body yet).
pub(crate) fn add_internal_function(module: LLVMModuleRef, name: &str, fty: Ty) -> Value {
    let c = cstr(name);
    // SAFETY: adds a declaration to a valid module.
    let f = Value(unsafe { LLVMAddFunction(module, c.as_ptr(), fty.0) });
    f.set_internal_linkage();
    f
}

/// A new internal global of type `ty` in the address space `space`,
/// initialised with `init`, aligned to `align`.
pub(crate) fn add_internal_global(
    module: LLVMModuleRef,
    name: &str,
    ty: Ty,
    space: u32,
    init: Value,
    align: u32,
) -> Value {
    let c = cstr(name);
    // SAFETY: adds a global to a valid module and sets its properties.
    unsafe {
        let g = LLVMAddGlobalInAddressSpace(module, ty.0, c.as_ptr(), space);
        LLVMSetInitializer(g, init.0);
        LLVMSetLinkage(g, LLVMLinkage::LLVMInternalLinkage);
        LLVMSetAlignment(g, align);
        Value(g)
    }
}

impl Value {
    /// Gives a function or global internal linkage.
    pub(crate) fn set_internal_linkage(self) {
        // SAFETY: `self` is a global value.
        unsafe { LLVMSetLinkage(self.0, LLVMLinkage::LLVMInternalLinkage) }
    }

    /// Appends a new basic block named `name` to this function.
    pub(crate) fn append_block(self, name: &str) -> Block {
        let c = cstr(name);
        // SAFETY: `self` is a function of a live module.
        Block(unsafe { LLVMAppendBasicBlockInContext(self.context(), self.0, c.as_ptr()) })
    }

    /// A copy of this instruction, not yet inserted anywhere (insert it
    /// with `Builder::insert`), with the same operands.
    pub(crate) fn clone_instruction(self) -> Value {
        // SAFETY: `self` is an instruction.
        Value(unsafe { LLVMInstructionClone(self.0) })
    }

    /// Adds the enum attribute `name` (e.g. `alwaysinline`) to this function.
    pub(crate) fn add_function_attribute(self, name: &str) {
        // SAFETY: `self` is a function; the attribute is created in its context.
        unsafe {
            let kind = LLVMGetEnumAttributeKindForName(name.as_ptr() as *const _, name.len());
            LLVMAddAttributeAtIndex(
                self.0,
                llvm_sys::LLVMAttributeFunctionIndex,
                LLVMCreateEnumAttribute(self.context(), kind, 0),
            );
        }
    }

    /// The address space of a global's pointer.
    pub(crate) fn global_address_space(self) -> u32 {
        // SAFETY: `self` is a global value (a pointer).
        unsafe { LLVMGetPointerAddressSpace(LLVMTypeOf(self.0)) }
    }

    /// The alignment recorded on a global (0: none).
    pub(crate) fn global_alignment(self) -> u32 {
        // SAFETY: `self` is a global value.
        unsafe { LLVMGetAlignment(self.0) }
    }
}

impl Block {
    /// A new block named `name` inserted just before this one (in the same
    /// function).
    pub(crate) fn insert_block_before(self, name: &str) -> Block {
        let c = cstr(name);
        // SAFETY: `self` is a block of a live function.
        Block(unsafe { LLVMInsertBasicBlockInContext(self.parent().context(), self.0, c.as_ptr()) })
    }
}

impl Ty {
    /// `[n x self]`.
    pub(crate) fn array(self, n: u64) -> Ty {
        // SAFETY: an array type of a valid element type.
        Ty(unsafe { LLVMArrayType2(self.0, n) })
    }

    /// The all-zero constant of this type.
    pub(crate) fn null_constant(self) -> Value {
        // SAFETY: a constant of a valid type.
        Value(unsafe { LLVMConstNull(self.0) })
    }

    /// The `undef` constant of this type.
    pub(crate) fn undef_constant(self) -> Value {
        // SAFETY: a constant of a valid type.
        Value(unsafe { LLVMGetUndef(self.0) })
    }
}
