//! enz-ir: the IR layer of enz-rs, small safe helpers over the LLVM C API
//! (llvm-sys).
//!
//! The other crates talk to LLVM through these handles ([`Module`],
//! [`Context`], [`Value`], [`Inst`], [`Function`], [`Global`], [`Block`],
//! [`Ty`]), the [`Builder`], module walks and pass pipelines; this is the
//! only crate with `unsafe` code and the only one that calls llvm-sys. The
//! helpers only read or build IR, they hold no analysis state.
//!
//! Every handle carries the lifetime `'m` of the module it points into: a
//! [`Module`] is made from a borrowed inkwell module ([`Module::of`]) or a
//! [`ScratchModule`], and nothing made from it can outlive that borrow.
//! Instructions are [`Inst`]s: what only instructions can do (their
//! block, erasure, call and phi accessors) cannot be asked of a constant
//! or an argument.
//!
//! The plain enums of the C API that the other crates name (opcodes,
//! predicates) are re-exported here, so that they need no llvm-sys of
//! their own; modules and contexts are handles, never raw pointers.

mod alias_scopes;
mod builder;
mod clone;
mod debug_info;
mod function;
mod global;
mod graveyard;
mod handles;
mod inst;
mod module;
mod passes;
mod process;
mod target;
mod types;
mod unwind;
mod value;

pub use alias_scopes::ScopePair;
pub use builder::Builder;
pub use clone::{clone_body, ValueMap};
pub use debug_info::adopt_locations;
pub use function::Function;
pub use global::Global;
pub use inst::Inst;
pub use module::{
    add_internal_function, add_internal_global, add_to_compiler_used, external_global, functions,
    globals, module_context, module_identifier, named_function, named_global,
    remove_from_used_lists, verify_module, ScratchModule,
};
pub use passes::{run_function_passes, run_module_passes};
pub use process::{install_fatal_error_handler, limit_address_space};
pub use target::{is_little_endian, module_triple, triple_is_known};
pub use types::{Ty, TyKind};
pub use value::{Block, Value};

pub use handles::{Context, Module};
pub use llvm_sys::{LLVMAtomicRMWBinOp, LLVMIntPredicate, LLVMOpcode, LLVMRealPredicate};

use std::ffi::{CStr, CString};

/// Converts an LLVM-owned message (freed with `LLVMDisposeMessage`) to a `String`.
pub(crate) fn take_message(ptr: *mut std::os::raw::c_char) -> String {
    if ptr.is_null() {
        return String::new();
    }
    // SAFETY: LLVM returns a NUL-terminated string that we own.
    unsafe {
        let s = CStr::from_ptr(ptr).to_string_lossy().into_owned();
        llvm_sys::core::LLVMDisposeMessage(ptr);
        s
    }
}

/// A NUL-terminated copy of `s` for the C API (interior NULs are dropped).
pub(crate) fn cstr(s: &str) -> CString {
    CString::new(s.replace('\0', "")).expect("no interior NUL")
}

/// The enum function attributes LLVM's verifier refuses beside `name` on
/// one function or call site: adding `name` removes them (the later
/// decision wins: a registered function made `noinline`, a call enz-rs
/// inlines made `alwaysinline`).
pub fn incompatible_attributes(name: &str) -> &'static [&'static str] {
    match name {
        "alwaysinline" => &["noinline", "optnone"],
        "noinline" => &["alwaysinline"],
        _ => &[],
    }
}
