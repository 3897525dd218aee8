//! Small safe helpers over the LLVM C API (llvm-sys).
//!
//! Everything else in enz-core talks to LLVM through these newtypes
//! ([`Value`], [`Block`], [`Ty`]) and the [`Builder`]; `unsafe` stays here.
//! The helpers only read or build IR, they hold no analysis state.

mod builder;
mod clone;
mod module;
mod passes;
mod process;
mod target;
mod types;
mod value;

pub(crate) use builder::Builder;
pub(crate) use clone::{clone_body, ValueMap};
pub(crate) use module::{
    add_internal_function, add_internal_global, functions, globals, module_context, named_function,
    named_global, verify_module, ScratchModule,
};
pub(crate) use passes::{run_function_passes, run_module_passes};
pub use process::{install_fatal_error_handler, limit_address_space};
pub(crate) use target::{is_little_endian, module_triple, triple_is_known};
pub(crate) use types::{Ty, TyKind};
pub(crate) use value::{Block, Value};

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
