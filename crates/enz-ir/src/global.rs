//! Global-variable handles: a [`Value`] known to be a global variable,
//! with the operations only globals have (initializer, definition,
//! deletion, address space, alignment). Everything a value can do, a
//! global can too (`Deref`).

use crate::Value;
use llvm_sys::core::*;
use llvm_sys::LLVMLinkage;

/// A global variable of a module.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Global<'m>(pub(crate) Value<'m>);

impl<'m> std::ops::Deref for Global<'m> {
    type Target = Value<'m>;
    fn deref(&self) -> &Value<'m> {
        &self.0
    }
}

impl<'m> From<Global<'m>> for Value<'m> {
    fn from(g: Global<'m>) -> Value<'m> {
        g.0
    }
}

impl<'m> Value<'m> {
    /// This value as a global variable, if it is one.
    pub fn as_global(self) -> Option<Global<'m>> {
        self.is_global_variable().then_some(Global(self))
    }
}

impl<'m> Global<'m> {
    /// The global as a plain value (an operand, a map key).
    pub fn as_value(self) -> Value<'m> {
        self.0
    }

    /// A global variable's initializer (`None` for a declaration).
    pub fn initializer(self) -> Option<Value<'m>> {
        // SAFETY: `self` is a global variable.
        let init = unsafe { LLVMGetInitializer(self.0 .0) };
        (!init.is_null()).then_some(Value::wrap(init))
    }
    /// Turns a declared global into a private definition initialised to
    /// zero (so that a module still using it links, and no symbol of that
    /// name is left).
    pub fn define_private_zero(self) {
        // SAFETY: `self` is a global variable.
        unsafe {
            LLVMSetInitializer(self.0 .0, LLVMConstNull(LLVMGlobalGetValueType(self.0 .0)));
            LLVMSetLinkage(self.0 .0, LLVMLinkage::LLVMPrivateLinkage);
        }
    }
    /// Whether the global is thread-local (one copy per thread).
    pub fn is_thread_local(self) -> bool {
        // SAFETY: `self` is a global variable.
        unsafe { LLVMIsThreadLocal(self.0 .0) != 0 }
    }
    /// Makes the global thread-local (one copy per thread).
    pub fn set_thread_local(self) {
        // SAFETY: `self` is a global variable.
        unsafe { LLVMSetThreadLocal(self.0 .0, 1) }
    }
    /// Replaces the initializer with the constant `init` (of the global's
    /// value type).
    pub fn set_initializer(self, init: Value<'m>) {
        // SAFETY: `self` is a global variable and `init` a constant.
        unsafe { LLVMSetInitializer(self.0 .0, init.0) }
    }

    /// Whether the global is declared `constant`.
    pub fn is_global_constant(self) -> bool {
        // SAFETY: `self` is a global variable.
        unsafe { LLVMIsGlobalConstant(self.0 .0) != 0 }
    }

    /// Declares the global `constant` (its memory is never written).
    pub fn set_global_constant(self) {
        // SAFETY: `self` is a global variable.
        unsafe { LLVMSetGlobalConstant(self.0 .0, 1) }
    }

    /// Deletes a global variable. It leaves the module and is kept alive
    /// until no handle can reach it (see ARCHITECTURE.md, "Invariants");
    /// what still uses it uses `poison` instead.
    pub fn delete_global(self) {
        crate::graveyard::delete_global(self.0 .0)
    }
    /// The address space of a global's pointer.
    pub fn global_address_space(self) -> u32 {
        // SAFETY: `self` is a global value (a pointer).
        unsafe { LLVMGetPointerAddressSpace(LLVMTypeOf(self.0 .0)) }
    }
    /// The alignment recorded on a global (0: none).
    pub fn global_alignment(self) -> u32 {
        // SAFETY: `self` is a global value.
        unsafe { LLVMGetAlignment(self.0 .0) }
    }
}
