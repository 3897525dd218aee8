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

    /// Runs `f` on the module inkwell holds, borrowed exclusively: no
    /// handle made by [`Module::of`] is alive meanwhile, and the handles `f`
    /// makes cannot outlive the call, so what `f` erased (kept alive
    /// detached, see [`crate::Inst::erase`]) is freed when it returns.
    /// Prefer it to [`Module::of`], which never frees what is erased.
    ///
    /// ```compile_fail
    /// let ctx = inkwell::context::Context::create();
    /// let mut module = ctx.create_module("m");
    /// module.add_function("f", ctx.f64_type().fn_type(&[], false), None);
    /// let f = enz_ir::Module::scope(&mut module, |m| enz_ir::named_function(m, "f"));
    /// assert!(f.is_some());
    /// ```
    ///
    /// What the closure computes from its handles may leave it:
    ///
    /// ```
    /// let ctx = inkwell::context::Context::create();
    /// let mut module = ctx.create_module("m");
    /// module.add_function("f", ctx.f64_type().fn_type(&[], false), None);
    /// let found = enz_ir::Module::scope(&mut module, |m| enz_ir::named_function(m, "f").is_some());
    /// assert!(found);
    /// ```
    pub fn scope<R>(
        m: &mut inkwell::module::Module<'_>,
        f: impl for<'a> FnOnce(Module<'a>) -> R,
    ) -> R {
        let raw = m.as_mut_ptr();
        let _scope = crate::graveyard::enter(raw);
        f(Module::wrap(raw))
    }

    /// Runs `f` on the module behind `raw`, a module someone else owns and
    /// disposes of (an `llvm::Module` handed to a pass plugin by opt,
    /// clang or lld); the handles `f` makes cannot outlive the call, and
    /// what `f` erased is freed when it returns (as [`Module::scope`]).
    ///
    /// # Safety
    /// `raw` must be a live `LLVMModuleRef`, not used by anything else
    /// while `f` runs (in particular through handles made otherwise).
    pub unsafe fn with_raw<R>(
        raw: *mut std::ffi::c_void,
        f: impl for<'a> FnOnce(Module<'a>) -> R,
    ) -> R {
        let raw = raw as llvm_sys::prelude::LLVMModuleRef;
        let _scope = crate::graveyard::enter(raw);
        f(Module::wrap(raw))
    }

    /// The context the module lives in.
    pub fn context(self) -> Context<'m> {
        // SAFETY: a `Module` is a live module.
        Context::wrap(unsafe { llvm_sys::core::LLVMGetModuleContext(self.0) })
    }
}
