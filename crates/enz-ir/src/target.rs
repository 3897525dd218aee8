//! The module's target: its triple, and whether this LLVM knows its
//! architecture (a module for an unknown one cannot be compiled further,
//! so enz-rs refuses it rather than write a module no tool accepts).

use crate::Module;
use llvm_sys::core::LLVMGetTarget;
use llvm_sys::target::LLVM_InitializeAllTargetInfos;
use llvm_sys::target_machine::{LLVMGetTargetFromTriple, LLVMTargetRef};
use std::sync::Once;

/// The module's target triple ("" when it has none).
pub fn module_triple<'m>(m: Module<'m>) -> String {
    // SAFETY: LLVM returns the module's own NUL-terminated triple.
    unsafe { std::ffi::CStr::from_ptr(LLVMGetTarget(m.0)) }
        .to_string_lossy()
        .into_owned()
}

/// Whether some target built into this LLVM handles `triple`.
pub fn triple_is_known(triple: &str) -> bool {
    static TARGET_INFOS: Once = Once::new();
    // SAFETY: registers LLVM's static target descriptions, once.
    TARGET_INFOS.call_once(|| unsafe { LLVM_InitializeAllTargetInfos() });
    let t = super::cstr(triple);
    let mut target: LLVMTargetRef = std::ptr::null_mut();
    let mut error = std::ptr::null_mut();
    // SAFETY: plain lookup; the error message, if any, is ours to free.
    let failed = unsafe { LLVMGetTargetFromTriple(t.as_ptr(), &mut target, &mut error) } != 0;
    super::take_message(error);
    !failed
}

/// Whether the module's data layout stores integers little-endian (the
/// lowest-addressed byte is the least significant).
pub fn is_little_endian<'m>(m: Module<'m>) -> bool {
    // SAFETY: reads the module's own data layout.
    unsafe {
        let dl = llvm_sys::target::LLVMGetModuleDataLayout(m.0);
        llvm_sys::target::LLVMByteOrder(dl) == llvm_sys::target::LLVMByteOrdering::LLVMLittleEndian
    }
}
