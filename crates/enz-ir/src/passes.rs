//! Running LLVM pass pipelines (new pass manager, textual pipelines) on a
//! function or a whole module.

use super::{cstr, Function};
use crate::Module;
use llvm_sys::transforms::pass_builder::*;

/// Runs a function pass pipeline on one function.
pub fn run_function_passes<'m>(func: Function<'m>, pipeline: &str) -> Result<(), String> {
    let p = cstr(pipeline);
    unsafe {
        let opts = LLVMCreatePassBuilderOptions();
        let err =
            LLVMRunPassesOnFunction(func.as_value().0, p.as_ptr(), std::ptr::null_mut(), opts);
        LLVMDisposePassBuilderOptions(opts);
        check_error(err)
    }
}

/// Runs a module pass pipeline.
pub fn run_module_passes<'m>(module: Module<'m>, pipeline: &str) -> Result<(), String> {
    let p = cstr(pipeline);
    unsafe {
        let opts = LLVMCreatePassBuilderOptions();
        let err = LLVMRunPasses(module.0, p.as_ptr(), std::ptr::null_mut(), opts);
        LLVMDisposePassBuilderOptions(opts);
        check_error(err)
    }
}

/// The message of an LLVM error, which is consumed.
unsafe fn check_error(err: llvm_sys::error::LLVMErrorRef) -> Result<(), String> {
    if err.is_null() {
        return Ok(());
    }
    let msg = llvm_sys::error::LLVMGetErrorMessage(err);
    let s = std::ffi::CStr::from_ptr(msg).to_string_lossy().into_owned();
    llvm_sys::error::LLVMDisposeErrorMessage(msg);
    Err(s)
}
