//! Handles on a module and on a context. Safe code cannot make one from a
//! raw pointer: a [`Module`] comes from a live inkwell module (or from the
//! IR layer itself), a [`Context`] from a module, value or type, so every
//! function taking one may rely on it being valid.

use llvm_sys::prelude::{LLVMContextRef, LLVMModuleRef};

/// An LLVM module the IR layer works on. It is not owned: whoever made it
/// (inkwell, a plugin's host, a [`crate::ScratchModule`]) disposes of it.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Module(pub(crate) LLVMModuleRef);

/// An LLVM context.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Context(pub(crate) LLVMContextRef);

impl Module {
    /// The module inkwell holds (valid while `m` lives).
    pub fn of(m: &inkwell::module::Module<'_>) -> Module {
        Module(m.as_mut_ptr())
    }

    /// The context the module lives in.
    pub fn context(self) -> Context {
        // SAFETY: a `Module` is a live module.
        Context(unsafe { llvm_sys::core::LLVMGetModuleContext(self.0) })
    }
}
