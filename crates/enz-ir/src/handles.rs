//! Handles on a module and on a context. Safe code cannot make one from a
//! raw pointer: a [`Module`] comes from a live inkwell module (or from the
//! IR layer itself), a [`Context`] from a module, value or type, so every
//! function taking one may rely on it being valid.

use llvm_sys::prelude::{LLVMContextRef, LLVMModuleRef};
use std::marker::PhantomData;

/// An LLVM module the IR layer works on. It is not owned: whoever made it
/// (inkwell, a plugin's host, a [`crate::ScratchModule`]) disposes of it.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Module<'m>(pub(crate) LLVMModuleRef, PhantomData<&'m ()>);

/// An LLVM context.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub struct Context<'m>(pub(crate) LLVMContextRef, PhantomData<&'m ()>);

impl<'m> Context<'m> {
    /// The handle of a raw reference (the IR layer only: the reference must
    /// be live for `'m`).
    pub(crate) fn wrap(raw: LLVMContextRef) -> Context<'m> {
        Context(raw, PhantomData)
    }
}

impl<'m> Module<'m> {
    /// The handle of a raw reference (the IR layer only: the reference must
    /// be live for `'m`).
    pub(crate) fn wrap(raw: LLVMModuleRef) -> Module<'m> {
        Module(raw, PhantomData)
    }
}

impl<'m> Module<'m> {
    /// The module inkwell holds: every handle into it borrows `m`, so none
    /// outlives it (inkwell disposes of the module when `m` is dropped).
    ///
    /// ```compile_fail,E0597
    /// let ctx = inkwell::context::Context::create();
    /// let f = {
    ///     let module = ctx.create_module("m");
    ///     module.add_function("f", ctx.f64_type().fn_type(&[], false), None);
    ///     enz_ir::named_function(enz_ir::Module::of(&module), "f")
    /// };
    /// assert!(f.is_some());
    /// ```
    ///
    /// Used while the module lives, the same handle is fine:
    ///
    /// ```
    /// let ctx = inkwell::context::Context::create();
    /// let module = ctx.create_module("m");
    /// module.add_function("f", ctx.f64_type().fn_type(&[], false), None);
    /// let f = enz_ir::named_function(enz_ir::Module::of(&module), "f");
    /// assert!(f.is_some());
    /// ```
    pub fn of(m: &'m inkwell::module::Module<'_>) -> Module<'m> {
        Module::wrap(m.as_mut_ptr())
    }

    /// Runs `f` on the module behind `raw`, a module someone else owns and
    /// disposes of (an `llvm::Module` handed to a pass plugin by opt,
    /// clang or lld); the handles `f` makes cannot outlive the call.
    ///
    /// # Safety
    /// `raw` must be a live `LLVMModuleRef`, not used by anything else
    /// while `f` runs.
    pub unsafe fn with_raw<R>(
        raw: *mut std::ffi::c_void,
        f: impl for<'a> FnOnce(Module<'a>) -> R,
    ) -> R {
        f(Module::wrap(raw as llvm_sys::prelude::LLVMModuleRef))
    }

    /// The context the module lives in.
    pub fn context(self) -> Context<'m> {
        // SAFETY: a `Module` is a live module.
        Context::wrap(unsafe { llvm_sys::core::LLVMGetModuleContext(self.0) })
    }
}
